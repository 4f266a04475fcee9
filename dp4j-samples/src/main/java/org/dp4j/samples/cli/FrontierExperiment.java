package org.dp4j.samples.cli;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkNotNull;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.function.Consumer;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.dp4j.accounting.PrivacyGuarantee;
import org.dp4j.accounting.ThreatModel;
import org.dp4j.accounting.hiddenstate.NoiseTemperatureSchedule;
import org.dp4j.accounting.ledger.LedgerRow;
import org.dp4j.accounting.ledger.PrivacyLedger;
import org.dp4j.accounting.ledger.StepAccountant;
import org.dp4j.listeners.LedgerReport;
import org.dp4j.mbcd.DpMbcdAccounting;
import org.dp4j.mbcd.DpMbcdMechanism;
import org.dp4j.mbcd.DpMbcdTrainer;
import org.dp4j.mbcd.OutputLoss;
import org.dp4j.mbcd.RowNormClip;
import org.dp4j.samples.train.Accuracy;
import org.dp4j.samples.zoo.ModelZoo;
import org.dp4j.sampling.SamplingPlan;
import org.dp4j.sampling.SamplingScheme;
import org.dp4j.training.DpSgdSetup;
import org.dp4j.training.IndexedData;
import org.dp4j.training.TrainingResult;
import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.dataset.DataSet;
import org.nd4j.linalg.learning.config.IUpdater;
import org.nd4j.linalg.learning.config.Nesterovs;
import org.nd4j.linalg.learning.config.Sgd;

/**
 * Accuracy against certified ε for DP-MBCD and DP-SGD on the same ReLU MLP (issue 19, part 3): for each target ε,
 * DP-MBCD's constant noise temperature o is calibrated so that its best certified bound for "only the last iterate
 * released" — min(SAFE hidden state, composition of the block steps), replace one record (docs/accountants.md#dp-mbcd)
 * — equals the target at δ, and DP-SGD's noise multiplier by the PLD accountant (add/remove one record, every
 * iterate released). Each algorithm runs at its own hyperparameters ({@link FrontierSettings}); with several
 * DP-MBCD candidates the best is chosen per ε on a validation split held out from the training set (that search is
 * not part of the reported ε).
 *
 * <pre>{@code
 * FrontierSettings.Mbcd s = FrontierSettings.Mbcd.parse("1000:10:1:1:1:0");
 * FrontierExperiment.MbcdPrivacy p = FrontierExperiment.calibrateMbcd(s, 60_000, new int[] {784, 256, 256, 10}, 3, 1e-5);
 * // p.noise() is the temperature o; p.epsilon() <= 3 is the certified bound of the run
 * }</pre>
 */
final class FrontierExperiment {
  /** Records at the end of the training set held out for the DP-MBCD search, by default. */
  static final int VALIDATION_SIZE = 10_000;
  /** Bracket of the temperature search: ε is non-increasing in o. */
  static final double MIN_TEMPERATURE = 1e-14;
  static final double MAX_TEMPERATURE = 1e6;

  /** The privacy of a DP-MBCD run with constant temperature {@code noise}: ε = min(hidden state, composition). */
  record MbcdPrivacy(double noise, double epsilon, double hiddenState, double composition) {}

  /** One (algorithm, ε) point: the settings, the calibrated noise, the certified ε and the accuracies of the seeds. */
  record Row(String algorithm, double targetEpsilon, String settings, String noise, double epsilon,
      Double epsilonHiddenState, double epsilonComposition, String threatModel, String relation,
      List<Double> accuracies) {
    double mean() {
      return accuracies.stream().mapToDouble(Double::doubleValue).average().orElse(Double.NaN);
    }

    /** Sample standard deviation (n − 1); 0 for one run. */
    double std() {
      int n = accuracies.size();
      if (n < 2) {
        return 0;
      }
      double m = mean();
      return Math.sqrt(accuracies.stream().mapToDouble(a -> (a - m) * (a - m)).sum() / (n - 1));
    }
  }

  /** One DP-MBCD candidate of the search at one ε: its calibrated temperature and validation accuracy. */
  record SearchRow(double targetEpsilon, FrontierSettings.Mbcd settings, double noise, double epsilon,
      double validationAccuracy) {}

  /** What a run produced: the search (empty with one candidate) and the frontier rows, DP-MBCD then DP-SGD per ε. */
  record Result(List<SearchRow> search, List<Row> rows) {}

  private FrontierExperiment() {}

  /** The DP-MBCD mechanism of settings {@code s} on n records for the lifted MLP {@code widths} (784, …, 10). */
  static DpMbcdMechanism mechanism(FrontierSettings.Mbcd s, int n, int[] widths, double o) {
    checkArgument(s.batchSize() <= n, "DP-MBCD batch size %s is larger than the %s training records", s.batchSize(), n);
    int batches = n / s.batchSize();
    SamplingPlan plan = new SamplingPlan(SamplingScheme.SHUFFLE_ONCE_FIXED_PARTITION, n, 1.0 / batches,
        s.batchSize(), batches, n - batches * s.batchSize());
    long[] counts = new long[widths.length - 1];
    double[] rho = new double[widths.length - 1];
    for (int d = 0; d < counts.length; d++) {
      counts[d] = (long) (widths[d] + 1) * widths[d + 1];
      rho[d] = s.rho();
    }
    return DpMbcdMechanism.builder().learningRate(s.learningRate()).batches(plan).epochs(s.epochs())
        .clipNorm(s.clipNorm()).strongConvexity(s.strongConvexity()).noiseSchedule(NoiseTemperatureSchedule.constant(o))
        .blocks(counts, rho).build();
  }

  /** The certified privacy of the whole run at temperature o, from the ledger the trainer would keep. */
  static MbcdPrivacy mbcdPrivacy(FrontierSettings.Mbcd s, int n, int[] widths, double o, double delta) {
    DpMbcdMechanism m = mechanism(s, n, widths, o);
    PrivacyLedger ledger = DpMbcdAccounting.builder().delta(delta).build().ledger(m);
    long steps = (long) s.epochs() * m.numBatchesPerEpoch();
    double hidden = Double.POSITIVE_INFINITY;
    double composition = Double.POSITIVE_INFINITY;
    for (StepAccountant a : ledger.accountants()) {
      if (a.notCertifiedBecause().isPresent()) {
        continue;
      }
      double e = a.guaranteeAfter(steps, delta, ledger.conversion()).epsilon();
      if (a.threatModel() == ThreatModel.LAST_ITERATE_ONLY) {
        hidden = Math.min(hidden, e);
      } else {
        composition = Math.min(composition, e);
      }
    }
    return new MbcdPrivacy(o, Math.min(hidden, composition), hidden, composition);
  }

  /**
   * The smallest constant temperature o (to a relative 1e-6) whose certified ε is at most {@code target}: bisection
   * on log o, since ε does not increase with o. Refuses a target no temperature up to {@value #MAX_TEMPERATURE} meets.
   */
  static MbcdPrivacy calibrateMbcd(FrontierSettings.Mbcd s, int n, int[] widths, double target, double delta) {
    MbcdPrivacy hi = checkReachable(s, n, widths, target, delta);
    double lo = MIN_TEMPERATURE;
    if (mbcdPrivacy(s, n, widths, lo, delta).epsilon() <= target) {
      return mbcdPrivacy(s, n, widths, lo, delta);
    }
    while (hi.noise() / lo > 1 + 1e-6) {
      double mid = Math.sqrt(lo * hi.noise());
      MbcdPrivacy p = mbcdPrivacy(s, n, widths, mid, delta);
      if (p.epsilon() <= target) {
        hi = p;
      } else {
        lo = mid;
      }
    }
    return hi;
  }

  /** The privacy at {@link #MAX_TEMPERATURE}; refuses a target it does not meet. */
  static MbcdPrivacy checkReachable(FrontierSettings.Mbcd s, int n, int[] widths, double target, double delta) {
    checkArgument(target > 0 && Double.isFinite(target), "target epsilon must be finite and > 0, was %s", target);
    MbcdPrivacy p = mbcdPrivacy(s, n, widths, MAX_TEMPERATURE, delta);
    checkArgument(p.epsilon() <= target, "no DP-MBCD temperature up to %s reaches epsilon %s with %s on %s records "
        + "(epsilon %s there)", MAX_TEMPERATURE, target, s.describe(), n, p.epsilon());
    return p;
  }

  /** DP-SGD's setup: Poisson sampling, PLD-calibrated noise multiplier for (target, δ), add/remove one record. */
  static DpSgdSetup sgdSetup(FrontierSettings.Sgd s, int n, double target, double delta) {
    return DpSgdSetup.builder().datasetSize(n).expectedBatchSize(s.batchSize()).epochs(s.epochs())
        .clipNorm(s.clipNorm()).targetEpsilon(target).delta(delta).build();
  }

  /** Trains DP-MBCD at the calibrated temperature; returns accuracy on {@code eval} and the trainer's own ledger. */
  static Trained trainMbcd(FrontierSettings.Mbcd s, MbcdPrivacy p, int[] widths, DataSet train, DataSet eval,
      long seed, double delta) {
    DpMbcdTrainer trainer = DpMbcdTrainer.builder(ModelZoo.liftedMlp(seed, OutputLoss.SQUARED, widths), train.getFeatures(),
            train.getLabels())
        .batchSize(s.batchSize()).epochs(s.epochs()).learningRate(s.learningRate()).clipNorm(s.clipNorm())
        .activationNormBound(s.rho()).inputNormBound(s.rho()).strongConvexity(s.strongConvexity())
        .noiseSchedule(NoiseTemperatureSchedule.constant(p.noise()))
        .accounting(DpMbcdAccounting.builder().delta(delta).build())
        .maxAuxiliaryBytes(DpMbcdTrainRun.MAX_AUXILIARY_BYTES).build();
    TrainingResult r = trainer.train();
    DataSet clipped = new DataSet(eval.getFeatures().dup(), eval.getLabels());
    RowNormClip.clipInPlace(clipped.getFeatures(), s.rho());   // the inputs the trainer saw were clipped to rho
    return new Trained(Accuracy.of(r.network(), clipped), r.ledger(), ThreatModel.LAST_ITERATE_ONLY);
  }

  /** Trains DP-SGD (secure Poisson sampling and noise) with softmax cross-entropy on the same ReLU MLP. */
  static Trained trainSgd(FrontierSettings.Sgd s, DpSgdSetup setup, int[] widths, DataSet train, DataSet eval,
      long seed) {
    IUpdater base = s.momentum() == 0 ? new Sgd(s.learningRate()) : new Nesterovs(s.learningRate(), s.momentum());
    int[] hidden = java.util.Arrays.copyOfRange(widths, 1, widths.length - 1);
    MultiLayerNetwork net = setup.privateNetwork(ModelZoo.mnistMlp(base, seed, hidden, Activation.RELU));
    TrainingResult r = setup.trainer(net, IndexedData.of(train)).build().train();
    return new Trained(Accuracy.of(net, eval), r.ledger(), ThreatModel.ALL_ITERATES_RELEASED);
  }

  /** A trained model's accuracy and the ledger its ε comes from. */
  record Trained(double accuracy, PrivacyLedger ledger, ThreatModel threatModel) {
    double epsilon() {
      return LedgerReport.certifiedEpsilon(ledger, threatModel).map(PrivacyGuarantee::epsilon)
          .orElseThrow(() -> new IllegalStateException("the run has no certified epsilon"));
    }

    Optional<LedgerRow> lastRow() {
      List<LedgerRow> rows = ledger.rows();
      return rows.isEmpty() ? Optional.empty() : Optional.of(rows.get(rows.size() - 1));
    }
  }

  /** The data and the plan of a frontier run. */
  record Plan(DataSet train, DataSet test, DataSet searchTrain, DataSet validation, int[] widths, double[] epsilons,
      int seeds, double delta, List<FrontierSettings.Mbcd> candidates, FrontierSettings.Sgd sgd, boolean searchOnly) {
    Plan {
      checkNotNull(train, "train");
      checkArgument(seeds >= 1, "seeds must be >= 1, was %s", seeds);
      checkArgument(!candidates.isEmpty(), "at least one DP-MBCD setting is needed");
      checkArgument(candidates.size() == 1 || (searchTrain != null && validation != null),
          "a search over %s DP-MBCD settings needs a search training set and a validation set", candidates.size());
      checkArgument(!searchOnly || candidates.size() > 1, "searchOnly needs more than one DP-MBCD setting");
    }
  }

  /**
   * Runs the plan: per ε, the DP-MBCD search (one run per candidate, seed 0, on the validation split) when there is
   * more than one candidate, then {@code seeds} runs of the chosen DP-MBCD setting and of DP-SGD, evaluated on the
   * test set (unless the plan is {@code searchOnly}). Progress lines go to {@code log}.
   */
  static Result run(Plan plan, Consumer<String> log) {
    List<SearchRow> search = new ArrayList<>();
    List<Row> rows = new ArrayList<>();
    int n = plan.train().numExamples();
    for (double eps : plan.epsilons()) {
      FrontierSettings.Mbcd best = plan.candidates().get(0);
      if (plan.candidates().size() > 1) {
        double bestAccuracy = -1;
        for (FrontierSettings.Mbcd c : plan.candidates()) {
          MbcdPrivacy p = calibrateMbcd(c, plan.searchTrain().numExamples(), plan.widths(), eps, plan.delta());
          double acc = trainMbcd(c, p, plan.widths(), plan.searchTrain(), plan.validation(), 0, plan.delta())
              .accuracy();
          search.add(new SearchRow(eps, c, p.noise(), p.epsilon(), acc));
          log.accept(String.format(Locale.ROOT, "search eps %s: DP-MBCD %s, o %.4g: validation accuracy %.4f", eps,
              c.describe(), p.noise(), acc));
          if (acc > bestAccuracy) {
            bestAccuracy = acc;
            best = c;
          }
        }
      }
      if (!plan.searchOnly()) {
        rows.add(mbcdRow(plan, best, eps, n, log));
        rows.add(sgdRow(plan, eps, n, log));
      }
    }
    return new Result(search, rows);
  }

  private static Row mbcdRow(Plan plan, FrontierSettings.Mbcd s, double eps, int n, Consumer<String> log) {
    MbcdPrivacy p = calibrateMbcd(s, n, plan.widths(), eps, plan.delta());
    List<Double> accuracies = new ArrayList<>();
    Trained last = null;
    for (int seed = 1; seed <= plan.seeds(); seed++) {
      last = trainMbcd(s, p, plan.widths(), plan.train(), plan.test(), seed, plan.delta());
      // the trainer's own ledger must certify what the calibration promised: anything else is a bug
      if (!(last.epsilon() <= eps * (1 + 1e-9))) {
        throw new IllegalStateException("DP-MBCD run spent epsilon " + last.epsilon() + " > target " + eps);
      }
      accuracies.add(last.accuracy());
      log.accept(String.format(Locale.ROOT, "eps %s: DP-MBCD seed %d: test accuracy %.4f, epsilon %.4f", eps, seed,
          last.accuracy(), last.epsilon()));
    }
    LedgerRow row = last.lastRow().orElseThrow();
    return new Row("dp-mbcd", eps, s.describe(), String.format(Locale.ROOT, "o = %.4g", p.noise()), last.epsilon(),
        row.hiddenState().map(PrivacyGuarantee::epsilon).orElse(null),
        row.composition().map(PrivacyGuarantee::epsilon).orElseThrow(), ThreatModel.LAST_ITERATE_ONLY.description(),
        "replace one record", accuracies);
  }

  private static Row sgdRow(Plan plan, double eps, int n, Consumer<String> log) {
    DpSgdSetup setup = sgdSetup(plan.sgd(), n, eps, plan.delta());
    List<Double> accuracies = new ArrayList<>();
    Trained last = null;
    for (int seed = 1; seed <= plan.seeds(); seed++) {
      last = trainSgd(plan.sgd(), setup, plan.widths(), plan.train(), plan.test(), seed);
      accuracies.add(last.accuracy());
      log.accept(String.format(Locale.ROOT, "eps %s: DP-SGD seed %d: test accuracy %.4f, epsilon %.4f", eps, seed,
          last.accuracy(), last.epsilon()));
    }
    return new Row("dp-sgd", eps, plan.sgd().describe(), String.format(Locale.ROOT, "z = %.4f",
        setup.noiseMultiplier()), last.epsilon(), null, last.epsilon(),
        ThreatModel.ALL_ITERATES_RELEASED.description(), "add/remove one record", accuracies);
  }
}
