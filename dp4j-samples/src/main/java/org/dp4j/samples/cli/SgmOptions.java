package org.dp4j.samples.cli;

import picocli.CommandLine;
import picocli.CommandLine.Mixin;

/**
 * The options both {@code sgm} commands ({@code dp4j account sgm}, {@code dp4j calibrate sgm}) take: the DP-SGD
 * schedule ({@link SgmScheduleOptions}) and the accounting options ({@link AccountingOptions}).
 */
final class SgmOptions {
  @Mixin
  SgmScheduleOptions schedule;

  @Mixin
  AccountingOptions accounting;

  /** The resolved schedule; see {@link SgmScheduleOptions#resolve}. */
  SgmScheduleOptions.Schedule schedule(CommandLine cmd) {
    return schedule.resolve(cmd);
  }
}
