package org.dp4j.clipping;

import java.util.ArrayList;
import java.util.List;
import org.deeplearning4j.nn.conf.layers.Layer;
import org.deeplearning4j.nn.conf.layers.misc.FrozenLayerWithBackprop;
import org.deeplearning4j.nn.conf.layers.recurrent.Bidirectional;
import org.deeplearning4j.nn.conf.layers.wrapper.BaseWrapperLayer;

/**
 * A layer configuration and the configurations it wraps ({@code LastTimeStep}, {@code TimeDistributed},
 * {@code MaskZeroLayer}, both directions of a {@code Bidirectional}), where updaters, dropout and gradient
 * normalisation of wrapped layers live. Frozen wrappers are not opened: their inner layers are not trained.
 */
public final class NestedLayers {
  private NestedLayers() {
  }

  /** {@code conf} first, then every layer it wraps, depth first. */
  public static List<Layer> of(Layer conf) {
    List<Layer> all = new ArrayList<>();
    add(conf, all);
    return all;
  }

  private static void add(Layer conf, List<Layer> all) {
    all.add(conf);
    if (conf instanceof FrozenLayerWithBackprop) {
      return;
    }
    if (conf instanceof BaseWrapperLayer) {
      add(((BaseWrapperLayer) conf).getUnderlying(), all);
    } else if (conf instanceof Bidirectional) {
      add(((Bidirectional) conf).getFwd(), all);
      add(((Bidirectional) conf).getBwd(), all);
    }
  }
}
