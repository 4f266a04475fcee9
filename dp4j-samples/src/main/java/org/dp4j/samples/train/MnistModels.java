package org.dp4j.samples.train;

import org.deeplearning4j.nn.conf.ComputationGraphConfiguration;
import org.deeplearning4j.nn.conf.MultiLayerConfiguration;
import org.dp4j.samples.zoo.ModelZoo;
import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.learning.config.IUpdater;

/** The networks {@code dp4j train} offers for 28×28 grey images with 10 classes; they now live in {@link ModelZoo}. */
public final class MnistModels {
  private MnistModels() {}

  /** Which network. */
  public enum Kind { MLP, CNN, LSTM }

  /** @deprecated use {@link ModelZoo#mnistMlp} */
  @Deprecated
  public static MultiLayerConfiguration mlp(IUpdater updater, long seed, int[] hidden, Activation activation) {
    return ModelZoo.mnistMlp(updater, seed, hidden, activation);
  }

  /** @deprecated use {@link ModelZoo#mnistPooledMlp} */
  @Deprecated
  public static MultiLayerConfiguration pooledMlp(IUpdater updater, long seed, int pool, int[] hidden,
      Activation activation) {
    return ModelZoo.mnistPooledMlp(updater, seed, pool, hidden, activation);
  }

  /** @deprecated use {@link ModelZoo#mnistCnn} */
  @Deprecated
  public static MultiLayerConfiguration cnn(IUpdater updater, long seed) {
    return ModelZoo.mnistCnn(updater, seed);
  }

  /** @deprecated use {@link ModelZoo#mnistCnnGraph} */
  @Deprecated
  public static ComputationGraphConfiguration cnnGraph(IUpdater updater, long seed) {
    return ModelZoo.mnistCnnGraph(updater, seed);
  }
}
