package org.dp4j.accounting.pld;

import static com.google.common.base.Preconditions.checkNotNull;
import static org.dp4j.InvalidSettingException.checkArgument;

import org.dp4j.accounting.Orders;
import org.dp4j.accounting.RdpConversion;
import org.dp4j.accounting.SgmCalibration;
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
   * The smallest z (bracket of relative width {@value #NOISE_RELATIVE_TOLERANCE}, rounded up) with
   * certified ε ≤ target for T steps at rate q. The bracket starts at the RDP calibration's z and is
   * closed by regula falsi (Illinois); only a z whose certified ε was checked is returned.
   *
   * @throws IllegalArgumentException if z = 10⁴ does not reach the target
   */
  public static Result noiseMultiplier(PldAccountant accountant, double targetEpsilon, double delta, double q,
      long steps) {
    checkNotNull(accountant, "accountant");
    checkTarget(targetEpsilon, delta);
    checkArgument(q > 0 && q <= 1, "sampling rate q must be in (0, 1], was %s", q);
    checkArgument(steps > 0, "steps must be > 0, was %s", steps);
    // Seed the bracket with the RDP noise (the PLD usually needs 0–10% less), then close it by regula falsi
    // (Illinois variant) with steps kept at least half a tolerance inside the bracket.
    double hi = rdpNoise(targetEpsilon, delta, q, steps);
    PldGuarantee atHi = guarantee(accountant, q, hi, steps, delta);
    while (atHi.epsilon() > targetEpsilon) {
      hi *= 1.25;
      checkArgument(hi <= MAX_NOISE, "target epsilon %s at delta %s is unreachable with noise multiplier <= %s",
          targetEpsilon, delta, MAX_NOISE);
      atHi = guarantee(accountant, q, hi, steps, delta);
    }
    double lo = hi * 0.95;
    PldGuarantee atLo = guarantee(accountant, q, lo, steps, delta);
    while (atLo.epsilon() <= targetEpsilon && lo >= MIN_NOISE) {
      hi = lo;
      atHi = atLo;
      lo *= 0.9;
      atLo = guarantee(accountant, q, lo, steps, delta);
    }
    double fLo = atLo.epsilon() - targetEpsilon;   // > 0 (or +∞)
    double fHi = atHi.epsilon() - targetEpsilon;   // ≤ 0
    int staleLow = 0;
    int staleHigh = 0;
    while (hi - lo > NOISE_RELATIVE_TOLERANCE * hi) {
      double margin = NOISE_RELATIVE_TOLERANCE * hi / 2;
      // Illinois rule: an end kept twice in a row has its value halved, so it moves next time
      double fl = staleLow >= 2 ? fLo / 2 : fLo;
      double fh = staleHigh >= 2 ? fHi / 2 : fHi;
      double z = Double.isFinite(fl) && fh - fl < 0 ? hi - fh * (hi - lo) / (fh - fl) : 0.5 * (lo + hi);
      z = Math.max(lo + margin, Math.min(hi - margin, z));
      PldGuarantee at = guarantee(accountant, q, z, steps, delta);
      if (at.epsilon() <= targetEpsilon) {
        hi = z;
        atHi = at;
        fHi = at.epsilon() - targetEpsilon;
        staleLow++;
        staleHigh = 0;
      } else {
        lo = z;
        fLo = at.epsilon() - targetEpsilon;
        staleHigh++;
        staleLow = 0;
      }
    }
    return new Result(hi, q, steps, atHi);
  }

  /**
   * The largest T found by bisection whose certified ε at rate q and multiplier z is ≤ target (0 if
   * not even one step fits), starting from the RDP calibration's count. The certified bound is not
   * exactly monotone in T (the grid depends on T), so T is the largest verified count on the search
   * path; it is always valid.
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
    // Start from the RDP answer (the PLD usually allows more steps) and grow by 25% until the target breaks.
    long lo = 1;
    PldGuarantee atLo = one;
    long seed = rdpSteps(targetEpsilon, delta, q, noiseMultiplier);
    long hi = 0;  // 0: no failing count known yet
    if (seed > 1) {
      PldGuarantee g = guarantee(accountant, q, noiseMultiplier, seed, delta);
      if (g.epsilon() <= targetEpsilon) {
        lo = seed;
        atLo = g;
      } else {
        hi = seed;
      }
    }
    long divisor = lo > 1 ? 4 : 1;   // grow by 25% from a seed, by doubling from scratch
    while (hi == 0) {
      long next = lo + Math.max(1, lo / divisor);
      PldGuarantee g = guarantee(accountant, q, noiseMultiplier, next, delta);
      if (g.epsilon() > targetEpsilon) {
        hi = next;
      } else {
        lo = next;
        atLo = g;
        checkArgument(lo < (1L << 30), "more than 2^30 steps fit in epsilon %s: is the noise %s meant?",
            targetEpsilon, noiseMultiplier);
      }
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

  /** The RDP calibration's noise, an upper starting point (1 if RDP cannot reach the target). */
  private static double rdpNoise(double targetEpsilon, double delta, double q, long steps) {
    try {
      return SgmCalibration.noiseMultiplier(targetEpsilon, delta, q, steps, Orders.DEFAULT, RdpConversion.IMPROVED)
          .noiseMultiplier();
    } catch (IllegalArgumentException unreachable) {
      return 1;
    }
  }

  /** The RDP calibration's step count, a lower starting point (0 if it throws). */
  private static long rdpSteps(double targetEpsilon, double delta, double q, double noiseMultiplier) {
    try {
      return SgmCalibration.maxSteps(targetEpsilon, delta, q, noiseMultiplier, Orders.DEFAULT, RdpConversion.IMPROVED)
          .steps();
    } catch (IllegalArgumentException tooMany) {
      return 0;
    }
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
