package org.dp4j.samples.cli;

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
}
