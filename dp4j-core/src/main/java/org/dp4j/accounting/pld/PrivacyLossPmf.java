package org.dp4j.accounting.pld;

import static org.dp4j.InvalidSettingException.checkArgument;

/**
 * A discretised privacy-loss distribution (PLD) of one mechanism in one direction: the law of the
 * privacy loss Y = log(P(X)/Q(X)), X ~ P, on the grid {kΔ}, plus an atom at +∞.
 *
 * <p>How it relates to the exact loss Y (the contract every builder of this class must keep, and
 * what {@link ComposedPld} relies on for its error bounds):
 * <ul>
 *   <li>{@link #infinityMass()} is at least the probability that Y exceeds the upper truncation
 *       point (that mass is moved to +∞: pessimistic);
 *   <li>at most {@link #pessimisticMass()} of probability is moved up to a higher grid point
 *       deterministically (the truncated lower tail: pessimistic);
 *   <li>everything else is split between the two grid points around Y so that the conditional mean
 *       is kept: Y′ ∈ {kΔ, (k+1)Δ} with E[Y′ | Y] = Y (Gopi, Lee &amp; Wutschitz 2021, §5,
 *       mean-preserving discretisation). Across steps the errors Y′ − Y are independent, zero-mean
 *       and confined to intervals of width Δ, so Hoeffding's inequality bounds their sum.
 * </ul>
 *
 * <pre>{@code
 * PrivacyLossPmf remove = SampledGaussianPld.pmf(256.0 / 60000, 1.1, LossDirection.REMOVE, 1e-5, 1e-20);
 * double mean = remove.mean();   // ≈ KL divergence of one step
 * }</pre>
 */
final class PrivacyLossPmf {
  private final double interval;
  private final long minIndex;
  private final double[] probabilities;
  private final double infinityMass;
  private final double pessimisticMass;
  private final double[] logProbabilities;

  /**
   * @param interval grid spacing Δ &gt; 0
   * @param minIndex grid index of {@code probabilities[0]}: its loss is minIndex·Δ
   * @param probabilities masses at consecutive grid points, each ≥ 0
   * @param infinityMass mass at +∞, in [0, 1]
   * @param pessimisticMass mass moved up deterministically, in [0, 1]
   */
  public PrivacyLossPmf(double interval, long minIndex, double[] probabilities, double infinityMass,
      double pessimisticMass) {
    checkArgument(interval > 0 && Double.isFinite(interval), "interval must be finite and > 0, was %s", interval);
    checkArgument(probabilities.length > 0, "a PLD needs at least one grid point");
    checkArgument(infinityMass >= 0 && infinityMass <= 1, "infinity mass must be in [0, 1], was %s", infinityMass);
    checkArgument(pessimisticMass >= 0 && pessimisticMass <= 1, "pessimistic mass must be in [0, 1], was %s",
        pessimisticMass);
    for (int i = 0; i < probabilities.length; i++) {
      checkArgument(probabilities[i] >= 0 && Double.isFinite(probabilities[i]),
          "probability at grid index %s must be finite and >= 0, was %s", (Object) (minIndex + i), probabilities[i]);
    }
    this.interval = interval;
    this.minIndex = minIndex;
    this.probabilities = probabilities.clone();
    this.infinityMass = infinityMass;
    this.pessimisticMass = pessimisticMass;
    this.logProbabilities = new double[probabilities.length];
    for (int i = 0; i < probabilities.length; i++) {
      logProbabilities[i] = Math.log(probabilities[i]);
    }
  }

  public double interval() {
    return interval;
  }

  public long minIndex() {
    return minIndex;
  }

  public long maxIndex() {
    return minIndex + probabilities.length - 1;
  }

  public int size() {
    return probabilities.length;
  }

  public double probability(int i) {
    return probabilities[i];
  }

  public double loss(int i) {
    return (minIndex + i) * interval;
  }

  public double infinityMass() {
    return infinityMass;
  }

  public double pessimisticMass() {
    return pessimisticMass;
  }

  /** Σ p_k, the finite part's mass (1 − infinity mass, up to rounding). */
  public double finiteMass() {
    double s = 0;
    for (double p : probabilities) {
      s += p;
    }
    return s;
  }

  /** Σ p_k y_k, the mean of the finite part (not normalised). */
  public double mean() {
    double s = 0;
    for (int i = 0; i < probabilities.length; i++) {
      s += probabilities[i] * loss(i);
    }
    return s;
  }

  /** log Σ p_k e^{λ y_k}, the log moment generating function of the finite part, for Chernoff bounds. */
  public double logMgf(double lambda) {
    double hi = Double.NEGATIVE_INFINITY;
    double step = lambda * interval;
    double base = lambda * minIndex * interval;
    for (int i = 0; i < logProbabilities.length; i++) {
      hi = Math.max(hi, logProbabilities[i] + base + step * i);
    }
    if (hi == Double.NEGATIVE_INFINITY) {
      return hi;
    }
    double s = 0;
    for (int i = 0; i < logProbabilities.length; i++) {
      double x = logProbabilities[i] + base + step * i - hi;
      if (x > -745) {
        s += Math.exp(x);
      }
    }
    return hi + Math.log(s);
  }
}
