package org.dp4j.samples.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;

/** Runs the dp4j command line in-process and captures exit status, stdout and stderr. */
record CliRun(int status, String out, String err) {
  static CliRun of(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int status = Dp4jCommand.execute(new PrintWriter(out, true), new PrintWriter(err, true), args);
    return new CliRun(status, out.toString(), err.toString());
  }

  /** The bad-input contract: exit 2, nothing on stdout, one line on stderr naming {@code mentioned}, no trace. */
  void assertRefusedNaming(String mentioned) {
    assertThat(status).as(err).isEqualTo(2);
    assertThat(err.strip().lines().count()).as(err).isEqualTo(1);
    assertThat(err).contains(mentioned.trim()).doesNotContain("Exception", "\tat ");
    assertThat(out).isEmpty();
  }
}
