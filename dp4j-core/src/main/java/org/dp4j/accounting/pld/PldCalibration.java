package org.dp4j.accounting.pld;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkNotNull;

import org.dp4j.accounting.event.DpEvent;

/**
 * Calibration of DP-SGD (Poisson-sampled Gaussian) to a target (ε, δ) with the PLD accountant: the
 * smallest noise multiplier, or the most steps. The test is always the certified upper bound
 * {@link PldGuarantee#epsilon()}, so the returned setting never exceeds the target.
 *
 * <pre>{@code
 * PldCalibration.Result r = PldCalibration.noiseMultiplier(PldAccountant.withDefaults(), 3.0, 1e-5,
 *     256.0 / 60000, 14063);
 * double z = r.noiseMultiplier();     // r.achieved().epsilon() ≤ 3
 * }</pre>
 */
public final class PldCalibration {
  /** Relative width of the final noise bracket. */
  public static final double NOISE_RELATIVE_TOLERANCE = 1e-4;
  private static final double MAX_NOISE = 1e4;
  private static final double MIN_NOISE = 0.05;

  private PldCalibration() {}

  /**
   * A calibrated setting and the certified guarantee it achieves.
   *
   * @param noiseMultiplier z
   * @param samplingRate q
   * @param steps T
   * @param achieved the PLD guarantee of (q, z, T); its epsilon is ≤ the target
   */
  public record Result(double noiseMultiplier, double samplingRate, long steps, PldGuarantee achieved) {}

  /**
   * The smallest z (bisection to relative width {@value #NOISE_RELATIVE_TOLERANCE}, rounded up) with
   * certified ε ≤ target for T steps at rate q.
   *
   * @throws IllegalArgumentException if z = 10⁴ does not reach the target
   */
  public static Result noiseMultiplier(PldAccountant accountant, double targetEpsilon, double delta, double q,
      long steps) {
    checkNotNull(accountant, "accountant");
    checkTarget(targetEpsilon, delta);
    checkArgument(q > 0 && q <= 1, "sampling rate q must be in (0, 1], was %s", q);
    checkArgument(steps > 0, "steps must be > 0, was %s", steps);
    double hi = 1;
    PldGuarantee atHi = guarantee(accountant, q, hi, steps, delta);
    while (atHi.epsilon() > targetEpsilon) {
      hi *= 2;
      checkArgument(hi <= MAX_NOISE, "target epsilon %s at delta %s is unreachable with noise multiplier <= %s",
          targetEpsilon, delta, MAX_NOISE);
      atHi = guarantee(accountant, q, hi, steps, delta);
    }
    double lo = hi / 2;
    while (lo >= MIN_NOISE) {
      PldGuarantee atLo = guarantee(accountant, q, lo, steps, delta);
      if (atLo.epsilon() > targetEpsilon) {
        break;
      }
      hi = lo;
      atHi = atLo;
      lo /= 2;
    }
    while (hi - lo > NOISE_RELATIVE_TOLERANCE * hi) {
      double mid = 0.5 * (lo + hi);
      PldGuarantee atMid = guarantee(accountant, q, mid, steps, delta);
      if (atMid.epsilon() <= targetEpsilon) {
        hi = mid;
        atHi = atMid;
      } else {
        lo = mid;
      }
    }
    return new Result(hi, q, steps, atHi);
  }

  /**
   * The largest T found by bisection whose certified ε at rate q and multiplier z is ≤ target (0 if
   * not even one step fits). The certified bound is not exactly monotone in T (the grid depends on
   * T), so T is the largest verified count on the bisection path; it is always valid.
   *
   * @throws IllegalArgumentException if more than 2³⁰ steps fit
   */
  public static Result maxSteps(PldAccountant accountant, double targetEpsilon, double delta, double q,
      double noiseMultiplier) {
    checkNotNull(accountant, "accountant");
    checkTarget(targetEpsilon, delta);
    PldGuarantee one = guarantee(accountant, q, noiseMultiplier, 1, delta);
    if (one.epsilon() > targetEpsilon) {
      return new Result(noiseMultiplier, q, 0, one);
    }
    long lo = 1;
    PldGuarantee atLo = one;
    long hi = 2;
    while (true) {
      PldGuarantee g = guarantee(accountant, q, noiseMultiplier, hi, delta);
      if (g.epsilon() > targetEpsilon) {
        break;
      }
      lo = hi;
      atLo = g;
      checkArgument(hi < (1L << 30), "more than 2^30 steps fit in epsilon %s: is the noise %s meant?",
          targetEpsilon, noiseMultiplier);
      hi *= 2;
    }
    while (hi - lo > 1) {
      long mid = lo + (hi - lo) / 2;
      PldGuarantee g = guarantee(accountant, q, noiseMultiplier, mid, delta);
      if (g.epsilon() <= targetEpsilon) {
        lo = mid;
        atLo = g;
      } else {
        hi = mid;
      }
    }
    return new Result(noiseMultiplier, q, lo, atLo);
  }

  private static PldGuarantee guarantee(PldAccountant accountant, double q, double z, long steps, double delta) {
    return accountant.compose(DpEvent.sampledGaussian(q, z).times(steps)).epsilon(delta);
  }

  private static void checkTarget(double targetEpsilon, double delta) {
    checkArgument(targetEpsilon > 0 && Double.isFinite(targetEpsilon),
        "target epsilon must be finite and > 0, was %s", targetEpsilon);
    checkArgument(delta > 0 && delta < 1, "delta must be in (0, 1), was %s", delta);
  }
}
