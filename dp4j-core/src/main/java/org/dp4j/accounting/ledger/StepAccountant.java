package org.dp4j.accounting.ledger;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.dp4j.accounting.NeighbouringRelation;
import org.dp4j.accounting.PrivacyGuarantee;
import org.dp4j.accounting.RdpConversion;
import org.dp4j.accounting.ThreatModel;
import org.dp4j.sampling.SamplingPlan;

/**
 * The one contract of an accountant that a training loop advances one private update at a time: it
 * holds the state of one run (steps so far) for one fixed mechanism, tells the guarantee the run would
 * have after more steps without taking them (which is what lets a budget guard stop <em>before</em> the
 * step that would exceed the budget), and checks that a trainer's sampler and noise are the ones its
 * theorem covers ({@link #requireCovers}), so a trainer asks the accountant instead of switching on its
 * class. Rényi accountants implement {@link RdpStepAccountant}; {@link PldStepAccountant} composes
 * privacy-loss distributions.
 *
 * <p>Every accountant here is data-independent: its guarantee is a function of the step count alone, and
 * non-decreasing in it (the ledger's exact budget stop relies on both).
 */
public interface StepAccountant {
  /** Short name, e.g. "sampled-gaussian-rdp". */
  String name();

  /** The theorem the bound rests on (paper, equation). */
  String theorem();

  ThreatModel threatModel();

  NeighbouringRelation relation();

  /** Conditions the bound needs; "conditional on asserted ..." where the user supplied constants. */
  List<String> assumptions();

  /**
   * Why this accountant's bound is <em>not</em> a certified guarantee, if it is not: it reproduces a paper's
   * uncertified accounting (e.g. DP-MBCD's PAPER mode). A ledger never reports such a bound as ε and never stops
   * on it unless asked to ({@link PrivacyLedger.Builder#budgetFromPaperClaim}); it reports it as the paper's claim.
   * Empty (the default) for a certified bound.
   */
  default Optional<String> notCertifiedBecause() {
    return Optional.empty();
  }

  /** Private updates accounted so far. */
  long steps();

  /**
   * The guarantee at δ the run would have after {@code more} further steps; does not change the state.
   *
   * @param conversion RDP → (ε, δ) conversion, used by Rényi accountants and ignored by the others
   */
  PrivacyGuarantee guaranteeAfter(long more, double delta, RdpConversion conversion);

  /** Accounts {@code count} further steps. */
  void advance(long count);

  /**
   * The mechanism parameters this accountant assumes (e.g. "sgm(q=0.01, z=1.1)"), used to refuse
   * resuming a ledger under a different mechanism.
   */
  String mechanismDescription();

  /**
   * Refuses, with an {@link IllegalArgumentException} naming both sides, a run whose batch schedule or noise
   * is not the one this accountant's theorem assumes.
   *
   * @param plan the trainer's sampler
   * @param noiseMultiplier z of the trainer's noise N(0, (zC)²I) on the clipped sum
   */
  void requireCovers(SamplingPlan plan, double noiseMultiplier);

  /**
   * Each epoch's share of the current bound (Chen &amp; Liu, Fig. 1b), oldest first, as coefficients of α
   * in the RDP; empty if the accountant does not decompose its bound by epoch.
   */
  default double[] epochContributions() {
    return new double[0];
  }

  /** LSI constants of the released blocks after the steps so far, by block name; empty if none. */
  default Map<String, Double> lsiConstants() {
    return Map.of();
  }
}
