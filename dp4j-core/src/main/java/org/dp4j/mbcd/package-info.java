/**
 * DP-MBCD (Chen &amp; Liu): block-coordinate training of lifted MLPs and CNNs with auxiliary variables, noisy
 * proximal updates of the released blocks and adaptive noise schedules ({@link org.dp4j.mbcd.DpMbcdTrainer},
 * {@link org.dp4j.mbcd.LiftedMlp}, {@link org.dp4j.mbcd.LiftedCnn}), and DP-NMF ({@link org.dp4j.mbcd.DpNmf}). The
 * accounting of both is in {@link org.dp4j.accounting.hiddenstate} (LSI recursion) and
 * {@link org.dp4j.accounting.ledger} (composition of the steps actually taken).
 */
package org.dp4j.mbcd;
