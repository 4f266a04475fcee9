package org.dp4j.samples.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.dp4j.accounting.hiddenstate.PabiAccountant;
import org.junit.jupiter.api.Test;
import org.nd4j.linalg.factory.Nd4j;

class FailuresTest {

  @Test
  void dp4jsOwnPreconditionIsARefusal() {
    IllegalArgumentException e = thrown(() -> PabiAccountant.builder().datasetSize(10).batchSize(3).build());
    assertThat(e).hasMessageContaining("must divide");
    assertThat(Failures.isRefusal(e)).isTrue();
  }

  @Test
  void anExceptionFromInsideNd4jIsABug() {
    IllegalArgumentException e = thrown(() -> Nd4j.create(2, 3).getRow(5));
    assertThat(e.getStackTrace()[0].getClassName()).doesNotStartWith("org.dp4j.");
    assertThat(Failures.isRefusal(e)).isFalse();
  }

  @Test
  void anExceptionFromTheJdkIsABug() {
    IllegalArgumentException e = thrown(() -> Integer.parseInt("x", 99));
    assertThat(Failures.isRefusal(e)).isFalse();
  }

  @Test
  void theCommandLineReportsABugAsAnInternalErrorWithItsTrace() {
    StackTraceElement nd4j = new StackTraceElement("org.nd4j.linalg.api.ndarray.BaseNDArray", "mmul", "x", 1);
    StackTraceElement dp4j = new StackTraceElement("org.dp4j.clipping.PerExampleClipper", "clippedSum", "y", 2);
    IllegalArgumentException bug = new IllegalArgumentException("shapes do not match");
    bug.setStackTrace(new StackTraceElement[] {nd4j, dp4j});
    IllegalArgumentException refusal = new IllegalArgumentException("layer 2: refused");
    refusal.setStackTrace(new StackTraceElement[] {
        new StackTraceElement("org.dp4j.internal.guava.base.Preconditions", "checkArgument", "z", 3), dp4j});
    assertThat(Failures.isRefusal(bug)).isFalse();
    assertThat(Failures.isRefusal(refusal)).isTrue();
  }

  private static IllegalArgumentException thrown(Runnable r) {
    try {
      r.run();
    } catch (IllegalArgumentException e) {
      return e;
    }
    throw new AssertionError("no IllegalArgumentException");
  }
}
