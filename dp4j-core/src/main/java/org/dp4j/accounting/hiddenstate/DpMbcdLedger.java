package org.dp4j.accounting.hiddenstate;

import static com.google.common.base.Preconditions.checkNotNull;
import static org.dp4j.InvalidSettingException.checkArgument;

import java.util.Arrays;
import org.dp4j.accounting.Orders;
import org.dp4j.accounting.RdpCurve;

/**
 * The hidden-state RDP ledger of one released DP-MBCD block, advanced one block update at a time
 * (Chen &amp; Liu, Thm 4.6 / Cor. 4.5 / Lemma C.3, as the corrected step recursion of docs/errata.md#dp-mbcd-step-recursion).
 *
 * <p>State: the inverse LSI constant 1/c_t of the iterate entering step t (0 for the point-mass start,
 * c_0 = ∞), and for every batch position j0 of the differing example the α-free bound G[j0] on R_α/α.
 * Step t = kN + j with temperature o = o(k, j) contracts every G[j0 ≠ j] by
 * λ_t = (1 + 2η·o·c_t/L_F²)^(−e) (e = 1 SAFE, 1/L_T² PAPER), adds Δ_t = η·S_g²/(4b²·o) to G[j], and sets
 * 1/c_{t+1} = (L_F·L_T)²/c_t + 2η·L_T²·o. The RDP is ε(α) = (1/(α−1))·log((1/N)·Σ_{j0} e^{(α−1)·α·G[j0]})
 * (Eq. 39, uniform secret position j0).
 *
 * <p>Cost: O(1) per step and O(N) per epoch. The contractions of an epoch are buffered and applied at the
 * end of the epoch with prefix and suffix products (the naive update of all N positions per step would be
 * O(N²) per epoch); reading the state mid-epoch costs O(N).
 *
 * <pre>{@code
 * // given: DpMbcdConfig config
 * DpMbcdLedger ledger = new DpMbcdLedger(config, config.blocks().get(0));
 * ledger.advanceEpochs(2);
 * double rdp = ledger.rdp(2.0);          // 1.6750161037 for the docs/accountants.md#dp-mbcd vector
 * }</pre>
 *
 * <p>Not thread-safe.
 */
public final class DpMbcdLedger {
  private final DpMbcdBlock block;
  private final double stepSize;
  private final int batchSize;
  private final int batches;
  private final NoiseTemperatureSchedule schedule;
  private final double exponent;

  /** G at the start of the current epoch. */
  private final double[] epochStartBound;
  /** λ and Δ of the steps taken so far in the current epoch. */
  private final double[] lambda;
  private final double[] delta;
  /** 1/c at the start of epoch k, for k = 0..epoch (to recompute past epochs without storing them). */
  private double[] inverseLsiAtEpochStart = new double[16];
  private double inverseLsi;
  private int epoch;
  private int position;

  public DpMbcdLedger(DpMbcdConfig config, DpMbcdBlock block) {
    checkNotNull(config, "config");
    this.block = checkNotNull(block, "block");
    this.stepSize = config.stepSize();
    this.batchSize = config.batchSize();
    this.batches = config.batchesPerEpoch();
    this.schedule = config.noiseTemperature();
    this.exponent = config.mode().contractionExponent(block.lipschitzT());
    this.epochStartBound = new double[batches];
    this.lambda = new double[batches];
    this.delta = new double[batches];
  }

  /** An independent copy in the same state, for looking ahead without changing this ledger. O(N + K). */
  DpMbcdLedger copy() {
    return new DpMbcdLedger(this);
  }

  private DpMbcdLedger(DpMbcdLedger other) {
    this.block = other.block;
    this.stepSize = other.stepSize;
    this.batchSize = other.batchSize;
    this.batches = other.batches;
    this.schedule = other.schedule;
    this.exponent = other.exponent;
    this.epochStartBound = other.epochStartBound.clone();
    this.lambda = other.lambda.clone();
    this.delta = other.delta.clone();
    this.inverseLsiAtEpochStart = Arrays.copyOf(other.inverseLsiAtEpochStart, other.epoch + 1);
    this.inverseLsi = other.inverseLsi;
    this.epoch = other.epoch;
    this.position = other.position;
  }

  public DpMbcdBlock block() {
    return block;
  }

  /** Completed epochs. */
  public int epoch() {
    return epoch;
  }

  /** Batch position j of the next step within the current epoch. */
  public int position() {
    return position;
  }

  /** Steps taken so far. */
  public long steps() {
    return (long) epoch * batches + position;
  }

  /** Accounts for the next block update: batch j = {@link #position()} of epoch k = {@link #epoch()}. */
  public DpMbcdLedger step() {
    inverseLsi = accountStep(epoch, position, inverseLsi, lambda, delta);
    position++;
    if (position == batches) {
      double[] a = new double[batches];
      double[] b = new double[batches];
      epochTransfer(lambda, delta, batches, a, b);
      for (int j0 = 0; j0 < batches; j0++) {
        epochStartBound[j0] = a[j0] * epochStartBound[j0] + b[j0];
      }
      epoch++;
      position = 0;
      if (epoch == inverseLsiAtEpochStart.length) {
        inverseLsiAtEpochStart = Arrays.copyOf(inverseLsiAtEpochStart, 2 * epoch);
      }
      inverseLsiAtEpochStart[epoch] = inverseLsi;
    }
    return this;
  }

  /** Steps to the end of the current epoch, then through {@code epochs − 1} more whole epochs. */
  public DpMbcdLedger advanceEpochs(int epochs) {
    checkArgument(epochs >= 0, "epochs must be >= 0, was %s", epochs);
    int target = epoch + epochs;
    while (epoch < target) {
      step();
    }
    return this;
  }

  /**
   * One step of Cor. 4.5 / Lemma C.3: writes λ_t and Δ_t at index j and returns 1/c_{t+1}. λ uses the LSI
   * constant of the step's input (Chen &amp; Liu 2025; docs/errata.md#dp-mbcd-step-recursion); 1/c = 0 means c = ∞ and λ = 0.
   */
  private double accountStep(int k, int j, double invC, double[] lambdaOut, double[] deltaOut) {
    double o = schedule.temperature(k, j);
    checkArgument(o > 0 && Double.isFinite(o), "noise temperature o(k=%s, j=%s) must be finite and > 0, was %s",
        k, j, o);
    double lf = block.lipschitzF();
    double lt = block.lipschitzT();
    double sg = block.gradientSensitivity();
    lambdaOut[j] = invC == 0 ? 0 : Math.pow(1 + 2 * stepSize * o / (lf * lf * invC), -exponent);
    deltaOut[j] = stepSize * sg * sg / (4.0 * batchSize * batchSize * o);
    return lf * lt * lf * lt * invC + 2 * stepSize * lt * lt * o;
  }

  /**
   * The affine map G[j0] ↦ a[j0]·G[j0] + b[j0] of the first m steps of an epoch: for j0 &lt; m,
   * a = Π_{i&lt;j0} λ_i · Π_{j0&lt;i&lt;m} λ_i and b = Δ_{j0} · Π_{j0&lt;i&lt;m} λ_i; for j0 ≥ m, a = Π_{i&lt;m} λ_i, b = 0.
   * O(N); products that underflow to 0 are harmless (λ ≤ 1).
   */
  private void epochTransfer(double[] lam, double[] del, int m, double[] a, double[] b) {
    double suffix = 1;
    for (int j0 = m - 1; j0 >= 0; j0--) {
      a[j0] = suffix;
      b[j0] = del[j0] * suffix;
      suffix *= lam[j0];
    }
    double prefix = 1;
    for (int j0 = 0; j0 < m; j0++) {
      a[j0] *= prefix;
      prefix *= lam[j0];
    }
    Arrays.fill(a, m, a.length, prefix);
    Arrays.fill(b, m, b.length, 0);
  }

  /** G[j0] (the bound on R_α/α for the differing example at position j0) after the steps taken so far. */
  public double[] bounds() {
    if (position == 0) {
      return epochStartBound.clone();
    }
    double[] a = new double[batches];
    double[] b = new double[batches];
    epochTransfer(lambda, delta, position, a, b);
    double[] g = new double[batches];
    for (int j0 = 0; j0 < batches; j0++) {
      g[j0] = a[j0] * epochStartBound[j0] + b[j0];
    }
    return g;
  }

  /**
   * ε(α) = (1/(α−1))·log((1/N)·Σ_{j0} e^{(α−1)·α·G[j0]}) (Thm 4.6, Eq. 39), accurate for tiny bounds too
   * ({@link LogMeanExp}). +∞ at α = +∞ once any bound is positive.
   */
  public double rdp(double alpha) {
    checkArgument(alpha > 1, "Rényi order must be > 1, was %s", alpha);
    return rdpOf(bounds(), alpha);
  }

  /** ε(α) at every order, from one evaluation of the bounds. */
  public RdpCurve rdp(Orders orders) {
    double[] g = bounds();
    return RdpCurve.tabulate(orders, alpha -> rdpOf(g, alpha));
  }

  private static double rdpOf(double[] g, double alpha) {
    if (alpha == Double.POSITIVE_INFINITY) {
      return Arrays.stream(g).max().orElse(0) > 0 ? Double.POSITIVE_INFINITY : 0;
    }
    double[] x = new double[g.length];
    for (int j0 = 0; j0 < g.length; j0++) {
      x[j0] = (alpha - 1) * alpha * g[j0];
    }
    return LogMeanExp.of(x) / (alpha - 1);
  }

  /** 1/c of the current iterate (0 before the first step: the point-mass start has c = ∞). */
  public double inverseLsiConstant() {
    return inverseLsi;
  }

  /** 1/c after each completed epoch k = 0..epoch()−1 (the LSI constants are their reciprocals, all finite). */
  public double[] inverseLsiConstantsAfterEpochs() {
    return Arrays.copyOfRange(inverseLsiAtEpochStart, 1, epoch + 1);
  }

  /** The LSI constant c after each completed epoch, the reciprocals of {@link #inverseLsiConstantsAfterEpochs}. */
  public double[] lsiConstantsAfterEpochs() {
    return Arrays.stream(inverseLsiConstantsAfterEpochs()).map(inv -> 1 / inv).toArray();
  }

  /**
   * Each epoch's share of the current bound, averaged over j0 (Chen &amp; Liu, Fig. 1b; docs/errata.md#dp-mbcd-step-recursion):
   * entry k is mean_{j0} of Δ(k, j0) times every contraction applied to it since, so the entries sum to
   * mean(G). Multiply by α for the RDP contribution ε_K(α, j0, k) averaged over j0. The current partial
   * epoch, if any, is the last entry. Costs O(steps) time and O(N) memory: past epochs are recomputed
   * from their stored 1/c.
   */
  public double[] epochContributions() {
    int epochs = epoch + (position > 0 ? 1 : 0);
    double[] result = new double[epochs];
    double[] later = new double[batches];
    Arrays.fill(later, 1);
    double[] lam = new double[batches];
    double[] del = new double[batches];
    double[] a = new double[batches];
    double[] b = new double[batches];
    for (int k = epochs - 1; k >= 0; k--) {
      int m = k == epoch ? position : batches;
      double invC = inverseLsiAtEpochStart[k];
      for (int j = 0; j < m; j++) {
        invC = accountStep(k, j, invC, lam, del);
      }
      epochTransfer(lam, del, m, a, b);
      double sum = 0;
      for (int j0 = 0; j0 < batches; j0++) {
        sum += b[j0] * later[j0];
        later[j0] *= a[j0];
      }
      result[k] = sum / batches;
    }
    return result;
  }
}
