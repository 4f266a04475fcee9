package org.dp4j.samples.cli;

import java.util.concurrent.Callable;
import org.dp4j.accounting.PrivacyGuarantee;
import org.dp4j.accounting.SampledGaussianAccountant;
import org.dp4j.accounting.SampledGaussianMechanism;
import org.dp4j.accounting.SgmCalibration;
import org.dp4j.accounting.pld.PldCalibration;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code dp4j calibrate sgm}: the smallest noise multiplier meeting a target ε. */
@Command(name = "sgm", mixinStandardHelpOptions = true,
    description = {"Smallest DP-SGD noise multiplier z whose epsilon (sampled Gaussian, composition) is at most "
        + "the target; bisection to 1e-6 relative (rdp) or 1e-4 relative on the certified bound (pld), always "
        + "rounded to the private side.",
        "Example: dp4j calibrate sgm --target-epsilon 3 --delta 1e-5 --epochs 60 --dataset-size 60000 "
            + "--batch-size 256"})
final class SgmCalibrateCommand implements Callable<Integer> {
  /** The largest delta calibration accepts (exclusive); see {@link #call}. */
  static final double MAX_DELTA = 0.1;

  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  @Option(names = "--target-epsilon", paramLabel = "E", required = true, description = "Target epsilon > 0.")
  double targetEpsilon;

  @Mixin
  SgmOptions sgm;

  @Override
  public Integer call() {
    CommandLine cmd = spec.commandLine();
    Checks.positive(cmd, "--target-epsilon", targetEpsilon);
    SgmScheduleOptions.Schedule s = sgm.schedule(cmd);
    AccountingOptions accounting = sgm.accounting;
    double delta = accounting.delta(cmd);
    if (delta >= MAX_DELTA) {
      // Releasing each record in the clear with probability delta is (0, delta)-DP (Dwork & Roth 2014, Sec. 2.3):
      // at such a delta no noise is needed and the calibration would be meaningless (the RDP conversion reports
      // epsilon 0 at an arbitrary noise, the PLD grid overflows).
      throw new CommandLine.ParameterException(cmd, "--delta must be < " + MAX_DELTA + " to calibrate noise, was "
          + delta + ": publishing each record with probability delta is already (0, delta)-DP, so no noise is "
          + "needed and no guarantee remains; use delta well below 1/N (N records), e.g. 1e-5");
    }
    GuaranteeReport report;
    double noise;
    if (accounting.pld(cmd)) {
      PldCalibration.Result c = PldCalibration.noiseMultiplier(accounting.pldAccountant(cmd), targetEpsilon, delta,
          s.samplingRate(), s.steps());
      noise = c.noiseMultiplier();
      report = new GuaranteeReport(c.achieved());
    } else {
      var conversion = accounting.conversion(cmd);
      var orders = accounting.orders(cmd);
      SgmCalibration.Calibration c =
          SgmCalibration.noiseMultiplier(targetEpsilon, delta, s.samplingRate(), s.steps(), orders, conversion);
      noise = c.noiseMultiplier();
      PrivacyGuarantee g = new SampledGaussianAccountant(orders)
          .compose(new SampledGaussianMechanism(s.samplingRate(), noise), s.steps())
          .guarantee(delta, conversion);
      report = new GuaranteeReport(g, conversion);
    }
    s.annotate(report)
        .extra("noiseMultiplier", noise)
        .extra("targetEpsilon", targetEpsilon)
        .mechanism("samplingRate", s.samplingRate())
        .mechanism("steps", s.steps())
        .print(accounting.json, spec.qualifiedName(), "DP-SGD noise calibration (sampled Gaussian, composition accounting)",
            cmd.getOut(), cmd.getErr());
    return 0;
  }
}
