package org.dp4j.samples.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;

/** train and audit take their data and report-file options from the same mixins, so they parse and refuse alike. */
class SharedOptionsTest {
  private static final List<String> SHARED = List.of("--dataset", "--data-dir", "--train-size", "--report", "--chart");

  @Test
  void trainAndAuditDeclareTheSharedOptionsOnce() {
    CommandLine cli = new CommandLine(new Dp4jCommand());
    for (String command : List.of("train", "audit")) {
      var spec = cli.getSubcommands().get(command).getCommandSpec();
      for (String name : SHARED) {
        OptionSpec option = spec.findOption(name);
        assertThat(option).as(command + " " + name).isNotNull();
        Class<?> declaring = ((java.lang.reflect.Field) option.userObject()).getDeclaringClass();
        assertThat(declaring).as(command + " " + name)
            .isIn(MnistDataOptions.class, ReportFileOptions.class);
      }
      assertThat(spec.findOption("--dataset").defaultValue()).isEqualTo("mnist");
    }
  }

  @Test
  void bothRefuseAnUnknownDataSetTheSameWayBeforeReadingAnyData() {
    CliRun train = CliRun.of("train", "--dataset", "cifar", "--noise-multiplier", "1");
    CliRun audit = CliRun.of("audit", "--dataset", "cifar", "--noise-multiplier", "1");
    train.assertRefusedNaming("--dataset must be mnist or fashion-mnist, was 'cifar'");
    audit.assertRefusedNaming("--dataset must be mnist or fashion-mnist, was 'cifar'");
    assertThat(train.err()).isEqualTo(audit.err());
  }
}
