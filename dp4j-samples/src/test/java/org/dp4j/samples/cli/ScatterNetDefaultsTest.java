package org.dp4j.samples.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * The defaults of {@code dp4j train --features scatternet} per data set and model, against Tramèr &amp; Boneh 2021's
 * published ScatterNet settings (batch, learning rate; momentum 0.9, clip 0.1) and the README's measured MNIST
 * linear setting.
 */
class ScatterNetDefaultsTest {
  private static TrainDefaults defaults(String... args) {
    TrainCommand t = new TrainCommand();
    CommandLine cmd = new CommandLine(t);
    cmd.parseArgs(args);
    return ScatterNetRun.requested(cmd, t.featureOptions, t).defaults();
  }

  @Test
  void linearDefaultsPerDataSet() {
    TrainDefaults mnist = defaults("--features", "scatternet", "--model", "linear", "--dataset", "mnist");
    assertThat(new double[] {mnist.batchSize(), mnist.learningRate(), mnist.epochs()})
        .containsExactly(2048, 4.0, 40);
    TrainDefaults fashion = defaults("--features", "scatternet", "--model", "linear", "--dataset", "fashion-mnist");
    assertThat(new double[] {fashion.batchSize(), fashion.learningRate(), fashion.epochs()})
        .containsExactly(8192, 16.0, 40);
    // Tramèr & Boneh scale the linear model's learning rate with the batch: lr = batch / 512
    assertThat(mnist.learningRate() * 512).isEqualTo(mnist.batchSize());
    assertThat(fashion.learningRate() * 512).isEqualTo(fashion.batchSize());
    for (TrainDefaults d : new TrainDefaults[] {mnist, fashion}) {
      assertThat(d.momentum()).isEqualTo(0.9);
      assertThat(d.clipNorm()).isEqualTo(0.1);
    }
  }

  @Test
  void cnnDefaultsAreTramerAndBonehs() {
    TrainDefaults mnist = defaults("--features", "scatternet", "--model", "cnn");
    assertThat(new double[] {mnist.batchSize(), mnist.learningRate(), mnist.epochs(), mnist.momentum(),
        mnist.clipNorm()}).containsExactly(1024, 1.0, 22, 0.9, 0.1);
    TrainDefaults fashion = defaults("--features", "scatternet", "--model", "CNN", "--dataset", "fashion-mnist");
    assertThat(new double[] {fashion.batchSize(), fashion.learningRate(), fashion.epochs(), fashion.momentum(),
        fashion.clipNorm()}).containsExactly(2048, 4.0, 40, 0.9, 0.1);
  }
}
