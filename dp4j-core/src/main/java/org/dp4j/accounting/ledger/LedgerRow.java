package org.dp4j.accounting.ledger;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.dp4j.accounting.PrivacyGuarantee;

/**
 * One epoch of a {@link PrivacyLedger}: the guarantees after that epoch, per threat model.
 *
 * @param epoch 1-based epoch number
 * @param steps private updates accounted so far
 * @param composition best bound when every iterate may be released (empty if no composition
 *     accountant is configured)
 * @param hiddenState best hidden-state bound (only the last iterate released) from a hidden-state
 *     accountant; empty when no hidden-state theorem applies or the assumption was voided
 * @param lastIterate best bound valid when only the last iterate is released: the smaller of
 *     {@code hiddenState} and {@code composition} (composition also covers this weaker threat model)
 * @param lsiConstants LSI constants of the released blocks, by block name (empty if none)
 * @param epochContributions per accountant that decomposes its bound by epoch (Chen &amp; Liu, Fig. 1b):
 *     each epoch's share of the bound so far, oldest first, as coefficients of α in the RDP
 * @param partial true for the row of an epoch that did not finish (the budget stopped it)
 * @param paperClaim the smallest bound of the accountants that are not certified ({@link
 *     StepAccountant#notCertifiedBecause}): a paper's claim, never one of the guarantees above; empty if every
 *     accountant is certified
 */
public record LedgerRow(int epoch, long steps, Optional<PrivacyGuarantee> composition,
    Optional<PrivacyGuarantee> hiddenState, Optional<PrivacyGuarantee> lastIterate,
    Map<String, Double> lsiConstants, Map<String, List<Double>> epochContributions, boolean partial,
    Optional<PrivacyGuarantee> paperClaim) {
  public LedgerRow {
    lsiConstants = Map.copyOf(lsiConstants);
    epochContributions = Map.copyOf(epochContributions);
    java.util.Objects.requireNonNull(paperClaim, "paperClaim");
  }

  /** A row of certified accountants only (no paper's claim). */
  public LedgerRow(int epoch, long steps, Optional<PrivacyGuarantee> composition,
      Optional<PrivacyGuarantee> hiddenState, Optional<PrivacyGuarantee> lastIterate,
      Map<String, Double> lsiConstants, Map<String, List<Double>> epochContributions, boolean partial) {
    this(epoch, steps, composition, hiddenState, lastIterate, lsiConstants, epochContributions, partial,
        Optional.empty());
  }

  /** The row of a finished epoch. */
  public LedgerRow(int epoch, long steps, Optional<PrivacyGuarantee> composition,
      Optional<PrivacyGuarantee> hiddenState, Optional<PrivacyGuarantee> lastIterate,
      Map<String, Double> lsiConstants, Map<String, List<Double>> epochContributions) {
    this(epoch, steps, composition, hiddenState, lastIterate, lsiConstants, epochContributions, false);
  }
}
