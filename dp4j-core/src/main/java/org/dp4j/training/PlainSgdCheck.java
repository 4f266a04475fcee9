package org.dp4j.training;

import java.util.Optional;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.layers.BaseLayer;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.dp4j.updater.DpSgd;
import org.nd4j.linalg.learning.config.IUpdater;
import org.nd4j.linalg.learning.config.Sgd;

/**
 * The hidden-state theorems for noisy gradient descent (Ye &amp; Shokri, Kong &amp; Ribero, shifted
 * interpolation, DP-MBCD) analyse θ ← θ − η·(g + noise) with a constant step η. Momentum, Adam or a
 * learning-rate schedule change that map, so their bounds do not apply; composition bounds still do
 * (the base updater is post-processing of the private gradient).
 */
public final class PlainSgdCheck {
  private PlainSgdCheck() {}

  /** Why the network's updates are not plain constant-step SGD, or empty if they are. */
  public static Optional<String> whyNotPlainSgd(MultiLayerNetwork net) {
    for (NeuralNetConfiguration conf : net.getLayerWiseConfigurations().getConfs()) {
      if (conf.getLayer() instanceof BaseLayer layer && layer.getIUpdater() != null) {
        Optional<String> reason = whyNotPlainSgd(layer.getIUpdater());
        if (reason.isPresent()) {
          return reason;
        }
      }
    }
    return Optional.empty();
  }

  /** Why updates with this updater (a {@link DpSgd}'s base updater, or any other) are not plain constant-step SGD. */
  public static Optional<String> whyNotPlainSgd(IUpdater updater) {
    IUpdater base = updater instanceof DpSgd dp ? dp.baseUpdater() : updater;
    if (!(base instanceof Sgd sgd)) {
      return Optional.of("the updater " + base.getClass().getSimpleName() + " is not plain SGD: the hidden-state "
          + "theorems assume theta <- theta - eta * (g + noise) with a constant eta");
    }
    if (sgd.getLearningRateSchedule() != null) {
      return Optional.of("the learning rate follows a schedule (" + sgd.getLearningRateSchedule()
          + "): the hidden-state theorems assume a constant step size");
    }
    return Optional.empty();
  }
}
