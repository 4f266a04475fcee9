package org.dp4j.samples.train;

import org.deeplearning4j.nn.conf.MultiLayerConfiguration;
import org.dp4j.samples.zoo.ModelZoo;
import org.nd4j.linalg.learning.config.IUpdater;

/** The classifiers on ScatterNet features; they now live in {@link ModelZoo}. */
public final class ScatterNetModels {
  private ScatterNetModels() {}

  /** @deprecated use {@link ModelZoo#scatterNetLinear} */
  @Deprecated
  public static MultiLayerConfiguration linear(IUpdater updater, long seed, int features) {
    return ModelZoo.scatterNetLinear(updater, seed, features);
  }

  /** @deprecated use {@link ModelZoo#scatterNetCnn} */
  @Deprecated
  public static MultiLayerConfiguration cnn(IUpdater updater, long seed, int channels, int side) {
    return ModelZoo.scatterNetCnn(updater, seed, channels, side);
  }
}
