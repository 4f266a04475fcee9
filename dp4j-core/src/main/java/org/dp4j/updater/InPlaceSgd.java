package org.dp4j.updater;

import java.util.List;
import java.util.OptionalDouble;
import org.deeplearning4j.nn.conf.layers.BaseLayer;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.dp4j.clipping.FrozenLayers;
import org.nd4j.linalg.learning.config.IUpdater;
import org.nd4j.linalg.learning.config.Sgd;

/**
 * When the base updater is plain {@link Sgd} with one learning rate and no regularisation, the update is η times
 * the private gradient and can be applied in place, without DL4J's per-block updater bookkeeping (same arithmetic,
 * same result). Used by {@link DpSgdStep} and {@link PrivateFitUpdater}.
 */
final class InPlaceSgd {
  private final MultiLayerNetwork net;
  private final boolean plainSgd;

  InPlaceSgd(MultiLayerNetwork net, DpSgd config) {
    this.net = net;
    this.plainSgd = plainSgd(net, config);
  }

  /** η of this iteration if the in-place update applies, else empty (use DL4J's updater). */
  OptionalDouble rate(int iteration, int epoch) {
    return plainSgd ? sharedLearningRate(iteration, epoch) : OptionalDouble.empty();
  }

  /**
   * Whether the base updater is plain {@link Sgd} and no layer has L1/L2/weight decay: the update is then η times
   * the private gradient and is applied in place. Anything else goes through DL4J's updater.
   */
  private static boolean plainSgd(MultiLayerNetwork net, DpSgd config) {
    if (config.baseUpdater().getClass() != Sgd.class) {
      return false;
    }
    for (int i = 0; i < net.getnLayers(); i++) {
      org.deeplearning4j.nn.conf.layers.Layer conf = net.getLayer(i).conf().getLayer();
      if (FrozenLayers.isFrozen(net.getLayer(i))) {
        return false;   // DL4J's updater leaves frozen parameters alone; the in-place path would not
      }
      for (BaseLayer b : UpdaterLayers.of(conf)) {
        if (!isEmpty(b.getRegularization()) || !isEmpty(b.getRegularizationBias())) {
          return false;
        }
      }
    }
    return true;
  }

  /**
   * η of this iteration read from the network's live configuration (so {@code net.setLearningRate} and schedules
   * apply as in DL4J's updater), if every layer with parameters has the same one.
   */
  private OptionalDouble sharedLearningRate(int iteration, int epoch) {
    double shared = Double.NaN;
    for (int i = 0; i < net.getnLayers(); i++) {
      if (net.getLayer(i).numParams() == 0 || FrozenLayers.isFrozen(net.getLayer(i))) {
        continue;
      }
      for (BaseLayer conf : UpdaterLayers.of(net.getLayer(i).conf().getLayer())) {
        for (IUpdater u : new IUpdater[] {conf.getIUpdater(), conf.getBiasUpdater()}) {
          if (u == null) {
            continue;
          }
          double rate = u.getLearningRate(iteration, epoch);
          if (!Double.isNaN(shared) && rate != shared) {
            return OptionalDouble.empty();
          }
          shared = rate;
        }
      }
    }
    return Double.isNaN(shared) ? OptionalDouble.empty() : OptionalDouble.of(shared);
  }

  private static boolean isEmpty(List<?> list) {
    return list == null || list.isEmpty();
  }
}
