package org.dp4j.samples.cli;

import java.util.concurrent.Callable;
import org.dp4j.accounting.PrivacyGuarantee;
import org.dp4j.accounting.SampledGaussianAccountant;
import org.dp4j.accounting.SampledGaussianMechanism;
import org.dp4j.accounting.event.DpEvent;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code dp4j account sgm}: ε of DP-SGD with Poisson sampling (sampled Gaussian, RDP composition). */
@Command(name = "sgm", mixinStandardHelpOptions = true,
    description = {"Privacy of DP-SGD with Poisson sampling, composed over all steps: exact sampled-Gaussian RDP "
        + "(--accountant rdp, the default) or privacy loss distributions (--accountant pld, tighter).",
        "Neighbours: add/remove one record. Threat model: all iterates released.",
        "Example: dp4j account sgm --epochs 60 --dataset-size 60000 --batch-size 256 "
            + "--noise-multiplier 1.1 --delta 1e-5"})
final class SgmAccountCommand implements Callable<Integer> {
  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  @Option(names = "--noise-multiplier", paramLabel = "Z", required = true,
      description = "Noise multiplier z = noise std / clip norm, > 0.")
  double noiseMultiplier;

  @Mixin
  SgmOptions sgm;

  @Override
  public Integer call() {
    CommandLine cmd = spec.commandLine();
    Checks.positive(cmd, "--noise-multiplier", noiseMultiplier);
    SgmScheduleOptions.Schedule s = sgm.schedule(cmd);
    AccountingOptions accounting = sgm.accounting;
    double delta = accounting.delta(cmd);
    GuaranteeReport report;
    if (accounting.pld(cmd)) {
      report = new GuaranteeReport(accounting.pldAccountant(cmd)
          .compose(DpEvent.sampledGaussian(s.samplingRate(), noiseMultiplier).times(s.steps()))
          .epsilon(delta));
    } else {
      var conversion = accounting.conversion(cmd);
      SampledGaussianAccountant accountant = new SampledGaussianAccountant(accounting.orders(cmd))
          .compose(new SampledGaussianMechanism(s.samplingRate(), noiseMultiplier), s.steps());
      PrivacyGuarantee g = accountant.guarantee(delta, conversion);
      if (!g.bound().isFinite()) {
        throw new CommandLine.ParameterException(cmd, noFiniteEpsilon(g, delta));
      }
      report = new GuaranteeReport(g, conversion);
    }
    s.annotate(report)
        .mechanism("samplingRate", s.samplingRate())
        .mechanism("noiseMultiplier", noiseMultiplier)
        .mechanism("steps", s.steps())
        .print(accounting.json, spec.qualifiedName(), "DP-SGD, sampled Gaussian mechanism, composition accounting", cmd.getOut(),
            cmd.getErr());
    return 0;
  }

  /** Why no order gave a finite ε: an RDP beyond the doubles (z too small) or only orders ≤ 1.01. */
  private String noFiniteEpsilon(PrivacyGuarantee g, double delta) {
    boolean rdpInfinite = java.util.Arrays.stream(g.rdp().values()).allMatch(Double::isInfinite);
    return "no finite epsilon at delta " + delta + ": " + (rdpInfinite
        ? "with --noise-multiplier " + noiseMultiplier + " the Renyi divergence of one step exceeds the largest "
            + "double at every order (it grows like alpha/(2 z^2)); use a larger --noise-multiplier"
        : "no order in --orders converts to a finite epsilon; use orders above 1.01");
  }
}
