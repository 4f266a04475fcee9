package org.dp4j.mbcd;

import static com.google.common.base.Preconditions.checkNotNull;
import static com.google.common.base.Preconditions.checkState;
import static org.dp4j.InvalidSettingException.checkArgument;

import org.dp4j.accounting.hiddenstate.NoiseTemperatureSchedule;
import org.dp4j.noise.AesCtrRandom;
import org.dp4j.noise.GaussianNoise;
import org.dp4j.noise.NoiseSource;
import org.dp4j.prox.ProximalOperator;
import org.dp4j.sampling.ShuffleOncePartition;
import org.dp4j.training.PrivateTrainer;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.indexing.INDArrayIndex;
import org.nd4j.linalg.indexing.NDArrayIndex;

/**
 * DP mini-batch BCD for non-negative matrix factorisation M ≈ X·Y, X, Y ≥ 0, rows of M are users
 * (Chen &amp; Liu Eq. 2, Alg. 3 with the corrections of docs/errata.md#dp-mbcd-nmf, #dp-mbcd-sensitivity). Per batch B
 * of a shuffle-once partition of the rows:
 * <ol>
 *   <li>each row i ∈ B: X_i ← max(0, X_i − s_X·clip_C((X_iY − M_i)Yᵀ) + N(0, 2η_X·o)) (per-user clip);</li>
 *   <li>Y ← max(0, Y − s_Y·(1/b)Σ_{i∈B} clip_C(X_iᵀ(X_iY − M_i)) + N(0, 2η·o)) with the new X_B
 *       (every batch, per-user clip; the paper's typeset once-per-epoch Y update and whole-batch clip
 *       are the errata P22, P6).</li>
 * </ol>
 * Steps s_X, s_Y are η_X, η ({@link NmfStepRule#FIXED}) or η_X·min(1, κ/‖YYᵀ‖₂), η·min(1, κ/‖X_BᵀX_B/b‖₂)
 * ({@link NmfStepRule#CURVATURE_SCALED}, the paper's form). η_X ({@link Builder#userLearningRate}) is η unless set:
 * the two blocks' curvatures differ by orders of magnitude (a user row's YYᵀ sums over all items, Y's X_BᵀX_B/b is
 * a batch mean: ≈ 520 vs 2.6 for 200 items, rank 10, uniform factors), so a single fixed η is either unstable for X
 * or very slow for Y (docs/errata.md#dp-mbcd-nmf). Both X and Y are released.
 *
 * <pre>{@code
 * // given: INDArray m
 * DpNmf nmf = DpNmf.builder(m, 10).batchSize(100).epochs(300).learningRate(1.0)
 *     .stepRule(NmfStepRule.CURVATURE_SCALED, 1.0).clipNorm(10.0)
 *     .noiseSchedule(NoiseTemperatureSchedule.constant(1e-6)).build();
 * nmf.train();
 * double err = nmf.relativeError();   // ‖XY − M‖_F / ‖M‖_F
 * }</pre>
 */
public final class DpNmf implements PrivateTrainer<DpNmf.Result> {
  private static final ProximalOperator NON_NEGATIVE = ProximalOperator.box(0, Double.POSITIVE_INFINITY);

  private final INDArray m;
  private final INDArray x;
  private final INDArray y;
  private final int[] rowOrder;
  private final int batchSize;
  private final int numBatches;
  private final int epochs;
  private final double eta;
  private final double etaUser;
  private final double clipNorm;
  private final NmfStepRule stepRule;
  private final double kappa;
  private final NoiseTemperatureSchedule schedule;
  private final NoiseSource noise;
  private final DpNmfMechanism mechanism;
  private int epoch;

  private DpNmf(Builder b, ShuffleOncePartition partition) {
    // rows permuted once: the batches in order, then the dropped rows, so a batch is a contiguous view
    this.rowOrder = usedThenDropped(partition, (int) b.m.rows());
    this.m = b.m.getRows(rowOrder);
    this.batchSize = partition.plan().fixedBatchSize();
    this.numBatches = partition.plan().stepsPerEpoch();
    this.epochs = b.epochs;
    this.eta = b.learningRate;
    this.etaUser = Double.isNaN(b.userLearningRate) ? b.learningRate : b.userLearningRate;
    this.clipNorm = b.clipNorm;
    this.stepRule = b.stepRule;
    this.kappa = b.kappa;
    this.schedule = b.schedule;
    this.noise = b.noise;
    // data-independent initialisation U[0, initScale) from its own seed (docs/threat-models.md#data-independent-choices)
    java.util.Random rng = new java.util.Random(b.initSeed);
    INDArray x0 = b.initialX != null ? b.initialX
        : uniform(rng, m.rows(), b.rank, b.initScale);
    this.x = x0.castTo(m.dataType()).getRows(rowOrder);
    this.y = (b.initialY != null ? b.initialY.dup() : uniform(rng, b.rank, m.columns(), b.initScale))
        .castTo(m.dataType());
    this.mechanism = schedule == null ? null : new DpNmfMechanism(eta, etaUser, partition, epochs, clipNorm,
        schedule, stepRule, stepRule == NmfStepRule.FIXED ? 0.0 : kappa,
        noise.isSecure());
  }

  /** A factorisation of m [users, items] with the given rank d. */
  public static Builder builder(INDArray m, int rank) {
    return new Builder(m, rank);
  }

  /**
   * What a DP-NMF run releases: the factors and how many epochs produced them. The relative error is measured on
   * the private matrix and is not itself a private release.
   *
   * @param userFactors X [users, d], in the original row order
   * @param itemFactors Y [d, items]
   * @param relativeError ‖XY − M‖_F / ‖M‖_F
   * @param epochsCompleted full epochs run
   */
  public record Result(INDArray userFactors, INDArray itemFactors, double relativeError, int epochsCompleted) {}

  /** The same as {@link #train()}, without the result. */
  @Deprecated
  public void fit() {
    train();
  }

  /** The same as {@link #trainEpoch()}. */
  @Deprecated
  public void fitEpoch() {
    trainEpoch();
  }

  /**
   * One epoch: every batch of the fixed partition once, in order. DP-NMF has no budget stop of its own (its
   * composition bound is computed for the planned epochs before training), so an epoch always runs to its end.
   */
  @Override
  public boolean trainEpoch() {
    checkState(epoch < epochs, "all %s planned epochs are done", epochs);
    for (int j = 0; j < numBatches; j++) {
      step(j);
    }
    epoch++;
    return true;
  }

  @Override
  public boolean isFinished() {
    return epoch >= epochs;
  }

  @Override
  public int epochsCompleted() {
    return epoch;
  }

  /** The factors so far (copies) and their relative error. */
  @Override
  public Result result() {
    return new Result(userFactors(), itemFactors(), relativeError(), epoch);
  }

  /** ‖XY − M‖_F / ‖M‖_F, the metric of Xu &amp; Yin 2013 and Chen &amp; Liu Table 2 (on private data). */
  public double relativeError() {
    return x.mmul(y).subi(m).norm2Number().doubleValue() / m.norm2Number().doubleValue();
  }

  /** The released user factors X [users, d] in the original row order (a copy). */
  public INDArray userFactors() {
    INDArray out = x.like();
    for (int r = 0; r < rowOrder.length; r++) {
      out.putRow(rowOrder[r], x.getRow(r));
    }
    return out;
  }

  /** The released item factors Y [d, items] (a copy). */
  public INDArray itemFactors() {
    return y.dup();
  }

  /** The mechanism for an accountant; refused for a non-private run. */
  public DpNmfMechanism mechanism() {
    checkState(mechanism != null, "this is a non-private run: there is no mechanism to account");
    return mechanism;
  }

  private void step(int j) {
    INDArrayIndex[] batch = {NDArrayIndex.interval((long) j * batchSize, (long) (j + 1) * batchSize),
        NDArrayIndex.all()};
    INDArray mb = m.get(batch);
    INDArray xb = x.get(batch);
    double o = schedule == null ? 0.0 : schedule.temperature(epoch, j);
    // X rows: each user's own gradient g_i = (X_iY − M_i)Yᵀ, clipped to C; Hessian YYᵀ
    INDArray gx = xb.mmul(y).subi(mb).mmul(y.transpose());
    RowNormClip.clipInPlace(gx, clipNorm);
    double stepX = stepSize(y.mmul(y.transpose()), etaUser);
    INDArray newXb = noisyProjectedStep(xb, gx, stepX, etaUser, o);
    xb.assign(newXb);
    // Y: batch mean of per-user gradients X_iᵀ(X_iY − M_i), each clipped to C; Hessian X_BᵀX_B/b
    INDArray residual = newXb.mmul(y).subi(mb);
    INDArray gy = ClippedBlockGradient.fromResiduals(newXb, residual, false, clipNorm)
        .weightGradient();
    double stepY = stepSize(newXb.transpose().mmul(newXb).divi(batchSize), eta);
    y.assign(noisyProjectedStep(y, gy, stepY, eta, o));
  }

  private double stepSize(INDArray hessian, double blockEta) {
    if (stepRule == NmfStepRule.FIXED) {
      return blockEta;
    }
    double h = SymmetricEigen.of(hessian).largest();
    return h <= kappa ? blockEta : blockEta * kappa / h;
  }

  /** max(0, θ − step·g + N(0, 2η_block·o)): the noise keeps the block's η even when the step is curvature-scaled. */
  private INDArray noisyProjectedStep(INDArray theta, INDArray gradient, double step, double blockEta, double o) {
    INDArray next = theta.sub(gradient.mul(step));
    if (o > 0) {
      noise.addGaussian(next, Math.sqrt(2 * blockEta * o));
    }
    return NON_NEGATIVE.apply(next, blockEta);
  }

  private static INDArray uniform(java.util.Random rng, long rows, long cols, double scale) {
    double[] v = new double[Math.toIntExact(rows * cols)];
    for (int i = 0; i < v.length; i++) {
      v[i] = scale * rng.nextDouble();
    }
    return Nd4j.createFromArray(v).reshape(rows, cols);
  }

  private static int[] usedThenDropped(ShuffleOncePartition partition, int n) {
    int[] used = partition.batchOrder();
    int[] dropped = partition.droppedIndices();
    int[] all = java.util.Arrays.copyOf(used, n);
    System.arraycopy(dropped, 0, all, used.length, dropped.length);
    return all;
  }

  /** Builder; {@link #nonPrivate()} gives the reference mini-batch BCD without clipping or noise. */
  public static final class Builder {
    private final INDArray m;
    private final int rank;
    private int batchSize;
    private int epochs;
    private double learningRate = Double.NaN;
    private double userLearningRate = Double.NaN;
    private double clipNorm = Double.NaN;
    private NmfStepRule stepRule = NmfStepRule.FIXED;
    private double kappa = Double.NaN;
    private NoiseTemperatureSchedule schedule;
    private NoiseSource noise;
    private boolean nonPrivate;
    private Long partitionSeed;
    private long initSeed = 12345;
    private double initScale = 1.0;
    private INDArray initialX;
    private INDArray initialY;

    private Builder(INDArray m, int rank) {
      this.m = checkNotNull(m, "m");
      checkArgument(m.rank() == 2, "m must be a matrix, had shape %s",
          java.util.Arrays.toString(m.shape()));
      checkArgument(rank >= 1 && rank <= Math.min(m.rows(), m.columns()),
          "rank must be in [1, min(rows, columns) = %s], was %s", Math.min(m.rows(), m.columns()),
          rank);
      this.rank = rank;
    }

    public Builder batchSize(int b) {
      this.batchSize = b;
      return this;
    }

    public Builder epochs(int k) {
      this.epochs = k;
      return this;
    }

    public Builder learningRate(double eta) {
      this.learningRate = eta;
      return this;
    }

    /**
     * η_X, the step (FIXED) or step cap (CURVATURE_SCALED) of the user rows X_i, with noise N(0, 2η_X·o); default: the
     * learning rate η, which then also steps Y. The accountant of Y uses η only: X_i stays with its user (HFL).
     * Like η, choose it without looking at the private data, e.g. η_X ≤ 2/‖YYᵀ‖₂ from a public bound on the items
     * (docs/errata.md#dp-mbcd-nmf).
     *
     * <pre>{@code
     * // given: INDArray m
     * // 1000 users x 200 items of rank 10 (dp4j nmf): relative error 0.045 at a certified epsilon of 24
     * DpNmf nmf = DpNmf.builder(m, 10).batchSize(100).epochs(300).learningRate(0.1).userLearningRate(0.003)
     *     .stepRule(NmfStepRule.FIXED, Double.NaN).clipNorm(1.5)
     *     .noiseSchedule(NoiseTemperatureSchedule.constant(5e-4)).build();
     * }</pre>
     */
    public Builder userLearningRate(double etaX) {
      this.userLearningRate = etaX;
      return this;
    }

    /** C, the per-user clip norm of the X-row and Y gradient contributions. */
    public Builder clipNorm(double c) {
      this.clipNorm = c;
      return this;
    }

    /** The step rule; κ is used by {@link NmfStepRule#CURVATURE_SCALED} only. */
    public Builder stepRule(NmfStepRule rule, double kappa) {
      this.stepRule = checkNotNull(rule, "rule");
      this.kappa = kappa;
      return this;
    }

    public Builder noiseSchedule(NoiseTemperatureSchedule schedule) {
      this.schedule = schedule;
      return this;
    }

    public Builder noise(NoiseSource noise) {
      this.noise = noise;
      return this;
    }

    /** No clipping and no noise: Algorithm 2 with projected gradient block steps. Not private. */
    public Builder nonPrivate() {
      this.nonPrivate = true;
      return this;
    }

    /** A fixed partition seed, for tests only (default: the partition is shuffled by SecureRandom). */
    public Builder partitionSeed(long seed) {
      this.partitionSeed = seed;
      return this;
    }

    /** Seed and scale of the data-independent U[0, scale) initialisation of X and Y. */
    public Builder initialisation(long seed, double scale) {
      checkArgument(scale > 0 && Double.isFinite(scale), "init scale must be finite and > 0, was %s",
          scale);
      this.initSeed = seed;
      this.initScale = scale;
      return this;
    }

    /**
     * Explicit non-negative initial factors X [rows, d], Y [d, columns]; they must not depend on the
     * private data (docs/threat-models.md#data-independent-choices).
     */
    public Builder initialFactors(INDArray x0, INDArray y0) {
      checkArgument(x0.rows() == m.rows() && x0.columns() == rank && y0.rows() == rank
              && y0.columns() == m.columns(), "initial factors must be [%s, %s] and [%s, %s], were %s and %s",
          m.rows(), rank, rank, m.columns(), java.util.Arrays.toString(x0.shape()),
          java.util.Arrays.toString(y0.shape()));
      checkArgument(x0.minNumber().doubleValue() >= 0 && y0.minNumber().doubleValue() >= 0,
          "initial factors must be non-negative");
      this.initialX = x0;
      this.initialY = y0;
      return this;
    }

    public DpNmf build() {
      checkArgument(epochs >= 1, "epochs must be >= 1, was %s", epochs);
      checkArgument(learningRate > 0 && Double.isFinite(learningRate),
          "learning rate eta must be finite and > 0, was %s", learningRate);
      checkArgument(Double.isNaN(userLearningRate) || (userLearningRate > 0 && Double.isFinite(userLearningRate)),
          "user learning rate eta_X must be finite and > 0, was %s", userLearningRate);
      checkArgument(stepRule == NmfStepRule.FIXED || (kappa > 0 && Double.isFinite(kappa)),
          "kappa must be finite and > 0 for CURVATURE_SCALED, was %s", kappa);
      if (nonPrivate) {
        checkArgument(schedule == null, "a non-private run takes no noise schedule");
        clipNorm = Double.POSITIVE_INFINITY;
      } else {
        checkArgument(clipNorm > 0 && Double.isFinite(clipNorm),
            "clip norm C must be finite and > 0, was %s", clipNorm);
        checkNotNull(schedule, "a noise schedule is required (or call nonPrivate())");
        if (noise == null) {
          noise = GaussianNoise.secure();
        }
      }
      checkArgument(m.size(0) <= Integer.MAX_VALUE, "too many rows: %s", m.size(0));
      checkArgument(batchSize >= 1 && batchSize <= m.rows(),
          "batch size must be in [1, rows = %s], was %s", m.rows(), batchSize);
      AesCtrRandom shuffler = partitionSeed != null ? AesCtrRandom.insecureFixedSeed(partitionSeed)
          : AesCtrRandom.secure();
      ShuffleOncePartition partition = new ShuffleOncePartition((int) m.rows(), batchSize, shuffler);
      if (!nonPrivate) {
        for (int k = 0; k < epochs; k++) {
          for (int j = 0; j < partition.plan().stepsPerEpoch(); j++) {
            double o = schedule.temperature(k, j);
            checkArgument(o > 0 && Double.isFinite(o), "o(%s, %s) must be finite and > 0, was %s", k, j, o);
          }
        }
      }
      return new DpNmf(this, partition);
    }
  }
}
