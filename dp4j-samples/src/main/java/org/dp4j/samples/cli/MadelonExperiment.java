package org.dp4j.samples.cli;

import static com.google.common.base.Preconditions.checkNotNull;
import static org.dp4j.InvalidSettingException.checkArgument;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.function.Consumer;
import java.util.function.IntFunction;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.dp4j.InvalidSettingException;
import org.dp4j.accounting.Orders;
import org.dp4j.accounting.RdpConversion;
import org.dp4j.accounting.hiddenstate.DpMbcdAccountant;
import org.dp4j.accounting.hiddenstate.DpMbcdMode;
import org.dp4j.accounting.hiddenstate.NoiseTemperatureSchedule;
import org.dp4j.data.LabelledVectors;
import org.dp4j.mbcd.BatchReduction;
import org.dp4j.mbcd.BlockStepRule;
import org.dp4j.mbcd.DpMbcdAccounting;
import org.dp4j.mbcd.DpMbcdMechanism;
import org.dp4j.mbcd.DpMbcdTrainer;
import org.dp4j.mbcd.OutputLoss;
import org.dp4j.mbcd.RowNormClip;
import org.dp4j.noise.GaussianNoise;
import org.dp4j.samples.train.Accuracy;
import org.dp4j.samples.zoo.ModelZoo;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.dataset.DataSet;

/**
 * Constant vs linearly decreasing noise for DP-MBCD on a lifted ReLU MLP with MSE on one-hot targets, an
 * analogue of Chen &amp; Liu's Table 4 (App. D.2; docs/accountants.md#dp-mbcd): for each K and each schedule, train
 * {@code repeats} times (fresh initial weights, and with secure randomness a fresh secret partition and fresh
 * noise) and report test accuracy mean ± sample std, and the privacy of releasing the final blocks: RDP at
 * α = 2 summed over the released blocks (the paper's "privacy loss", one accountant per block,
 * Chen &amp; Liu 2025; docs/errata.md#dp-mbcd-block-composition) and ε at δ, both in PAPER mode (the paper's constants) and SAFE mode (certified constants).
 * Privacy depends only on the mechanism, so it is the same for every repetition.
 *
 * <pre>{@code
 * LabelledVectors all = SyntheticClassification.madelonLike().build().generate();
 * List<MadelonExperiment.Row> rows = MadelonExperiment.builder(all.rows(0, 4800), all.rows(4800, 6000))
 *     .epochs(10, 20, 30, 40).build().run(line -> System.err.println(line));
 * }</pre>
 */
final class MadelonExperiment {
  /** A named noise schedule as a function of the planned number of epochs K. */
  record Schedule(String name, String description, IntFunction<NoiseTemperatureSchedule> forEpochs) {
    /** The paper's C schedule: o(k, j) = o. */
    static Schedule constant(double o) {
      return new Schedule("C", "constant o=" + o, k -> NoiseTemperatureSchedule.constant(o));
    }

    /** The paper's D schedule: o(k) = last + decrement·(K − 1 − k), k = 0..K−1 (docs/threat-models.md#data-independent-choices). */
    static Schedule decreasing(double last, double decrement) {
      return new Schedule("D", "o(k)=" + last + "+" + decrement + "*(K-1-k)",
          k -> NoiseTemperatureSchedule.decreasingTo(last, decrement, k));
    }
  }

  /**
   * The privacy of releasing the final blocks after K epochs of a schedule: RDP at α = 2 (summed over blocks) and
   * ε at δ (improved conversion, default orders): the paper's claim (PAPER mode, not certified), SAFE mode, and the
   * composition bound of every block step (all iterates released); null where a bound does not exist for the run
   * (SAFE and composition for the proximal-point rule, the paper's claim when its L_F = |1 − ηρ²| is 0).
   */
  record Privacy(Double rdp2PaperClaim, Double rdp2Safe, Double epsilonPaperClaim, Double epsilonSafe,
      Double epsilonComposition, double delta) {
    /** The best certified ε for "only the last iterate released" (SAFE or composition), or null if none. */
    Double epsilon() {
      if (epsilonSafe == null || epsilonComposition == null) {
        return epsilonSafe == null ? epsilonComposition : epsilonSafe;
      }
      return Math.min(epsilonSafe, epsilonComposition);
    }

    boolean certified() {
      return epsilon() != null;
    }
  }

  /** One table row: K, schedule, per-repetition test accuracies with mean and sample std, and the privacy. */
  record Row(int epochs, Schedule schedule, double[] accuracies, double mean, double std, Privacy privacy) {}

  private final LabelledVectors train;
  private final LabelledVectors test;
  private final int[] hidden;
  private final int[] epochs;
  private final int repeats;
  private final int batchSize;
  private final double learningRate;
  private final double rho;
  private final double clipNorm;
  private final BlockStepRule stepRule;
  private final BatchReduction reduction;
  private final List<Schedule> schedules;
  private final double delta;
  private final long initSeed;
  private final Long insecureSeed;

  private MadelonExperiment(Builder b) {
    this.train = b.train;
    this.test = b.test;
    this.hidden = b.hidden.clone();
    this.epochs = b.epochs.clone();
    this.repeats = b.repeats;
    this.batchSize = b.batchSize;
    this.learningRate = b.learningRate;
    this.rho = b.rho;
    this.clipNorm = b.clipNorm;
    this.stepRule = b.stepRule;
    this.reduction = b.reduction;
    this.schedules = List.of(Schedule.constant(b.constantNoise), Schedule.decreasing(b.finalNoise, b.decrement));
    this.delta = b.delta;
    this.initSeed = b.initSeed;
    this.insecureSeed = b.insecureSeed;
  }

  static Builder builder(LabelledVectors train, LabelledVectors test) {
    return new Builder(train, test);
  }

  List<Schedule> schedules() {
    return schedules;
  }

  /** d-h1-...-classes, as trained. */
  int[] widths() {
    int[] w = new int[hidden.length + 2];
    w[0] = train.dimension();
    System.arraycopy(hidden, 0, w, 1, hidden.length);
    w[w.length - 1] = train.classes();
    return w;
  }

  /** Every (K, schedule) row, K ascending, C before D; {@code progress} gets one line per training run. */
  List<Row> run(Consumer<String> progress) {
    List<Row> rows = new ArrayList<>();
    DataSet testSet = test.toDataSet(DataType.FLOAT);
    RowNormClip.clipInPlace(testSet.getFeatures(), rho);   // as the trainer clips its inputs
    for (int k : epochs) {
      for (Schedule s : schedules) {
        double[] acc = new double[repeats];
        DpMbcdMechanism mechanism = null;
        for (int r = 0; r < repeats; r++) {
          long start = System.nanoTime();
          DpMbcdTrainer t = trainer(k, s, r);
          t.train();
          mechanism = t.mechanism();
          acc[r] = Accuracy.of(t.releasedNetwork(), testSet);
          progress.accept(String.format(Locale.ROOT, "K=%d %s run %d/%d: test accuracy %.4f (%.1f s)", k, s.name(),
              r + 1, repeats, acc[r], (System.nanoTime() - start) / 1e9));
        }
        rows.add(new Row(k, s, acc, mean(acc), sampleStd(acc), privacy(mechanism)));
      }
    }
    return rows;
  }

  /** The privacy of K epochs of {@code s}, from the mechanism the trainer runs (no training needed). */
  Privacy privacy(int k, Schedule s) {
    return privacy(trainer(k, s, 0).mechanism());
  }

  private Privacy privacy(DpMbcdMechanism m) {
    DpMbcdAccounting paper = DpMbcdAccounting.builder().mode(DpMbcdMode.PAPER).delta(delta).build();
    DpMbcdAccountant p = accountantOrNull(paper, m);
    DpMbcdAccountant safe = stepRule == BlockStepRule.GRADIENT
        ? accountantOrNull(paper.withMode(DpMbcdMode.SAFE), m) : null;
    Double composition = paper.composition(m).map(c -> {
      c.advance((long) m.epochs() * m.numBatchesPerEpoch());
      var g = c.guaranteeAfter(0, delta, RdpConversion.IMPROVED);
      return g.isFinite() ? g.epsilon() : null;
    }).orElse(null);
    return new Privacy(rdp2(p), rdp2(safe), epsilon(p), epsilon(safe), composition, delta);
  }

  /** The accountant after all K epochs, or null if the mode has no constants for this run (e.g. paper L_F = 0). */
  private static DpMbcdAccountant accountantOrNull(DpMbcdAccounting accounting, DpMbcdMechanism m) {
    try {
      return accounting.accountant(m).advanceEpochs(m.epochs());
    } catch (InvalidSettingException e) {
      return null;
    }
  }

  private static Double rdp2(DpMbcdAccountant a) {
    return a == null ? null : a.rdp(Orders.of(2)).value(0);
  }

  private Double epsilon(DpMbcdAccountant a) {
    return a == null ? null : a.guarantee(delta, Orders.DEFAULT, RdpConversion.IMPROVED).epsilon();
  }

  /** Repetition r: initial weights from initSeed + r; partition and noise secure unless a seed was set. */
  DpMbcdTrainer trainer(int k, Schedule s, int r) {
    DataSet data = train.toDataSet(DataType.FLOAT);
    MultiLayerNetwork net = ModelZoo.liftedMlp(initSeed + r, OutputLoss.SQUARED, widths());
    DpMbcdMode ledgerMode = stepRule == BlockStepRule.GRADIENT ? DpMbcdMode.SAFE : DpMbcdMode.PAPER;
    DpMbcdTrainer.Builder b = DpMbcdTrainer.builder(net, data.getFeatures(), data.getLabels()).batchSize(batchSize)
        .epochs(k).learningRate(learningRate).clipNorm(clipNorm).activationNormBound(rho).inputNormBound(rho)
        .noiseSchedule(s.forEpochs().apply(k)).blockStepRule(stepRule).batchReduction(reduction)
        .accounting(DpMbcdAccounting.builder().mode(ledgerMode).delta(delta).build());
    if (insecureSeed != null) {
      b.noise(GaussianNoise.insecureFixedSeed(insecureSeed + 1000L * r + k)).partitionSeed(insecureSeed + r);
    }
    return b.build();
  }

  private static double mean(double[] v) {
    return Arrays.stream(v).average().orElseThrow();
  }

  /** Sample standard deviation (n − 1); 0 for a single run. */
  private static double sampleStd(double[] v) {
    if (v.length < 2) {
      return 0.0;
    }
    double m = mean(v);
    return Math.sqrt(Arrays.stream(v).map(x -> (x - m) * (x - m)).sum() / (v.length - 1));
  }

  /** Builder with the paper's App. D.2 settings as defaults (Chen &amp; Liu 2025; docs/accountants.md#dp-mbcd). */
  static final class Builder {
    private final LabelledVectors train;
    private final LabelledVectors test;
    private int[] hidden = {200, 200, 200, 200};
    private int[] epochs = {10, 20, 30, 40};
    private int repeats = 3;
    private int batchSize = 960;
    private double learningRate = 0.05;
    private double rho = 1.0;
    private double clipNorm = 0.5;
    private BlockStepRule stepRule = BlockStepRule.GRADIENT;
    private BatchReduction reduction = BatchReduction.MEAN;
    private double constantNoise = 0.005;
    private double finalNoise = 0.002;
    private double decrement = 0.00025;
    private double delta = 1e-5;
    private long initSeed = 1;
    private Long insecureSeed;

    private Builder(LabelledVectors train, LabelledVectors test) {
      this.train = checkNotNull(train, "train");
      this.test = checkNotNull(test, "test");
    }

    Builder hidden(int... widths) {
      this.hidden = widths.clone();
      return this;
    }

    Builder epochs(int... ks) {
      this.epochs = ks.clone();
      return this;
    }

    Builder repeats(int r) {
      this.repeats = r;
      return this;
    }

    Builder batchSize(int b) {
      this.batchSize = b;
      return this;
    }

    Builder learningRate(double eta) {
      this.learningRate = eta;
      return this;
    }

    /** ρ of every x_d, inputs included (the paper's ρ = 1). */
    Builder rho(double rho) {
      this.rho = rho;
      return this;
    }

    /** C; the default 0.5 makes the safe S_g = 2C equal to the paper's S_g = ρ² = 1. */
    Builder clipNorm(double c) {
      this.clipNorm = c;
      return this;
    }

    /** MEAN (default) or the paper's printed batch sums (docs/errata.md#dp-mbcd-batch-mean). */
    Builder batchReduction(BatchReduction r) {
      this.reduction = checkNotNull(r, "reduction");
      return this;
    }

    Builder stepRule(BlockStepRule rule) {
      this.stepRule = checkNotNull(rule, "rule");
      return this;
    }

    /** o of schedule C. */
    Builder constantNoise(double o) {
      this.constantNoise = o;
      return this;
    }

    /** Schedule D: o in the last epoch and the decrease per epoch. */
    Builder decreasingNoise(double last, double decrementPerEpoch) {
      this.finalNoise = last;
      this.decrement = decrementPerEpoch;
      return this;
    }

    Builder delta(double delta) {
      this.delta = delta;
      return this;
    }

    /** Initial weights of repetition r come from seed + r (data-independent, so a fixed seed is harmless). */
    Builder initSeed(long seed) {
      this.initSeed = seed;
      return this;
    }

    /** Seeded noise and partitions: reproducible, NOT private (tests and debugging only). */
    Builder insecureSeed(long seed) {
      this.insecureSeed = seed;
      return this;
    }

    MadelonExperiment build() {
      checkArgument(train.dimension() == test.dimension() && train.classes() == test.classes(),
          "train and test must have the same dimension and classes, were %s/%s and %s/%s", train.dimension(),
          train.classes(), test.dimension(), test.classes());
      checkArgument(epochs.length >= 1 && Arrays.stream(epochs).allMatch(k -> k >= 1),
          "epochs must be >= 1, were %s", Arrays.toString(epochs));
      checkArgument(repeats >= 1, "repeats must be >= 1, was %s", repeats);
      checkArgument(hidden.length >= 1 && Arrays.stream(hidden).allMatch(w -> w >= 1),
          "hidden widths must be >= 1, were %s", Arrays.toString(hidden));
      checkArgument(batchSize >= 1 && batchSize <= train.size(), "batch size must be in [1, %s], was %s",
          train.size(), batchSize);
      double[] positive = {learningRate, rho, clipNorm, constantNoise, finalNoise, delta};
      checkArgument(Arrays.stream(positive).allMatch(x -> x > 0 && Double.isFinite(x)),
          "learning rate, rho, clip norm, noise temperatures and delta must be finite and > 0, were %s",
          Arrays.toString(positive));
      checkArgument(decrement >= 0 && Double.isFinite(decrement), "decrement must be finite and >= 0, was %s",
          decrement);
      checkArgument(delta < 1, "delta must be < 1, was %s", delta);
      return new MadelonExperiment(this);
    }
  }
}
