package org.dp4j.updater;

import java.util.ArrayList;
import java.util.List;
import org.deeplearning4j.nn.api.Model;
import org.nd4j.linalg.api.ndarray.INDArray;

/**
 * What {@link MultiLayerClippable} and {@link GraphClippable} share: the model, its validated DpSgd configuration,
 * and the split of the flattened gradient view into the runs of trainable and frozen parameters.
 */
abstract class BaseClippable implements ClippableModel {
  private final Model model;
  private final DpSgd config;
  private final List<INDArray> trainable = new ArrayList<>();
  private final List<INDArray> frozen = new ArrayList<>();

  BaseClippable(Model model, DpSgd config) {
    this.model = model;
    this.config = config;
  }

  /**
   * Splits the gradient view into trainable and frozen runs; {@code sizes[k]} parameters of unit k (a layer or a
   * vertex, in parameter order) are frozen when {@code isFrozen[k]}.
   */
  final void splitViews(long[] sizes, boolean[] isFrozen) {
    ParameterRuns.split(gradientView(), sizes, isFrozen, trainable, frozen);
  }

  @Override
  public final Model model() {
    return model;
  }

  @Override
  public final DpSgd config() {
    return config;
  }

  @Override
  public final List<INDArray> trainableViews() {
    return trainable;
  }

  @Override
  public final List<INDArray> frozenViews() {
    return frozen;
  }
}
