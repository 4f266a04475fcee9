/**
 * Hidden-state (last-iterate) accountants: RDP bounds valid only when the final model alone leaves the
 * trainer ({@link org.dp4j.accounting.ThreatModel#LAST_ITERATE_ONLY}). Pure math on doubles, no ND4J.
 * Every accountant is one theorem, takes an immutable configuration, refuses configurations outside its
 * theorem, and reports a {@link org.dp4j.accounting.PrivacyGuarantee} with its assumptions. Every
 * accountant implements {@link org.dp4j.accounting.hiddenstate.HiddenStateAccountant}, so
 * {@link org.dp4j.accounting.hiddenstate.HiddenStateCombiner} picks the best valid bound among any of them.
 *
 * <h2>DP-MBCD (Chen &amp; Liu 2025; docs/accountants.md#dp-mbcd)</h2>
 * <ul>
 *   <li>{@link org.dp4j.accounting.hiddenstate.DpMbcdAccountant}: Thm 4.6 / Cor. 4.5 / Lemma C.3 as the
 *       corrected step recursion, RDP summed over released blocks; SAFE and PAPER modes
 *       ({@link org.dp4j.accounting.hiddenstate.DpMbcdMode}).</li>
 *   <li>{@link org.dp4j.accounting.hiddenstate.DpMbcdLedger}: the per-block ledger, O(N) per epoch, stepped
 *       once per update; LSI constants per epoch and per-epoch contributions (Fig. 1b).</li>
 *   <li>{@link org.dp4j.accounting.hiddenstate.DpMbcdConfig}, {@link org.dp4j.accounting.hiddenstate.DpMbcdBlock},
 *       {@link org.dp4j.accounting.hiddenstate.NoiseTemperatureSchedule}: the mechanism, block constants and
 *       o(k, j).</li>
 *   <li>{@link org.dp4j.accounting.hiddenstate.DpMbcdStepAccountant}: the accountant as a
 *       {@link org.dp4j.accounting.ledger.StepAccountant} of the privacy ledger, one step per mini-batch.</li>
 * </ul>
 *
 * <h2>Ye &amp; Shokri 2022 (docs/accountants.md#ye-shokri), configured by {@link org.dp4j.accounting.hiddenstate.YeShokriConfig}</h2>
 * <ul>
 *   <li>{@link org.dp4j.accounting.hiddenstate.YeShokriConvexFixedBatchAccountant}: Thm 4.3, convex, fixed
 *       batches.</li>
 *   <li>{@link org.dp4j.accounting.hiddenstate.YeShokriFixedBatchAccountant}: Thm 4.4, strongly convex,
 *       fixed batches (stated or tight first term).</li>
 *   <li>{@link org.dp4j.accounting.hiddenstate.YeShokriShuffleAccountant}: Thm 5.2, shuffle once and
 *       partition; {@link org.dp4j.accounting.hiddenstate.YeShokriShuffleStepAccountant} is its per-epoch
 *       {@link org.dp4j.accounting.ledger.StepAccountant}.</li>
 *   <li>{@link org.dp4j.accounting.hiddenstate.YeShokriWithoutReplacementAccountant}: Thm 5.3, sampling
 *       without replacement per step.</li>
 *   <li>{@link org.dp4j.accounting.hiddenstate.YeShokriNaiveBaselineAccountant}: Thm 4.5, the Chourasia et al.
 *       baseline.</li>
 * </ul>
 */
package org.dp4j.accounting.hiddenstate;
