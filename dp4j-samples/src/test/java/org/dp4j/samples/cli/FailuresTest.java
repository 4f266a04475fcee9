package org.dp4j.samples.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.dp4j.InvalidSettingException;
import org.dp4j.accounting.hiddenstate.PabiAccountant;
import org.dp4j.io.OutputPathException;
import org.dp4j.updater.DpSgd;
import org.junit.jupiter.api.Test;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.learning.config.Sgd;

class FailuresTest {

  @Test
  void dp4jsOwnPreconditionIsARefusal() {
    IllegalArgumentException e = thrown(() -> PabiAccountant.builder().datasetSize(10).batchSize(3).build());
    assertThat(e).hasMessageContaining("must divide");
    assertThat(e).isInstanceOf(InvalidSettingException.class);
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
  void aPlainIllegalArgumentExceptionFromDp4jCodeIsABug() {
    // The type decides, not the frame: an IllegalArgumentException thrown by dp4j code without the refusal type
    // (a consistency check, a bug) is an internal error even though dp4j threw it.
    StackTraceElement dp4j = new StackTraceElement("org.dp4j.clipping.PerExampleClipper", "clippedSum", "y", 2);
    IllegalArgumentException bug = new IllegalArgumentException("shapes do not match");
    bug.setStackTrace(new StackTraceElement[] {dp4j});
    InvalidSettingException refusal = new InvalidSettingException("layer 2: refused");
    refusal.setStackTrace(new StackTraceElement[] {
        new StackTraceElement("org.nd4j.linalg.factory.Nd4j", "create", "z", 3), dp4j});
    assertThat(Failures.isRefusal(bug)).isFalse();
    assertThat(Failures.isRefusal(refusal)).isTrue();
  }

  @Test
  void dp4jsSpecificRefusalsAreRefusals() {
    assertThat(Failures.isRefusal(new OutputPathException("--report x: not writable"))).isTrue();
    IllegalArgumentException e = thrown(() -> DpSgd.builder().clipNorm(-1).noiseMultiplier(1).expectedBatchSize(8)
        .baseUpdater(new Sgd(0.1)).build());
    assertThat(e).isInstanceOf(InvalidSettingException.class).hasMessageContaining("-1");
  }

  @Test
  void theCommandLineReportsARefusalAsBadInput() {
    CliRun r = CliRun.of("account", "pabi", "--dataset-size", "10", "--batch-size", "3", "--epochs", "4",
        "--lipschitz", "1", "--smoothness", "1", "--learning-rate", "0.1", "--sigma", "1", "--delta", "1e-5");
    assertThat(r.status()).as(r.err()).isEqualTo(2);
    assertThat(r.err()).contains("must divide").doesNotContain("internal error", "\tat ");
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
