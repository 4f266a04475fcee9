package org.dp4j.samples.cli;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.dp4j.accounting.Orders;
import org.dp4j.accounting.PrivacyGuarantee;
import org.dp4j.accounting.RdpCurve;
import org.dp4j.accounting.hiddenstate.DpMbcdAccountant;
import org.dp4j.accounting.hiddenstate.DpMbcdConfig;
import org.dp4j.accounting.hiddenstate.DpMbcdMode;
import org.dp4j.accounting.hiddenstate.NoiseTemperatureSchedule;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code dp4j account dp-mbcd}: hidden-state RDP of DP-MBCD (Chen &amp; Liu 2025, Thm 4.6 as the corrected step
 * recursion of docs/errata.md#dp-mbcd-step-recursion), with the LSI constant and cumulative RDP after every epoch.
 */
@Command(name = "dp-mbcd", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"Hidden-state privacy of DP-MBCD (Chen & Liu 2025, Thm 4.6 / Cor. 4.5 / Lemma C.3, corrected"
        + " step recursion of docs/errata.md#dp-mbcd-step-recursion).",
        "Each released block gets theta <- Prox(theta - eta*grad + N(0, 2*eta*o*I)) once per batch; one secret"
            + " permutation split into N = floor(n/b) batches, visited in the same order every epoch.",
        "Neighbours: replace one record. Threat model: only the last iterate released.",
        "L_F, L_T and S_g are asserted by you (for ReLU networks nobody can check them): the report is"
            + " conditional on them.",
        "Example: dp4j account dp-mbcd --dataset-size 4 --batch-size 2 --epochs 2 --learning-rate 0.1"
            + " --noise-variance 0.01 --lipschitz-f 0.9 --lipschitz-t 1 --sensitivity 1 --orders 2 --delta 1e-5"})
final class DpMbcdAccountCommand extends HiddenStateAccountCommand<DpMbcdAccountant> {
  @Option(names = {"--dataset-size", "-n"}, paramLabel = "N", required = true, description = "n, training records.")
  long datasetSize;

  @Option(names = {"--batch-size", "-b"}, paramLabel = "B", required = true,
      description = "b, batch size; N = floor(n/b) batches per epoch, the remainder is dropped.")
  int batchSize;

  @Option(names = {"--epochs", "-K"}, paramLabel = "K", required = true, description = "K, whole epochs.")
  int epochs;

  @Option(names = {"--learning-rate", "--eta"}, paramLabel = "ETA", required = true,
      description = "eta, the step size of every block update.")
  double learningRate;

  @Option(names = {"--noise-variance", "-o"}, paramLabel = "O",
      description = "o, constant noise temperature: the block gets N(0, 2*eta*o*I) (a variance, not a noise"
          + " multiplier). Alternative to --noise-schedule.")
  Double noiseVariance;

  @Option(names = "--noise-schedule", paramLabel = "KIND:VALUES", description = NoiseScheduleSpec.HELP)
  String noiseSchedule;

  @Option(names = {"--lipschitz-f", "--LF"}, paramLabel = "LF", required = true,
      description = "L_F, Lipschitz constant of the gradient step theta - eta*grad f (Lemma 4.1), > 0.")
  double lipschitzF;

  @Option(names = {"--lipschitz-t", "--LT"}, paramLabel = "LT", required = true,
      description = "L_T, Lipschitz constant of the prox (Lemma 4.2), in (0, 1].")
  double lipschitzT;

  @Option(names = {"--sensitivity", "--SG"}, paramLabel = "SG", required = true,
      description = "S_g, largest l2 difference of two records' per-example block gradients (2C under clipping"
          + " to C).")
  double sensitivity;

  @Option(names = {"--blocks", "-P"}, paramLabel = "P", defaultValue = "1",
      description = "P, released blocks with these constants; RDP is summed over blocks (default 1).")
  int blocks;

  @Option(names = "--mode", paramLabel = "safe|paper", defaultValue = "safe",
      description = "safe (default): contraction exponent 1; paper: 1/L_T^2 as printed (docs/errata.md#dp-mbcd-lipschitz-t).")
  DpMbcdMode mode;

  /** Epochs shown in the per-epoch table: every epoch up to {@value #ALL_ROWS_UP_TO}, then a summary. */
  static final int ALL_ROWS_UP_TO = 20;
  /** Growth factor between summarised rows: about 10 rows per decade of epochs. */
  private static final double ROW_GROWTH = 1.25;

  /** The epochs of the table, the RDP after each, and the LSI constant of the iterate then (same in every block). */
  private int[] shown;
  private final List<RdpCurve> curves = new ArrayList<>();
  private double[] lsi;

  @Override
  DpMbcdAccountant accountant(CommandLine cmd, Orders orders) {
    Checks.positive(cmd, "--epochs", epochs);
    if (blocks < 1) {
      throw new CommandLine.ParameterException(cmd, "--blocks must be >= 1, was " + blocks);
    }
    requireMemory(cmd);
    DpMbcdConfig.Builder builder = DpMbcdConfig.builder().datasetSize(datasetSize).batchSize(batchSize)
        .stepSize(learningRate).noiseTemperature(schedule(cmd)).mode(mode);
    for (int p = 0; p < blocks; p++) {
      builder.block("W" + p, lipschitzF, lipschitzT, sensitivity);
    }
    DpMbcdAccountant accountant = new DpMbcdAccountant(builder.build());
    shown = shownEpochs(epochs);
    int at = 0;
    for (int k : shown) {
      curves.add(accountant.advanceEpochs(k - at).rdp(orders));
      at = k;
    }
    lsi = accountant.ledgers().get(0).lsiConstantsAfterEpochs();
    return accountant;
  }

  /**
   * The epochs of the per-epoch table: all of them up to {@value #ALL_ROWS_UP_TO}, then about ten per decade and
   * the last, so that the table and the memory it takes do not grow with --epochs (about 100 rows at most).
   */
  static int[] shownEpochs(int epochs) {
    List<Integer> rows = new ArrayList<>();
    for (int k = 1; k <= Math.min(epochs, ALL_ROWS_UP_TO); k++) {
      rows.add(k);
    }
    double next = ALL_ROWS_UP_TO * ROW_GROWTH;
    while (next < epochs) {
      int k = (int) next;
      if (k > rows.get(rows.size() - 1)) {
        rows.add(k);
      }
      next *= ROW_GROWTH;
    }
    if (rows.get(rows.size() - 1) != epochs) {
      rows.add(epochs);
    }
    return rows.stream().mapToInt(Integer::intValue).toArray();
  }

  /**
   * Each of the P block ledgers keeps O(N + K) doubles (N = n/b batches, K epochs): refuses, before allocating
   * them, a run that would not fit in half of the heap.
   */
  private void requireMemory(CommandLine cmd) {
    if (batchSize < 1 || datasetSize < batchSize) {
      return; // the configuration's own checks refuse these with their message
    }
    long budget = Runtime.getRuntime().maxMemory() / 2;
    double bytes = 8.0 * blocks * (4.0 * (datasetSize / batchSize) + epochs + 16);
    if (bytes > budget) {
      throw new CommandLine.ParameterException(cmd, String.format(Locale.ROOT, "--blocks %d x (4 x %d "
              + "batches + --epochs %d) needs about %.0f MB for the per-block ledgers, more than the %d MB this run "
              + "allows (half of the Java heap, -Xmx); use fewer blocks, fewer epochs or a larger batch, or raise -Xmx",
          blocks, datasetSize / batchSize, epochs, bytes / (1 << 20), budget >> 20));
    }
  }

  private NoiseTemperatureSchedule schedule(CommandLine cmd) {
    if ((noiseVariance == null) == (noiseSchedule == null)) {
      throw new CommandLine.ParameterException(cmd, "give exactly one of --noise-variance and --noise-schedule");
    }
    if (noiseVariance != null) {
      Checks.positive(cmd, "--noise-variance", noiseVariance);
      return NoiseTemperatureSchedule.constant(noiseVariance);
    }
    return NoiseScheduleSpec.parse(cmd, noiseSchedule, epochs).schedule();
  }

  /** PAPER mode reproduces the paper's accounting: reported as the paper's claim. */
  @Override
  java.util.Optional<String> notCertifiedBecause(DpMbcdAccountant accountant) {
    return accountant.config().notCertifiedBecause();
  }

  @Override
  String title() {
    return "DP-MBCD, hidden-state accounting (Chen & Liu 2025)";
  }

  @Override
  void describe(GuaranteeReport report, DpMbcdAccountant accountant, PrivacyGuarantee guarantee) {
    RdpCurve last = guarantee.rdp();
    int at = 0;
    while (at < last.size() - 1 && last.order(at) != guarantee.bound().order()) {
      at++;
    }
    List<Map<String, Object>> perEpoch = new ArrayList<>();
    List<String> lines = new ArrayList<>();
    for (int i = 0; i < shown.length; i++) {
      int k = shown[i];
      Map<String, Object> row = new LinkedHashMap<>();
      row.put("epoch", k);
      row.put("lsiConstant", lsi[k - 1]);
      row.put("rdp", Arrays.stream(curves.get(i).values()).mapToObj(GuaranteeReport::finiteOrNull).toList());
      perEpoch.add(row);
      lines.add(String.format("after epoch %d: LSI constant c = %.6g, RDP at order %s = %.6g", k, lsi[k - 1],
          last.order(at), curves.get(i).value(at)));
    }
    if (shown.length < epochs) {
      lines.add(String.format("(%d of %d epochs shown: every epoch up to %d, then about ten per decade, and the "
          + "last)", shown.length, epochs, ALL_ROWS_UP_TO));
    }
    report.detail("perEpoch", perEpoch, lines);
  }
}
