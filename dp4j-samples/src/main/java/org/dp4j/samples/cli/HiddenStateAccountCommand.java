package org.dp4j.samples.cli;

import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.Callable;
import org.dp4j.InvalidSettingException;
import org.dp4j.accounting.Orders;
import org.dp4j.accounting.PrivacyGuarantee;
import org.dp4j.accounting.RdpConversion;
import org.dp4j.accounting.hiddenstate.HiddenStateAccountant;
import picocli.CommandLine;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.OptionSpec;

/**
 * The shape of every {@code dp4j account <hidden-state accountant>} command: build the accountant from the
 * flags (a configuration the theorem refuses is bad input: exit 2 with the theorem's message), convert at
 * --delta over --orders, and print the report with the flags the user gave as the mechanism.
 *
 * @param <A> the accountant type
 */
abstract class HiddenStateAccountCommand<A extends HiddenStateAccountant> implements Callable<Integer> {
  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  @Mixin
  AccountingOptions accounting;

  /** The accountant for the flags; flag combinations are checked here, theorem conditions by the accountant. */
  abstract A accountant(CommandLine cmd, Orders orders);

  /** The report's title line. */
  abstract String title();

  /** Why the accountant's bound is a paper's claim rather than a guarantee (e.g. a PAPER mode), if it is. */
  java.util.Optional<String> notCertifiedBecause(A accountant) {
    return java.util.Optional.empty();
  }

  /** Adds accountant-specific results (μ, per-epoch rows, ...) to the report. */
  void describe(GuaranteeReport report, A accountant, PrivacyGuarantee guarantee) {}

  @Override
  public Integer call() {
    CommandLine cmd = spec.commandLine();
    Orders orders = accounting.orders(cmd);
    RdpConversion conversion = accounting.conversion(cmd);
    double delta = accounting.delta(cmd);
    A accountant;
    try {
      accountant = accountant(cmd, orders);
    } catch (InvalidSettingException e) {
      throw new CommandLine.ParameterException(cmd, spec.name() + ": configuration refused: " + e.getMessage());
    }
    PrivacyGuarantee guarantee = accountant.guarantee(delta, orders, conversion);
    GuaranteeReport report = new GuaranteeReport(guarantee, conversion);
    notCertifiedBecause(accountant).ifPresent(report::notCertified);
    givenFlags(report);
    describe(report, accountant, guarantee);
    report.print(accounting.json, spec.qualifiedName(), title(), cmd.getOut(), cmd.getErr());
    return 0;
  }

  /** Every flag the user gave, except the accounting ones, as a mechanism parameter named after the flag. */
  private void givenFlags(GuaranteeReport report) {
    Set<OptionSpec> shared = new HashSet<>();
    spec.mixins().values().forEach(mixin -> shared.addAll(mixin.options()));
    CommandLine.ParseResult parsed = spec.commandLine().getParseResult();
    for (OptionSpec option : spec.options()) {
      if (!shared.contains(option) && !option.usageHelp() && !option.versionHelp() && parsed.hasMatchedOption(option)) {
        report.mechanism(option.longestName().replaceFirst("^-+", ""), option.getValue());
      }
    }
  }

  /** Refuses a flag that the chosen variant does not use. */
  static void unused(CommandLine cmd, Object value, String flag, String because) {
    if (value != null) {
      throw new CommandLine.ParameterException(cmd, flag + " is not used " + because);
    }
  }

  /** Requires a flag that the chosen variant needs. */
  static <T> T needed(CommandLine cmd, T value, String flag, String because) {
    if (value == null) {
      throw new CommandLine.ParameterException(cmd, "missing " + flag + ", needed " + because);
    }
    return value;
  }
}
