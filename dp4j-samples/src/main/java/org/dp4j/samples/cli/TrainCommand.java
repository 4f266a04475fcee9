package org.dp4j.samples.cli;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.stream.IntStream;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.dp4j.accounting.NeighbouringRelation;
import org.dp4j.accounting.ThreatModel;
import org.dp4j.accounting.ledger.CompositionAccounting;
import org.dp4j.accounting.ledger.LedgerRow;
import org.dp4j.accounting.ledger.PrivacyLedger;
import org.dp4j.data.LabelledImages;
import org.dp4j.data.MnistSplit;
import org.dp4j.data.MnistVariant;
import org.dp4j.listeners.LedgerChart;
import org.dp4j.listeners.LedgerCheckpoint;
import org.dp4j.listeners.LedgerReport;
import org.dp4j.listeners.RunReport;
import org.dp4j.samples.train.MnistLstm;
import org.dp4j.samples.train.MnistModels;
import org.dp4j.samples.zoo.ModelZoo;
import org.dp4j.training.DpSgdSetup;
import org.dp4j.training.IndexedData;
import org.dp4j.training.TrainingResult;
import org.dp4j.updater.DpSgdStep;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.dataset.DataSet;
import org.nd4j.linalg.learning.config.IUpdater;
import org.nd4j.linalg.learning.config.Nesterovs;
import org.nd4j.linalg.learning.config.Sgd;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code dp4j train}: private training on MNIST or Fashion-MNIST with a per-epoch privacy ledger. */
@Command(name = "train", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"Train a network with DP-SGD (Poisson sampling, per-example clipping, Gaussian noise) on MNIST "
        + "or Fashion-MNIST; print test accuracy and epsilon per epoch; write a JSON report.",
        "Data: IDX files from scripts/fetch-data.sh (default folder .cache/data/<dataset>).",
        "Example: dp4j train --dataset mnist --model cnn --epsilon 3 --delta 1e-5"})
final class TrainCommand implements Callable<Integer> {
  /** Training algorithms. */
  enum Algorithm { DP_SGD, DP_MBCD }

  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  @Option(names = "--algorithm", defaultValue = "dp-sgd", paramLabel = "dp-sgd|dp-mbcd",
      converter = AlgorithmConverter.class, description = "Training algorithm (default: dp-sgd; dp-mbcd: Chen & Liu "
          + "hidden-state DP-MBCD on a lifted MLP, see the dp-mbcd options below).")
  Algorithm algorithm;

  @CommandLine.Mixin
  DpMbcdOptions mbcd;

  @CommandLine.Mixin
  FeatureOptions featureOptions;

  @CommandLine.Mixin
  AveragedEvaluation.Options averaging;

  @CommandLine.Mixin
  MnistDataOptions dataOptions;

  @Option(names = "--model", defaultValue = "mlp", paramLabel = "mlp|cnn|lstm|softmax|linear",
      description = "mlp: 784-256-10 tanh by default (see --hidden, --activation); cnn: the tanh CNN of Papernot "
          + "et al. 2021; lstm: row-sequential LSTM (28 steps of 28 pixels, --hidden units, default 64) into a softmax "
          + "on its last step; softmax: L2-regularised softmax regression with a certified hidden-state epsilon "
          + "(Ye & Shokri Cor. 6.3) (default: mlp). With --algorithm dp-mbcd: mlp = lifted 784-256-256-10, cnn = "
          + "lifted LeNet-style conv-avgpool-dense. With --features scatternet: linear or cnn.")
  String model;

  @Option(names = "--sampler", paramLabel = "poisson|shuffle-once",
      description = "Batches: poisson (default) or shuffle-once (one secret permutation, fixed batches; "
          + "--model softmax only).")
  String sampler;

  @Option(names = "--l2", paramLabel = "LAMBDA",
      description = "--model softmax: L2 regularisation on weights and bias (default: 0.01).")
  Double l2;

  @Option(names = "--feature-clip", paramLabel = "L",
      description = "--model softmax: clip every image to l2 norm L before training (default: 4).")
  Double featureClip;

  @Option(names = "--hidden", split = ",", paramLabel = "H",
      description = "MLP hidden layer widths, comma-separated (default: 256; dp-mbcd: 256,256 ReLU, the paper's MNIST "
          + "MLP is 4 x 1200; its auxiliary store holds 2 x (sum of widths + 10) floats per training example).")
  int[] hidden;

  @Option(names = "--activation", paramLabel = "relu|tanh", description = "MLP hidden activation (default: tanh).")
  String activation;

  @Option(names = "--epsilon", paramLabel = "E",
      description = "Target epsilon: the noise multiplier is calibrated so the whole run is (E, delta)-DP, "
          + "and training never exceeds it.")
  Double epsilon;

  @Option(names = "--noise-multiplier", paramLabel = "Z", description = "Noise multiplier (instead of --epsilon).")
  Double noiseMultiplier;

  @Option(names = "--accountant", defaultValue = "pld", paramLabel = "pld|rdp",
      description = "Composition bound used to calibrate --epsilon and to stop at the budget: pld (privacy loss "
          + "distributions, certified, default) or rdp (Renyi DP); with pld both are reported.")
  String accountant;

  @Option(names = "--delta", defaultValue = "1e-5", paramLabel = "D", description = "Delta (default: 1e-5).")
  double delta;

  @Option(names = "--epochs", paramLabel = "K", description = "Epochs (default: per model, see README).")
  Integer epochs;

  @Option(names = "--batch-size", paramLabel = "B", description = "Expected (Poisson) batch size.")
  Integer batchSize;

  @Option(names = "--clip-norm", paramLabel = "C", description = "Per-example gradient clip norm.")
  Double clipNorm;

  @Option(names = "--learning-rate", paramLabel = "LR", description = "Learning rate.")
  Double learningRate;

  @Option(names = "--momentum", paramLabel = "M", description = "Nesterov momentum (0 = plain SGD).")
  Double momentum;

  @Option(names = "--budget", paramLabel = "E",
      description = "Stop before any update that would take epsilon (all iterates released) above E.")
  Double budget;

  @Option(names = "--seed", defaultValue = "12345", paramLabel = "S",
      description = "Seed of the weight initialisation (the DP noise and sampling are always secure).")
  long seed;

  @Option(names = "--checkpoint", paramLabel = "FILE",
      description = "After every epoch, save the model and its privacy ledger to FILE (resumable with --resume); "
          + "replaced atomically. An existing FILE is refused unless it is the --resume file.")
  Path checkpoint;

  @Option(names = "--resume", paramLabel = "FILE",
      description = "Continue a run saved with --checkpoint. Flags it recorded (--model, --hidden, --activation, "
          + "--clip-norm, --learning-rate, --momentum, --batch-size, --train-size, --dataset) are taken from it; given "
          + "with another value they are refused, as is another mechanism (noise, delta, budget). --epochs may grow.")
  Path resume;

  @Option(names = "--spark", paramLabel = "MASTER", description = "Take the DP-SGD steps on Apache Spark: local[*] "
      + "or local[K] (inside this JVM), or submit (the master given to spark-submit); same mechanism, ledger and report.")
  String spark;

  @Option(names = "--csv", paramLabel = "FILE", description = "Write the per-epoch ledger as CSV.")
  Path csv;

  @CommandLine.Mixin
  ReportFileOptions files;

  @Override
  public Integer call() throws Exception {
    CommandLine cmd = spec.commandLine();
    if (resume != null && algorithm != Algorithm.DP_MBCD) {
      TrainResume.adopt(cmd, this);
    }
    SparkTraining.checkSupported(cmd, this);
    RunOutputs.check(cmd, this, dataOptions.dir(cmd));
    AveragedEvaluation averaged = AveragedEvaluation.requested(cmd, averaging, this);
    if (algorithm == Algorithm.DP_MBCD) {
      if (featureOptions.anyGiven()) {
        throw new CommandLine.ParameterException(cmd, "--features, " + FeatureOptions.DEPENDENT + " apply to "
            + "DP-SGD, not to --algorithm dp-mbcd (it trains on pixels)");
      }
      return new DpMbcdTrainRun(this, mbcd).run(cmd);
    }
    if (mbcd.anyGiven()) {
      throw new CommandLine.ParameterException(cmd, "--noise-variance, --noise-schedule, --rho, --mode, "
          + "--strong-convexity, --proximal-point, --batch-reduction, --output, --conv-channels and "
          + "--accuracy-each-epoch need --algorithm dp-mbcd");
    }
    ScatterNetRun scatter = ScatterNetRun.requested(cmd, featureOptions, this);
    if (CertifiedSoftmaxTraining.requested(this)) {
      return CertifiedSoftmaxTraining.run(this, cmd);
    }
    PrintWriter out = cmd.getOut();
    TrainDefaults defaults = scatter != null ? scatter.defaults() : TrainDefaults.of(parseModel(cmd));
    int k = epochs != null ? epochs : defaults.epochs();
    int b = batchSize != null ? batchSize : defaults.batchSize();
    double c = clipNorm != null ? clipNorm : defaults.clipNorm();
    double lr = learningRate != null ? learningRate : defaults.learningRate();
    double m = momentum != null ? momentum : defaults.momentum();
    validate(cmd, k, b, c, lr, m);
    if (scatter == null && parseModel(cmd) == MnistModels.Kind.MLP) {
      Checks.mlpFits(cmd, 784, hidden != null ? hidden : defaults.hidden(), 10, 0, 0); // before loading the data
    }
    CompositionAccounting accounting = parseAccountant(cmd);
    MnistVariant variant = dataOptions.variant(cmd);
    LabelledImages train = dataOptions.load(cmd, MnistSplit.TRAIN);
    LabelledImages test = dataOptions.load(cmd, MnistSplit.TEST);
    IndexedData data = scatter != null ? scatter.trainData(train) : IndexedData.of(train, DataType.FLOAT);
    if (dataOptions.trainSize != null) {
      int n = dataOptions.trainSize(cmd, train.size(), b, "batch size " + b, "");
      data = IndexedData.of(data.rows(IntStream.range(0, n).toArray()));
    }
    boolean sequences = scatter == null && parseModel(cmd) == MnistModels.Kind.LSTM;
    data = sequences ? MnistLstm.sequences(data) : data;
    DpSgdSetup.Builder sb = DpSgdSetup.builder().datasetSize(data.size()).expectedBatchSize(b).epochs(k)
        .clipNorm(c).delta(delta).accounting(accounting);
    if (epsilon != null) {
      sb.targetEpsilon(epsilon);
    } else {
      sb.noiseMultiplier(noiseMultiplier);
    }
    if (budget != null) {
      sb.budget(budget);
    }
    DpSgdSetup setup = sb.build();
    IUpdater base = m == 0 ? new Sgd(lr) : new Nesterovs(lr, m);
    MultiLayerNetwork fresh = setup.privateNetwork(scatter != null ? scatter.configuration(base, seed)
        : configuration(cmd, defaults, base));
    PrivacyLedger ledger = setup.ledger();   // stops at --budget, else at --epsilon
    boolean hiddenWidth = scatter == null && parseModel(cmd) != MnistModels.Kind.CNN;
    Map<String, String> settings = TrainResume.settings(this, hiddenWidth
        ? (hidden != null ? hidden : defaults.hidden()) : null, activation != null ? activation : defaults.activation(),
        c, lr, m, b, data.size());
    MultiLayerNetwork net = resume == null ? fresh : resumed(cmd, ledger);
    long fit = ledger.stepsWithinBudget(setup.steps());
    out.printf(Locale.ROOT, "dp4j train: DP-SGD on %s (%d training images), %s, %d epochs of %d steps, expected "
            + "batch %d (sampling rate q = %.6g), clip %s, noise multiplier %.4f (%s calibration), lr %s%s%n",
        variant.name().toLowerCase(Locale.ROOT), data.size(), model, k, setup.stepsPerEpoch(), b,
        setup.samplingRate(), c, setup.noiseMultiplier(), setup.accounting().label(), lr,
        m == 0 ? "" : ", Nesterov momentum " + m);
    if (fit < setup.steps()) {
      cmd.getErr().printf(Locale.ROOT, "dp4j: warning: the budget allows %d of the %d planned updates (%.1f of %d "
          + "epochs); training will stop there%n", fit, setup.steps(), (double) fit / setup.stepsPerEpoch(), k);
    }
    out.flush();
    DataSet testSet = scatter != null ? scatter.testData(test)
        : sequences ? MnistLstm.sequences(test.toDataSet(DataType.FLOAT)) : test.toDataSet(DataType.FLOAT);
    List<Double> accuracies = new ArrayList<>();
    ProgressDisplay progress = new ProgressDisplay(cmd.getErr(), setup.stepsPerEpoch());
    java.util.function.ToDoubleFunction<MultiLayerNetwork> evaluation = scatter != null
        ? n -> scatter.accuracy(n, testSet) : n -> org.dp4j.samples.train.Accuracy.of(n, testSet);
    java.util.function.Consumer<LedgerRow> epochDone = row -> {
      double acc = averaged.accuracy(net, evaluation);
      accuracies.add(acc);
      progress.epochDone();
      out.println(epochLine(row, acc, k));
      out.flush();
      if (checkpoint != null) {
        LedgerCheckpoint.save(net, ledger, checkpoint.toFile(), false, settings);
      }
    };
    TrainingResult result = spark != null
        ? SparkTraining.train(spark, net, data, ledger, k, progress::step, epochDone)
        : averaged.attach(setup.trainer(net, data), net)
            .physicalBatchSize(scatter != null ? scatter.physicalBatchSize() : Integer.MAX_VALUE)
            .viewsPerExample(scatter != null ? scatter.trainViews() : 1)
            .ledger(ledger).onStep(progress::step).onEpoch(epochDone).build().train();
    double finalAccuracy = accuracies.isEmpty() ? averaged.accuracy(net, evaluation)
        : accuracies.get(accuracies.size() - 1);
    out.println(LedgerReport.summary(ledger));
    out.printf(Locale.ROOT, "stopped: %s after %d updates; final test accuracy %.4f%n",
        result.stopReason().name().toLowerCase(Locale.ROOT), result.steps(), finalAccuracy);
    RunOutputs outputs = new RunOutputs(cmd.getErr());
    if (files.report != null) {
      RunReport r = RunReport.builder("dp4j train").algorithm("dp-sgd")
          .dataset(variant.name().toLowerCase(Locale.ROOT).replace('_', '-'))
          .relation(NeighbouringRelation.ADD_REMOVE).ledger(ledger, ThreatModel.ALL_ITERATES_RELEASED)
          .testAccuracy(finalAccuracy).perEpoch(RunReport.perEpochRows(ledger, accuracies))
          .field("model", model).field("epochs", k).field("noiseMultiplier", setup.noiseMultiplier())
          .field("clipNorm", c).field("batchSize", b).field("expectedBatchSize", b)
          .field("samplingRate", setup.samplingRate()).field("accountant", setup.accounting().label())
          .field("learningRate", lr).field("momentum", m).field("trainingRecords", data.size())
          .field("stopReason", result.stopReason() == org.dp4j.training.StopReason.BUDGET ? "budget" : "completed")
          .field("testAccuracyPerEpoch", accuracies).fields(scatter != null ? scatter.report() : Map.of())
          .fields(averaged.report())
          .build();
      outputs.write(files.report, () -> r.writeJson(files.report));
    }
    outputs.write(csv, () -> LedgerReport.writeCsv(csv, ledger));
    outputs.write(files.chart, () -> LedgerChart.writePng(files.chart, ledger, "DP-SGD " + model + " on "
        + variant.name().toLowerCase(Locale.ROOT)));
    return outputs.exitCode();
  }

  private CompositionAccounting parseAccountant(CommandLine cmd) {
    return switch (accountant.toLowerCase(Locale.ROOT)) {
      case "pld" -> CompositionAccounting.PLD;
      case "rdp" -> CompositionAccounting.RDP;
      default -> throw new CommandLine.ParameterException(cmd, "--accountant must be pld or rdp, was '"
          + accountant + "'");
    };
  }

  private org.deeplearning4j.nn.conf.MultiLayerConfiguration configuration(CommandLine cmd, TrainDefaults defaults,
      IUpdater base) {
    if (parseModel(cmd) == MnistModels.Kind.CNN) {
      if (hidden != null || activation != null) {
        throw new CommandLine.ParameterException(cmd, "--hidden and --activation apply to --model mlp only");
      }
      return ModelZoo.mnistCnn(base, seed);
    }
    if (parseModel(cmd) == MnistModels.Kind.LSTM) {
      return ModelZoo.mnistLstm(base, seed, (hidden != null ? hidden : defaults.hidden())[0]);
    }
    int[] widths = hidden != null ? hidden : defaults.hidden();
    for (int w : widths) {
      Checks.positive(cmd, "--hidden", w);
    }
    String act = activation != null ? activation : defaults.activation();
    org.nd4j.linalg.activations.Activation a = switch (act.toLowerCase(Locale.ROOT)) {
      case "relu" -> org.nd4j.linalg.activations.Activation.RELU;
      case "tanh" -> org.nd4j.linalg.activations.Activation.TANH;
      default -> throw new CommandLine.ParameterException(cmd, "--activation must be relu or tanh, was '" + act + "'");
    };
    return ModelZoo.mnistMlp(base, seed, widths, a);
  }

  private MultiLayerNetwork resumed(CommandLine cmd, PrivacyLedger ledger) {
    try {
      MultiLayerNetwork net = LedgerCheckpoint.restore(resume.toFile(), ledger);
      cmd.getOut().printf(Locale.ROOT, "resuming after epoch %d (%d updates) from %s%n", ledger.rows().size(),
          ledger.steps(), resume);
      return net;
    } catch (IllegalArgumentException e) {
      throw new CommandLine.ParameterException(cmd, "--resume: " + e.getMessage());
    }
  }

  private static String epochLine(LedgerRow row, double accuracy, int epochs) {
    return String.format(Locale.ROOT, "epoch %d/%d: test accuracy %.4f, epsilon %.4f at delta %s (all iterates "
            + "released, add/remove), %d updates", row.epoch(), epochs, accuracy,
        row.composition().orElseThrow().epsilon(), row.composition().orElseThrow().delta(), row.steps());
  }

  private void validate(CommandLine cmd, int k, int b, double c, double lr, double m) {
    if ((epsilon == null) == (noiseMultiplier == null)) {
      throw new CommandLine.ParameterException(cmd, "give exactly one of --epsilon and --noise-multiplier");
    }
    if (epsilon != null) {
      Checks.positive(cmd, "--epsilon", epsilon);
    } else {
      Checks.positive(cmd, "--noise-multiplier", noiseMultiplier);
    }
    Checks.delta(cmd, delta);
    Checks.positive(cmd, "--epochs", k);
    Checks.positive(cmd, "--batch-size", b);
    Checks.positive(cmd, "--clip-norm", c);
    Checks.positive(cmd, "--learning-rate", lr);
    if (!(m >= 0 && m < 1)) {
      throw new CommandLine.ParameterException(cmd, "--momentum must be in [0, 1), was " + m);
    }
    if (budget != null) {
      Checks.positive(cmd, "--budget", budget);
    }
  }

  private MnistModels.Kind parseModel(CommandLine cmd) {
    return switch (model.toLowerCase(Locale.ROOT)) {
      case "mlp" -> MnistModels.Kind.MLP;
      case "cnn" -> MnistModels.Kind.CNN;
      case "lstm" -> MnistModels.Kind.LSTM;
      default -> throw new CommandLine.ParameterException(cmd, "--model must be mlp, cnn, lstm or softmax, was '" + model
          + "'");
    };
  }

  /** Accepts "dp-sgd" and "dp-mbcd". */
  static final class AlgorithmConverter implements CommandLine.ITypeConverter<Algorithm> {
    @Override
    public Algorithm convert(String value) {
      if (value.equalsIgnoreCase("dp-sgd")) {
        return Algorithm.DP_SGD;
      }
      if (value.equalsIgnoreCase("dp-mbcd")) {
        return Algorithm.DP_MBCD;
      }
      throw new CommandLine.TypeConversionException("--algorithm must be dp-sgd or dp-mbcd, was '" + value + "'");
    }
  }

  /** Shows progress within slow epochs on stderr, at most every few seconds. */
  static final class ProgressDisplay {
    private static final long INTERVAL_NANOS = 10_000_000_000L;
    private final PrintWriter err;
    private final int stepsPerEpoch;
    private int step;
    private long last = System.nanoTime();

    ProgressDisplay(PrintWriter err, int stepsPerEpoch) {
      this.err = err;
      this.stepsPerEpoch = stepsPerEpoch;
    }

    void step() {
      step++;
      long now = System.nanoTime();
      if (now - last > INTERVAL_NANOS) {
        last = now;
        err.printf(Locale.ROOT, "  ... %d/%d steps of this epoch%n", step, stepsPerEpoch);
        err.flush();
      }
    }

    void epochDone() {
      step = 0;
      last = System.nanoTime();
    }
  }
}
