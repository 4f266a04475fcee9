package org.dp4j.accounting;

import static org.dp4j.InvalidSettingException.checkArgument;

/**
 * Calibration of DP-SGD (sampled Gaussian, composition accounting) to a target (ε, δ): the smallest
 * noise multiplier, or the largest number of steps. Bisection that always errs on the private side:
 * the returned setting's ε never exceeds the target.
 *
 * <pre>{@code
 * SgmCalibration.Calibration c = SgmCalibration.noiseMultiplier(3.0, 1e-5, 256.0 / 60000, 14063,
 *     Orders.DEFAULT, RdpConversion.IMPROVED);
 * double z = c.noiseMultiplier();          // ≈ 0.98; c.achieved().epsilon() ≤ 3.0
 * }</pre>
 */
public final class SgmCalibration {
  /** Relative width of the final noise bracket. */
  public static final double NOISE_RELATIVE_TOLERANCE = 1e-6;
  private static final double MIN_NOISE = 1e-3;
  private static final double MAX_NOISE = 1e6;

  private SgmCalibration() {}

  /**
   * A calibrated setting and the guarantee it achieves.
   *
   * @param noiseMultiplier z
   * @param samplingRate q
   * @param steps T
   * @param achieved the (ε, δ) of (q, z, T), ε ≤ the target
   */
  public record Calibration(double noiseMultiplier, double samplingRate, long steps, EpsilonDelta achieved) {}

  /**
   * The smallest noise multiplier z (to relative tolerance {@value #NOISE_RELATIVE_TOLERANCE}, rounded
   * up) such that T steps of the SGM with rate q are (target ε, δ)-DP.
   *
   * @throws IllegalArgumentException if even z = 10⁶ cannot reach the target
   */
  public static Calibration noiseMultiplier(double targetEpsilon, double delta, double q, long steps,
      Orders orders, RdpConversion conversion) {
    checkTarget(targetEpsilon, delta);
    checkArgument(q > 0 && q <= 1, "sampling rate q must be in (0, 1], was %s", q);
    checkArgument(steps > 0, "steps must be > 0, was %s", steps);
    double hi = 1;
    while (epsilon(q, hi, steps, delta, orders, conversion) > targetEpsilon) {
      hi *= 2;
      checkArgument(hi <= MAX_NOISE, "target epsilon %s at delta %s is unreachable with noise multiplier <= %s",
          targetEpsilon, delta, MAX_NOISE);
    }
    double lo = hi / 2;
    while (lo > MIN_NOISE && epsilon(q, lo, steps, delta, orders, conversion) <= targetEpsilon) {
      hi = lo;
      lo /= 2;
    }
    while ((hi - lo) > NOISE_RELATIVE_TOLERANCE * hi) {
      double mid = 0.5 * (lo + hi);
      if (epsilon(q, mid, steps, delta, orders, conversion) <= targetEpsilon) {
        hi = mid;
      } else {
        lo = mid;
      }
    }
    return new Calibration(hi, q, steps, achieved(q, hi, steps, delta, orders, conversion));
  }

  /**
   * The largest number of steps T ≥ 0 such that T steps of the SGM with rate q and multiplier z are
   * (target ε, δ)-DP. ε is non-decreasing in T, so this is an exact integer search.
   *
   * @throws IllegalArgumentException if more than 2⁶² steps fit (the mechanism barely spends privacy)
   */
  public static Calibration maxSteps(double targetEpsilon, double delta, double q, double noiseMultiplier,
      Orders orders, RdpConversion conversion) {
    checkTarget(targetEpsilon, delta);
    SampledGaussianMechanism mechanism = new SampledGaussianMechanism(q, noiseMultiplier);
    RdpCurve perStep = mechanism.rdpPerStep(orders);
    if (conversion.epsilon(perStep, delta).epsilon() > targetEpsilon) {
      return new Calibration(noiseMultiplier, q, 0, conversion.epsilon(RdpCurve.zero(orders), delta));
    }
    long lo = 1; // fits
    long hi = 2;
    while (conversion.epsilon(perStep.times(hi), delta).epsilon() <= targetEpsilon) {
      lo = hi;
      checkArgument(hi < (1L << 62), "more than 2^62 steps fit in epsilon %s: is the noise %s meant?",
          targetEpsilon, noiseMultiplier);
      hi *= 2;
    }
    while (hi - lo > 1) {
      long mid = lo + (hi - lo) / 2;
      if (conversion.epsilon(perStep.times(mid), delta).epsilon() <= targetEpsilon) {
        lo = mid;
      } else {
        hi = mid;
      }
    }
    return new Calibration(noiseMultiplier, q, lo, conversion.epsilon(perStep.times(lo), delta));
  }

  private static void checkTarget(double targetEpsilon, double delta) {
    checkArgument(targetEpsilon > 0 && Double.isFinite(targetEpsilon),
        "target epsilon must be finite and > 0, was %s", targetEpsilon);
    checkArgument(delta > 0 && delta < 1, "delta must be in (0, 1), was %s", delta);
  }

  private static double epsilon(double q, double z, long steps, double delta, Orders orders,
      RdpConversion conversion) {
    return achieved(q, z, steps, delta, orders, conversion).epsilon();
  }

  private static EpsilonDelta achieved(double q, double z, long steps, double delta, Orders orders,
      RdpConversion conversion) {
    return conversion.epsilon(SampledGaussianRdp.curve(q, z, orders).times(steps), delta);
  }
}
