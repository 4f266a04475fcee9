package org.dp4j.updater;

import java.util.List;
import org.deeplearning4j.nn.conf.layers.BaseLayer;
import org.deeplearning4j.nn.conf.layers.Layer;
import org.deeplearning4j.nn.conf.layers.recurrent.Bidirectional;
import org.deeplearning4j.nn.conf.layers.recurrent.LastTimeStep;

/**
 * The configurations that carry a layer's updaters: the layer itself, or the layers inside DL4J's recurrent
 * wrappers ({@code LastTimeStep} wraps one; {@code Bidirectional} holds a forward and a backward copy, each with
 * its own updater). Frozen wrappers are not unwrapped: their layers are not trained.
 */
public final class UpdaterLayers {
  private UpdaterLayers() {
  }

  /** The {@code BaseLayer} configurations whose updaters train {@code conf}'s parameters (empty if none). */
  public static List<BaseLayer> of(Layer conf) {
    if (conf instanceof LastTimeStep) {
      return of(((LastTimeStep) conf).getUnderlying());
    }
    if (conf instanceof Bidirectional) {
      Bidirectional b = (Bidirectional) conf;
      return b.getFwd() instanceof BaseLayer && b.getBwd() instanceof BaseLayer
          ? List.of((BaseLayer) b.getFwd(), (BaseLayer) b.getBwd()) : List.of();
    }
    return conf instanceof BaseLayer ? List.of((BaseLayer) conf) : List.of();
  }

  /**
   * Gives a (shallow-cloned) wrapper its own copies of the layers it wraps, so that setting their updaters leaves
   * the configuration it was cloned from alone (DL4J's {@code clone} shares them).
   */
  public static void ownInnerLayers(Layer conf) {
    if (conf instanceof LastTimeStep) {
      LastTimeStep l = (LastTimeStep) conf;
      l.setUnderlying(l.getUnderlying().clone());
      ownInnerLayers(l.getUnderlying());
    } else if (conf instanceof Bidirectional) {
      Bidirectional b = (Bidirectional) conf;
      b.setFwd(b.getFwd().clone());
      b.setBwd(b.getBwd().clone());
    }
  }
}
