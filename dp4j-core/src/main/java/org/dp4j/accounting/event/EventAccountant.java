package org.dp4j.accounting.event;

/**
 * An accountant that bounds the privacy of any {@link DpEvent} it supports, so a run described once
 * can be reported by every applicable accountant:
 *
 * <pre>{@code
 * DpEvent run = DpEvent.sampledGaussian(256.0 / 60000, 1.1).times(14063);
 * for (EventAccountant a : List.of(RdpEventAccountant.of(Orders.DEFAULT, RdpConversion.IMPROVED),
 *     PldAccountant.withDefaults())) {
 *   System.out.println(a.name() + ": " + a.epsilon(run, 1e-5, PrivacyUnit.RECORD));   // 2.597, 2.386
 * }
 * }</pre>
 */
public interface EventAccountant {
  /** Short name, e.g. "sampled-gaussian-rdp". */
  String name();

  /**
   * A valid upper bound on ε at δ for the unit, under the threat model "all iterates released";
   * +∞ if the accountant has no finite bound.
   *
   * @throws UnsupportedEventException if the accountant has no theorem for the event
   */
  double epsilon(DpEvent event, double delta, PrivacyUnit unit);
}
