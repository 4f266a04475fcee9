package org.dp4j.accounting.event;

import org.dp4j.accounting.PrivacyGuarantee;

/**
 * An accountant that bounds the privacy of any {@link DpEvent} it supports (dp_accounting's
 * {@code PrivacyAccountant}), so a run described once can be reported by every applicable accountant, in dp4j's
 * one guarantee type:
 *
 * <pre>{@code
 * DpEvent run = DpEvent.sampledGaussian(256.0 / 60000, 1.1).times(14063);
 * for (EventAccountant a : List.of(RdpEventAccountant.of(Orders.DEFAULT, RdpConversion.IMPROVED),
 *     PldAccountant.withDefaults())) {
 *   if (a.supports(run)) {
 *     System.out.println(a.privacyGuarantee(run, 1e-5, PrivacyUnit.RECORD).summary());   // ε = 2.597, 2.386
 *   }
 * }
 * }</pre>
 *
 * <p>Accountants of one training run advanced step by step (the ledger's view of the same theorems, with the
 * sampler check a trainer needs) implement {@link org.dp4j.accounting.ledger.StepAccountant}; both give a
 * {@link PrivacyGuarantee}.
 */
public interface EventAccountant {
  /** Short name, e.g. "sampled-gaussian-rdp". */
  String name();

  /** True if the accountant has a theorem for the event; the other methods throw for an unsupported one. */
  default boolean supports(DpEvent event) {
    try {
      SampledGaussianSteps.of(event, name());
      return true;
    } catch (UnsupportedEventException e) {
      return false;
    }
  }

  /**
   * A valid upper bound on ε at δ for the unit, under the threat model "all iterates released";
   * +∞ if the accountant has no finite bound.
   *
   * @throws UnsupportedEventException if the accountant has no theorem for the event
   */
  double epsilon(DpEvent event, double delta, PrivacyUnit unit);

  /**
   * The bound of {@link #epsilon} with its theorem, relation, threat model and assumptions.
   *
   * @throws UnsupportedEventException if the accountant has no theorem for the event
   */
  PrivacyGuarantee privacyGuarantee(DpEvent event, double delta, PrivacyUnit unit);

  /**
   * A valid δ at ε for record-level add/remove neighbours.
   *
   * @throws UnsupportedEventException if the accountant has no theorem for the event
   */
  double delta(DpEvent event, double epsilon);

  /**
   * A valid δ at ε for the unit: for a unit k add/remove steps away, group privacy on the record-level bound at
   * ε/k, δ(ε/k)·Σ_{i&lt;k} e^{iε/k} ({@link GroupPrivacy#groupDelta}; Vadhan 2017, Lemma 2.2, by induction on
   * the path of k neighbours).
   */
  default double delta(DpEvent event, double epsilon, PrivacyUnit unit) {
    int k = unit.addRemoveDistance();
    return GroupPrivacy.groupDelta(epsilon / k, delta(event, epsilon / k), k);
  }
}
