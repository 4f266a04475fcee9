package org.dp4j.samples.cli;

import java.io.PrintWriter;
import java.util.List;
import java.util.Locale;
import java.util.OptionalDouble;
import java.util.concurrent.Callable;
import java.util.stream.IntStream;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.dp4j.accounting.NeighbouringRelation;
import org.dp4j.accounting.ThreatModel;
import org.dp4j.audit.AuditBound;
import org.dp4j.audit.CanaryCoins;
import org.dp4j.audit.GuessPlan;
import org.dp4j.audit.blackbox.InputCanaries;
import org.dp4j.audit.whitebox.WhiteBoxAudit;
import org.dp4j.audit.whitebox.ZeroNoise;
import org.dp4j.data.LabelledImages;
import org.dp4j.data.MnistSplit;
import org.dp4j.data.MnistVariant;
import org.dp4j.listeners.AuditChart;
import org.dp4j.listeners.RunReport;
import org.dp4j.noise.AesCtrRandom;
import org.dp4j.noise.NoiseSource;
import org.dp4j.noise.PrefetchingNoise;
import org.dp4j.samples.train.Accuracy;
import org.dp4j.samples.zoo.ModelZoo;
import org.dp4j.training.DpSgdSetup;
import org.dp4j.training.DpSgdTrainer;
import org.dp4j.training.IndexedData;
import org.dp4j.training.TrainingResult;
import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.dataset.DataSet;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.learning.config.Sgd;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code dp4j audit}: one DP-SGD run on MNIST with m canaries (Steinke, Nasr &amp; Jagielski 2023), reporting the
 * measured lower bound on ε beside the certified upper bound of the same run (docs/auditing.md).
 */
@Command(name = "audit", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"Audit DP-SGD empirically in one training run: insert m canaries, each included with probability "
        + "1/2 (secure coins), train with the production DP-SGD, guess which were included, and print the lower "
        + "bound on epsilon those guesses prove (95% confidence by default) beside the certified epsilon.",
        "White-box (default, --canary-type dirac): gradient canaries of norm C on quiet coordinates, every update "
            + "observed. Black-box (--canary-type input): mislabelled test images as extra records, scored by "
            + "their loss under the final model.",
        "--noise-multiplier 0 runs a NON-PRIVATE baseline (no noise at all), allowed only here.",
        "Example: dp4j audit --model mlp --epsilon 4 --canaries 1000 --json"})
final class AuditCommand implements Callable<Integer> {
  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  @CommandLine.Mixin
  MnistDataOptions dataOptions;

  @Option(names = "--model", defaultValue = "mlp", paramLabel = "mlp|cnn",
      description = "mlp: 784-128-10 ReLU by default (see --hidden); cnn: the tanh CNN of Papernot et al. 2021.")
  String model;

  @Option(names = "--hidden", split = ",", defaultValue = "128", paramLabel = "H",
      description = "MLP hidden layer widths (default: 128).")
  int[] hidden;

  @Option(names = "--canary-type", defaultValue = "dirac", paramLabel = "dirac|input",
      description = "dirac: white-box gradient canaries (default); input: black-box mislabelled images.")
  String canaryType;

  @Option(names = "--canaries", defaultValue = "1000", paramLabel = "M", description = "Canaries m (default: 1000).")
  int canaries;

  @Option(names = "--epsilon", paramLabel = "E",
      description = "Target epsilon of the audited run (the noise multiplier is calibrated to it).")
  Double epsilon;

  @Option(names = "--noise-multiplier", paramLabel = "Z",
      description = "Noise multiplier instead of --epsilon; 0 = no noise, a non-private baseline.")
  Double noiseMultiplier;

  @Option(names = "--guesses", split = ",", paramLabel = "K+,K-",
      description = "Pre-register the guesses: in for the K+ highest scores, out for the K- lowest, abstain on the "
          + "rest; pays no Bonferroni correction (default: a corrected sweep of guess counts, docs/auditing.md#cap).")
  int[] guesses;

  @Option(names = "--delta", defaultValue = "1e-5", paramLabel = "D", description = "Delta (default: 1e-5).")
  double delta;

  @Option(names = "--confidence", defaultValue = "0.95", paramLabel = "C",
      description = "Confidence of the lower bound (default: 0.95).")
  double confidence;

  @Option(names = "--epochs", defaultValue = "5", paramLabel = "K", description = "Epochs (default: 5).")
  int epochs;

  @Option(names = "--batch-size", defaultValue = "6000", paramLabel = "B",
      description = "Expected (Poisson) batch size (default: 6000, q = 0.1 on MNIST).")
  int batchSize;

  @Option(names = "--clip-norm", defaultValue = "1.0", paramLabel = "C", description = "Clip norm (default: 1).")
  double clipNorm;

  @Option(names = "--learning-rate", defaultValue = "1.0", paramLabel = "LR",
      description = "Learning rate of plain SGD (default: 1).")
  double learningRate;

  @Option(names = "--seed", defaultValue = "12345", paramLabel = "S",
      description = "Seed of the weight initialisation (coins, canaries, sampling and noise are always secure).")
  long seed;

  @Option(names = "--json", description = "Print one JSON object instead of the text report.")
  boolean json;

  @CommandLine.Mixin
  ReportFileOptions files;

  @Override
  public Integer call() throws Exception {
    CommandLine cmd = spec.commandLine();
    validate(cmd);
    boolean whiteBox = parseCanaryType(cmd);
    boolean nonPrivate = noiseMultiplier != null && noiseMultiplier == 0;
    MnistVariant variant = dataOptions.variant(cmd);
    LabelledImages train = dataOptions.load(cmd, MnistSplit.TRAIN);
    LabelledImages test = dataOptions.load(cmd, MnistSplit.TEST);
    IndexedData data = IndexedData.of(train, DataType.FLOAT);
    if (dataOptions.trainSize != null) {
      int n = dataOptions.trainSize(cmd, train.size(), batchSize, "batch size " + batchSize, "");
      data = IndexedData.of(data.rows(IntStream.range(0, n).toArray()));
    }
    if (canaries > (whiteBox ? 100_000 : test.size() / 2)) {
      throw new CommandLine.ParameterException(cmd, "--canaries must be at most " + (whiteBox ? 100_000
          : test.size() / 2) + (whiteBox ? "" : " (half the test images; the rest measure accuracy)") + ", was "
          + canaries);
    }
    AesCtrRandom random = AesCtrRandom.secure();
    int heldOut = whiteBox ? test.size() : test.size() - canaries;
    InputCanaries inputs = whiteBox ? null : InputCanaries.of(mislabelled(test, heldOut, random),
        CanaryCoins.draw(canaries, random));
    IndexedData trained = whiteBox ? data : inputs.trainingData(data);
    DpSgdSetup.Builder sb = DpSgdSetup.builder().datasetSize(trained.size()).expectedBatchSize(batchSize)
        .epochs(epochs).clipNorm(clipNorm).delta(delta);
    DpSgdSetup setup = (epsilon != null ? sb.targetEpsilon(epsilon)
        : sb.noiseMultiplier(nonPrivate ? 1.0 : noiseMultiplier)).build();   // 1.0: nominal, never added
    MultiLayerNetwork net = setup.privateNetwork(configuration(cmd));
    WhiteBoxAudit audit = whiteBox ? WhiteBoxAudit.builder(net, trained).canaries(canaries)
        .probeRows(trained.size()).random(random).build()
        : null;
    NoiseSource noise = nonPrivate ? new ZeroNoise() : PrefetchingNoise.secure();
    DpSgdTrainer.Builder tb = setup.trainer(net, trained);
    NoiseSource used = whiteBox ? audit.noise(noise) : noise;
    if (nonPrivate) {
      tb.insecureNoise(used);
    } else {
      tb.noise(used);
    }
    if (whiteBox) {
      net.addListeners(audit.listener());
    }
    PrintWriter out = cmd.getOut();
    if (!json) {
      out.printf(Locale.ROOT, "dp4j audit: %s canaries (%s), m = %d, on %s %s (%d training records), %d epochs of "
              + "%d steps, expected batch %d, clip %s, %s%n", whiteBox ? "Dirac gradient" : "mislabelled input",
          whiteBox ? "white-box: every update observed" : "black-box: final model only", canaries,
          variant.name().toLowerCase(Locale.ROOT), model, trained.size(), epochs, setup.stepsPerEpoch(), batchSize,
          clipNorm, nonPrivate ? "NO NOISE: NON-PRIVATE BASELINE" : String.format(Locale.ROOT,
              "noise multiplier %.4f", setup.noiseMultiplier()));
      out.flush();
    }
    long start = System.nanoTime();
    TrainingResult result = tb.build().train();
    double seconds = (System.nanoTime() - start) / 1e9;
    double[] scores = whiteBox ? audit.scores().scores() : inputs.scores(net);
    boolean[] included = whiteBox ? audit.coins().included() : inputs.coins().included();
    GuessPlan plan = guesses == null ? GuessPlan.symmetricSweep(canaries) : GuessPlan.fixed(guesses[0], guesses[1]);
    AuditBound bound = plan.bound(scores, included, delta, confidence);
    OptionalDouble certified = nonPrivate ? OptionalDouble.empty()
        : result.epsilon(ThreatModel.ALL_ITERATES_RELEASED);
    double accuracy = Accuracy.of(net, test.toDataSet(IntStream.range(0, heldOut).toArray(),
        DataType.FLOAT));
    RunReport r = report(whiteBox, nonPrivate, setup, trained.size(), result, bound, certified, accuracy,
        seconds);
    if (json) {
      out.println(r.toJson());
    } else {
      out.println(text(bound, certified, nonPrivate, accuracy, seconds, result.steps()));
    }
    out.flush();
    RunOutputs outputs = new RunOutputs(cmd.getErr());
    outputs.write(files.report, () -> r.writeJson(files.report));
    outputs.write(files.chart, () -> AuditChart.writePng(files.chart, bound, certified, scores, included,
        (nonPrivate ? "NON-PRIVATE " : "") + "DP-SGD " + model + " on " + variant.name().toLowerCase(Locale.ROOT)));
    return outputs.exitCode();
  }

  private RunReport report(boolean whiteBox, boolean nonPrivate, DpSgdSetup setup, int records,
      TrainingResult result, AuditBound bound, OptionalDouble certified, double accuracy, double seconds) {
    RunReport.Builder r = RunReport.builder("dp4j audit").algorithm("dp-sgd").dataset(dataOptions.dataset)
        .relation(NeighbouringRelation.ADD_REMOVE);
    var guarantee = result.ledger().best(ThreatModel.ALL_ITERATES_RELEASED, 0);
    if (certified.isPresent() && guarantee.isPresent()) {
      r.certified(guarantee.get());
    } else {
      r.notCertified("NOT CERTIFIED: " + (nonPrivate ? "--noise-multiplier 0 adds no noise, the run is NOT private "
          + "(audit baseline)" : "no certified bound for 'all iterates released'"), delta,
          ThreatModel.ALL_ITERATES_RELEASED);
    }
    return r.testAccuracy(accuracy).perEpoch(RunReport.perEpochRows(result.ledger(), List.of()))
        .field("epsilonLowerBound", bound.epsilonLowerBound())
        .field("epsilonLowerBoundCap", bound.epsilonLowerBoundCap())   // all guesses correct: docs/auditing.md#cap
        .field("epsilonCertified", certified.isPresent() ? certified.getAsDouble() : null)
        .field("nonPrivate", nonPrivate).field("confidence", confidence).field("canaries", canaries)
        .field("guesses", bound.guesses().guesses()).field("correctGuesses", bound.guesses().correct())
        .field("kPlus", bound.guesses().guessedIn()).field("kMinus", bound.guesses().guessedOut())
        .field("guessCountsTried", bound.candidates()).field("perGuessCountConfidence", bound.perTestConfidence())
        .field("setting", whiteBox ? "white-box: Dirac gradient canaries (norm C, quiet coordinates, Poisson-sampled "
            + "like every record), score = sum over all updates of the move along the canary's coordinate"
            : "black-box: mislabelled test images added as records, score = minus their loss under the final model")
        .field("model", model).field("trainingRecords", records).field("epochs", epochs)
        .field("steps", result.steps()).field("expectedBatchSize", batchSize)
        .field("samplingRate", setup.samplingRate()).field("noiseMultiplier", nonPrivate ? 0.0 : setup.noiseMultiplier())
        .field("clipNorm", clipNorm).field("learningRate", learningRate).field("trainingSeconds", seconds)
        .field("meaning", "with the stated confidence the training run is NOT (epsilon, delta)-DP for any epsilon "
            + "below epsilonLowerBound; it is not an upper bound and says nothing about how private the run is "
            + "(docs/auditing.md)")
        .build();
  }

  private String text(AuditBound bound, OptionalDouble certified, boolean nonPrivate, double accuracy,
      double seconds, long steps) {
    String upper = certified.isPresent() ? String.format(Locale.ROOT, "%.4f", certified.getAsDouble())
        : "none (NON-PRIVATE run: no noise)";
    return String.format(Locale.ROOT, "measured lower bound: %s%ncertified upper bound: epsilon %s at delta %s (all "
            + "iterates released, add/remove)%n%s%ntest accuracy %.4f, %d updates, training %.1f s",
        bound.summary(), upper, delta, nonPrivate ? "" : (certified.isPresent()
            && bound.epsilonLowerBound() > certified.getAsDouble()
            ? "THE LOWER BOUND EXCEEDS THE CERTIFIED EPSILON: the implementation does not do what its accountant "
                + "assumes (or this was the 1-in-20 unlucky run at 95%); investigate"
            : "consistent: the measured lower bound is below the certified epsilon"), accuracy, steps, seconds);
  }

  /** Test images [heldOut, heldOut + m) with a label drawn uniformly among the 9 wrong ones (secure). */
  private DataSet mislabelled(LabelledImages test, int heldOut, AesCtrRandom random) {
    int[] idx = IntStream.range(heldOut, heldOut + canaries).toArray();
    DataSet rows = test.toDataSet(idx, DataType.FLOAT);
    var y = Nd4j.zeros(DataType.FLOAT, canaries, test.classes());
    for (int i = 0; i < canaries; i++) {
      int wrong = (test.label(idx[i]) + 1 + random.nextInt(test.classes() - 1)) % test.classes();
      y.putScalar(i, wrong, 1f);
    }
    return new DataSet(rows.getFeatures(), y);
  }

  private org.deeplearning4j.nn.conf.MultiLayerConfiguration configuration(CommandLine cmd) {
    return switch (model.toLowerCase(Locale.ROOT)) {
      case "mlp" -> {
        for (int w : hidden) {
          Checks.positive(cmd, "--hidden", w);
        }
        yield ModelZoo.mnistMlp(new Sgd(learningRate), seed, hidden, Activation.RELU);
      }
      case "cnn" -> ModelZoo.mnistCnn(new Sgd(learningRate), seed);
      default -> throw new CommandLine.ParameterException(cmd, "--model must be mlp or cnn, was '" + model + "'");
    };
  }

  private boolean parseCanaryType(CommandLine cmd) {
    return switch (canaryType.toLowerCase(Locale.ROOT)) {
      case "dirac" -> true;
      case "input" -> false;
      default -> throw new CommandLine.ParameterException(cmd, "--canary-type must be dirac or input, was '"
          + canaryType + "'");
    };
  }

  private void validate(CommandLine cmd) {
    if ((epsilon == null) == (noiseMultiplier == null)) {
      throw new CommandLine.ParameterException(cmd, "give exactly one of --epsilon and --noise-multiplier");
    }
    if (epsilon != null) {
      Checks.positive(cmd, "--epsilon", epsilon);
    } else if (!(noiseMultiplier >= 0 && Double.isFinite(noiseMultiplier))) {
      throw new CommandLine.ParameterException(cmd, "--noise-multiplier must be finite and >= 0 (0: a non-private "
          + "audit baseline), was " + noiseMultiplier);
    }
    Checks.delta(cmd, delta);
    if (!(confidence > 0 && confidence < 1)) {
      throw new CommandLine.ParameterException(cmd, "--confidence must be in (0, 1), was " + confidence);
    }
    if (canaries < 2) {
      throw new CommandLine.ParameterException(cmd, "--canaries must be >= 2, was " + canaries);
    }
    if (guesses != null && (guesses.length != 2 || guesses[0] < 0 || guesses[1] < 0
        || guesses[0] + guesses[1] == 0 || guesses[0] + guesses[1] > canaries)) {
      throw new CommandLine.ParameterException(cmd, "--guesses must be K+,K- with K+, K- >= 0 and 0 < K+ + K- <= "
          + "canaries = " + canaries + ", was " + java.util.Arrays.toString(guesses));
    }
    Checks.positive(cmd, "--epochs", epochs);
    Checks.positive(cmd, "--batch-size", batchSize);
    Checks.positive(cmd, "--clip-norm", clipNorm);
    Checks.positive(cmd, "--learning-rate", learningRate);
  }
}
