package org.dp4j.samples.cli;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.stream.IntStream;
import org.dp4j.accounting.PrivacyGuarantee;
import org.dp4j.accounting.ThreatModel;
import org.dp4j.accounting.hiddenstate.DpMbcdMode;
import org.dp4j.accounting.hiddenstate.NoiseTemperatureSchedule;
import org.dp4j.accounting.ledger.LedgerRow;
import org.dp4j.data.LabelledImages;
import org.dp4j.data.MnistSplit;
import org.dp4j.listeners.LedgerChart;
import org.dp4j.listeners.LedgerReport;
import org.dp4j.listeners.RunReport;
import org.dp4j.mbcd.BatchReduction;
import org.dp4j.mbcd.BlockStepRule;
import org.dp4j.mbcd.DpMbcdAccounting;
import org.dp4j.mbcd.DpMbcdMechanism;
import org.dp4j.mbcd.DpMbcdTrainer;
import org.dp4j.mbcd.OutputLoss;
import org.dp4j.mbcd.RowNormClip;
import org.dp4j.samples.train.Accuracy;
import org.dp4j.samples.zoo.ModelZoo;
import org.dp4j.training.StopReason;
import org.dp4j.training.TrainingResult;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.dataset.DataSet;
import picocli.CommandLine;

/**
 * {@code dp4j train --algorithm dp-mbcd}: DP-MBCD (Chen &amp; Liu 2025, Alg. 4; docs/accountants.md#dp-mbcd) on a lifted
 * 784-256-256-10 ReLU MLP ({@code --model mlp}) or a small LeNet-style CNN with average pooling
 * ({@code --model cnn}), MSE output, one secret shuffle-once partition, hidden-state accounting per epoch in
 * the chosen mode and, side by side, in the other mode.
 */
final class DpMbcdTrainRun {
  /** Defaults when a flag is absent; chosen by the measurements in the README ("DP-MBCD"). */
  static final int EPOCHS = 10;
  static final int BATCH_SIZE = 1000;
  static final double CLIP_NORM = 1.0;
  static final double LEARNING_RATE = 0.1;
  static final double RHO = 1.0;
  static final int[] HIDDEN = {256, 256};
  /** The auxiliary store's cap: 4 x 1200 hidden units for 60,000 images need about 2.3 GB. */
  static final long MAX_AUXILIARY_BYTES = 6L << 30;

  private final TrainCommand c;
  private final DpMbcdOptions o;

  DpMbcdTrainRun(TrainCommand command, DpMbcdOptions options) {
    this.c = command;
    this.o = options;
  }

  int run(CommandLine cmd) {
    PrintWriter out = cmd.getOut();
    int k = c.epochs != null ? c.epochs : EPOCHS;
    int b = c.batchSize != null ? c.batchSize : BATCH_SIZE;
    double clip = c.clipNorm != null ? c.clipNorm : CLIP_NORM;
    double eta = c.learningRate != null ? c.learningRate : LEARNING_RATE;
    double rho = o.rho != null ? o.rho : RHO;
    double mu = o.strongConvexity != null ? o.strongConvexity : 0.0;
    validate(cmd, k, b, clip, eta, rho, mu);
    DpMbcdMode mode = o.mode != null ? o.mode : DpMbcdMode.SAFE;
    boolean cnn = c.model.equalsIgnoreCase("cnn");
    if (o.proximalPoint && mode != DpMbcdMode.PAPER) {
      throw new CommandLine.ParameterException(cmd, "--proximal-point needs --mode paper: its data-dependent, "
          + "unclipped map is not covered by safe accounting (docs/errata.md#dp-mbcd-sensitivity; docs/threat-models.md#dp-mbcd-auxiliaries)");
    }
    BatchReduction reduction = o.batchReduction != null ? o.batchReduction : BatchReduction.MEAN;
    boolean softmax = softmaxOutput(cmd);
    int[] hidden = c.hidden != null ? c.hidden : cnn ? CNN_HIDDEN : HIDDEN;
    int channels = o.convChannels != null ? o.convChannels : CNN_CHANNELS;
    Checks.positive(cmd, "--conv-channels", channels);
    if (!cnn && o.convChannels != null) {
      throw new CommandLine.ParameterException(cmd, "--conv-channels applies to --model cnn only");
    }
    for (int w : hidden) {
      Checks.positive(cmd, "--hidden", w);
    }
    // The auxiliary store holds 2 x (sum of widths + 10) floats per training example (60,000 at most).
    Checks.mlpFits(cmd, 784, hidden, 10, 60_000, 2.0 * (Arrays.stream(hidden).asLongStream().sum() + 10));
    NoiseScheduleSpec schedule = schedule(cmd, k);
    String dataset = c.dataOptions.name(cmd);
    LabelledImages train = c.dataOptions.load(cmd, MnistSplit.TRAIN);
    LabelledImages test = c.dataOptions.load(cmd, MnistSplit.TEST);
    int n = c.dataOptions.trainSize(cmd, train.size(), b, "batch size " + b, "");
    DataSet data = train.toDataSet(IntStream.range(0, n).toArray(), DataType.FLOAT);
    if (o.budgetFromPaperClaim && (mode != DpMbcdMode.PAPER || c.budget == null)) {
      throw new CommandLine.ParameterException(cmd, "--budget-from-paper-claim needs --mode paper and --budget: it "
          + "stops on the paper's claim instead of a certified bound");
    }
    DpMbcdAccounting accounting = accounting(mode);
    TrainCommand.ProgressDisplay progress = new TrainCommand.ProgressDisplay(cmd.getErr(), n / b);
    DpMbcdTrainer trainer;
    try {
      OutputLoss loss = softmax ? OutputLoss.SOFTMAX_CROSS_ENTROPY : OutputLoss.SQUARED;
      trainer = DpMbcdTrainer.builder(cnn ? ModelZoo.liftedCnn(c.seed, loss, channels, hidden)
              : ModelZoo.liftedMlp(c.seed, loss, widths(hidden)),
              data.getFeatures(), data.getLabels())
          .listener((epoch, batch, temperature) -> progress.step())
          .batchSize(b).epochs(k).learningRate(eta).clipNorm(clip).activationNormBound(rho).inputNormBound(rho)
          .strongConvexity(mu).noiseSchedule(schedule.schedule()).accounting(accounting).batchReduction(reduction)
          .maxAuxiliaryBytes(MAX_AUXILIARY_BYTES)
          .blockStepRule(o.proximalPoint ? BlockStepRule.PROXIMAL_POINT : BlockStepRule.GRADIENT).build();
    } catch (IllegalArgumentException e) {
      throw new CommandLine.ParameterException(cmd, e.getMessage());
    }
    DpMbcdMechanism m = trainer.mechanism();
    // first line: a run without a certified epsilon says so before anything else
    LedgerReport.notCertifiedBecause(trainer.ledger()).ifPresent(out::println);
    // a SAFE ledger holds the paper's claim side by side, when its constants exist (the paper's L_F = |1 − η·ρ²| is
    // 0 at η·ρ² = 1); a PAPER run's ledger holds the paper's claim and, where they exist, the certified bounds
    if (mode == DpMbcdMode.SAFE) {
      accounting.noPaperClaimBecause(m).ifPresent(why -> cmd.getErr().println("dp4j: note: no paper's claim for "
          + "this run: " + why));
    }
    out.printf(Locale.ROOT, "dp4j train: DP-MBCD on %s (%d training images, %d batches of %d, %d dropped), lifted "
            + "%s (%s), %d epochs, eta %s, clip %s, rho %s%s, noise %s, %s steps on batch %s; ledger in %s "
            + "mode%n", dataset, n, m.numBatchesPerEpoch(), b, m.examplesDropped(),
        cnn ? cnnDescription(channels, hidden) : architecture(hidden) + " MLP", trainer.model().outputLoss().description(), k, eta,
        clip, rho, mu > 0 ? ", mu " + mu : "", m.scheduleDescription(),
        o.proximalPoint ? "proximal-point (paper's variant, unclipped)" : "clipped gradient",
        reduction == BatchReduction.SUM ? "sums (the paper's Eq. 17 as printed)" : "means", name(mode));
    if (o.accuracyEachEpoch) {
      cmd.getErr().println("dp4j: warning: --accuracy-each-epoch evaluates intermediate iterates; the hidden-state "
          + "epsilon assumes only the final blocks are released");
    }
    out.printf(Locale.ROOT, "hidden auxiliaries x_d, u_d: %.1f MB%n", trainer.auxiliaryBytes() / 1e6);
    out.flush();
    DataSet testSet = test.toDataSet(DataType.FLOAT);
    RowNormClip.clipInPlace(testSet.getFeatures(), m.activationNormBound(0));   // as the trainer's inputs
    List<Map<String, Object>> perEpoch = new ArrayList<>();
    Double accuracy = null;
    while (trainer.stopReason().isEmpty()) {
      int rowsBefore = trainer.ledger().rows().size();
      trainer.trainEpoch();
      progress.epochDone();
      List<LedgerRow> rows = trainer.ledger().rows();
      if (rows.size() == rowsBefore) {
        break;   // the budget refused the epoch's first step: no new row
      }
      LedgerRow row = rows.get(rows.size() - 1);
      Double claim = finite(row.paperClaim());
      Double epsilon = finite(row.lastIterate());
      Map<String, Object> e = new LinkedHashMap<>();
      e.put("epoch", row.epoch());
      e.put("epsilon", epsilon);
      e.put("certified", epsilon != null);
      e.put("notCertifiedBecause", epsilon != null ? null
          : LedgerReport.notCertifiedBecause(trainer.ledger()).orElse("no certified bound"));
      e.put("epsilonHiddenState", finite(row.hiddenState()));
      e.put("epsilonComposition", finite(row.composition()));
      e.put("epsilonPaperClaim", claim);
      String certified = row.lastIterate().map(g -> "certified, " + g.accountant()).orElse("NOT certified");
      StringBuilder line = new StringBuilder(String.format(Locale.ROOT, "epoch %d/%d: epsilon %s (%s) | paper's "
              + "claim %s (NOT certified) at delta %s (only the last iterate released, replace-one), %d updates",
          row.epoch(), k, format(epsilon), certified, format(claim), c.delta, row.steps()));
      if (o.accuracyEachEpoch || trainer.stopReason().isPresent()) {
        accuracy = Accuracy.of(trainer.releasedNetwork(), testSet);
        e.put("testAccuracy", accuracy);
        line.append(String.format(Locale.ROOT, ", test accuracy %.4f", accuracy));
      }
      perEpoch.add(e);
      out.println(line);
      out.flush();
    }
    TrainingResult result = trainer.result();
    if (accuracy == null) {
      accuracy = Accuracy.of(result.network(), testSet);
    }
    out.println(LedgerReport.summary(result.ledger()));
    out.printf(Locale.ROOT, "stopped: %s after %d updates; final test accuracy %.4f%n",
        name(result.stopReason()), result.steps(), accuracy);
    RunOutputs outputs = new RunOutputs(cmd.getErr());
    if (c.files.report != null) {
      RunReport r = report(dataset, mode, m, result, accuracy, perEpoch, trainer.auxiliaryBytes());
      outputs.write(c.files.report, () -> r.writeJson(c.files.report));
    }
    outputs.write(c.csv, () -> LedgerReport.writeCsv(c.csv, result.ledger()));
    outputs.write(c.files.chart, () -> LedgerChart.writePng(c.files.chart, result.ledger(), "DP-MBCD "
        + c.model.toLowerCase(Locale.ROOT) + " on " + dataset));
    return outputs.exitCode();
  }

  /**
   * The JSON report: the ledger's fields ({@link LedgerReport#toMap}: certified ε, composition, hidden state, the
   * paper's claim, which a SAFE ledger holds side by side) plus the DP-MBCD hyperparameters.
   */
  private RunReport report(String dataset, DpMbcdMode mode, DpMbcdMechanism m,
      TrainingResult result, double accuracy, List<Map<String, Object>> perEpoch, long auxiliaryBytes) {
    boolean cnn = c.model.equalsIgnoreCase("cnn");
    int[] hidden = c.hidden != null ? c.hidden : cnn ? CNN_HIDDEN : HIDDEN;
    RunReport.Builder r = RunReport.builder("dp4j train").algorithm("dp-mbcd").dataset(dataset)
        .relation(m.neighbouringRelation()).ledger(result.ledger()).testAccuracy(accuracy).perEpoch(perEpoch)
        .field("model", c.model.toLowerCase(Locale.ROOT))
        .field("architecture", cnn ? cnnDescription(o.convChannels != null ? o.convChannels : CNN_CHANNELS, hidden)
            : architecture(hidden))
        .field("batchReduction", m.batchReduction().name().toLowerCase(Locale.ROOT))
        .field("outputLoss", m.outputLoss().name().toLowerCase(Locale.ROOT)).field("auxiliaryBytes", auxiliaryBytes)
        .field("mode", name(mode)).field("epochs", m.epochs()).field("noiseSchedule", m.scheduleDescription())
        .field("learningRate", m.learningRate()).field("clipNorm", m.clipNorm()).field("rho", m.activationNormBound(0))
        .field("strongConvexity", m.strongConvexity()).field("blockStep", o.proximalPoint ? "proximal-point" : "gradient")
        .field("batchSize", m.batchSize()).field("trainingRecords", m.examplesUsed() + m.examplesDropped())
        .field("recordsUsed", m.examplesUsed()).field("stopReason", name(result.stopReason()));
    return r.build();
  }

  private static Double finite(Optional<PrivacyGuarantee> g) {
    return g.filter(PrivacyGuarantee::isFinite).map(PrivacyGuarantee::epsilon).orElse(null);
  }

  private static String format(Double v) {
    return v == null ? "n/a" : String.format(Locale.ROOT, "%.4g", v);
  }

  private static String name(StopReason reason) {
    return reason == StopReason.BUDGET ? "budget" : "completed";
  }

  private static String name(DpMbcdMode mode) {
    return mode.name().toLowerCase(Locale.ROOT);
  }

  private DpMbcdAccounting accounting(DpMbcdMode mode) {
    DpMbcdAccounting.Builder a = DpMbcdAccounting.builder().mode(mode).delta(c.delta)
        .budgetFromPaperClaim(o.budgetFromPaperClaim).paperClaimAlongside(true);
    if (c.budget != null) {
      a.budget(c.budget);
    }
    return a.build();
  }

  private void validate(CommandLine cmd, int k, int b, double clip, double eta, double rho, double mu) {
    if (c.epsilon != null || c.noiseMultiplier != null || c.momentum != null) {
      throw new CommandLine.ParameterException(cmd, "--epsilon, --noise-multiplier and --momentum are DP-SGD "
          + "options; dp-mbcd takes --noise-variance or --noise-schedule (and --budget)");
    }
    if (!c.model.equalsIgnoreCase("mlp") && !c.model.equalsIgnoreCase("cnn")) {
      throw new CommandLine.ParameterException(cmd, "--algorithm dp-mbcd supports --model mlp or cnn, was '"
          + c.model + "'");
    }
    Checks.delta(cmd, c.delta);
    Checks.positive(cmd, "--epochs", k);
    Checks.positive(cmd, "--batch-size", b);
    Checks.positive(cmd, "--clip-norm", clip);
    Checks.positive(cmd, "--learning-rate", eta);
    Checks.positive(cmd, "--rho", rho);
    if (!(mu >= 0 && Double.isFinite(mu))) {
      throw new CommandLine.ParameterException(cmd, "--strong-convexity must be finite and >= 0, was " + mu);
    }
    if (c.budget != null) {
      Checks.positive(cmd, "--budget", c.budget);
    }
  }

  private NoiseScheduleSpec schedule(CommandLine cmd, int epochs) {
    if ((o.noiseVariance == null) == (o.noiseSchedule == null)) {
      throw new CommandLine.ParameterException(cmd, "dp-mbcd needs exactly one of --noise-variance and "
          + "--noise-schedule");
    }
    if (o.noiseVariance != null) {
      Checks.positive(cmd, "--noise-variance", o.noiseVariance);
      return new NoiseScheduleSpec(NoiseTemperatureSchedule.constant(o.noiseVariance),
          "constant:" + o.noiseVariance);
    }
    return NoiseScheduleSpec.parse(cmd, o.noiseSchedule, epochs);
  }

  /** 784, the hidden widths, 10. */
  private static int[] widths(int[] hidden) {
    int[] w = new int[hidden.length + 2];
    w[0] = 784;
    System.arraycopy(hidden, 0, w, 1, hidden.length);
    w[w.length - 1] = 10;
    return w;
  }

  private static String architecture(int[] hidden) {
    StringBuilder a = new StringBuilder("784");
    for (int w : hidden) {
      a.append('-').append(w);
    }
    return a.append("-10").toString();
  }

  private boolean softmaxOutput(CommandLine cmd) {
    if (o.output == null || o.output.equals("mse")) {
      return false;
    }
    if (o.output.equals("softmax")) {
      return true;
    }
    throw new CommandLine.ParameterException(cmd, "--output must be mse or softmax, was " + o.output);
  }

  static final int CNN_CHANNELS = 6;
  static final int[] CNN_HIDDEN = {64};

  static String cnnDescription(int channels, int[] hidden) {
    StringBuilder d = new StringBuilder("CNN conv5x5/2 (" + channels + ") - avg-pool 2");
    for (int w : hidden) {
      d.append(" - dense ").append(w);
    }
    return d.append(" - 10").toString();
  }
}
