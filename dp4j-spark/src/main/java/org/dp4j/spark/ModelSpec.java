package org.dp4j.spark;

import java.io.Serializable;
import org.deeplearning4j.nn.api.Model;
import org.deeplearning4j.nn.conf.ComputationGraphConfiguration;
import org.deeplearning4j.nn.conf.MultiLayerConfiguration;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.dp4j.InvalidSettingException;
import org.dp4j.updater.ClippableModel;

/**
 * The architecture of the network being trained (its DL4J JSON configuration, with its {@code DpSgd}), sent to the
 * executors once per training run; each executor builds its own copy and receives the parameters every step. No
 * data and no parameters are in it.
 */
final class ModelSpec implements Serializable {
  private static final long serialVersionUID = 1L;

  private final boolean graph;
  private final String json;

  private ModelSpec(boolean graph, String json) {
    this.graph = graph;
    this.json = json;
  }

  static ModelSpec of(Model model) {
    if (model instanceof MultiLayerNetwork net) {
      return new ModelSpec(false, net.getLayerWiseConfigurations().toJson());
    }
    if (model instanceof ComputationGraph g) {
      return new ModelSpec(true, g.getConfiguration().toJson());
    }
    throw new InvalidSettingException("a MultiLayerNetwork or a ComputationGraph is required, was "
        + model.getClass().getName());
  }

  /** A new initialised network of this architecture (its parameters are overwritten before each use). */
  ClippableModel build() {
    if (graph) {
      ComputationGraph g = new ComputationGraph(ComputationGraphConfiguration.fromJson(json));
      g.init();
      return ClippableModel.of(g);
    }
    MultiLayerNetwork net = new MultiLayerNetwork(MultiLayerConfiguration.fromJson(json));
    net.init();
    return ClippableModel.of(net);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof ModelSpec other && other.graph == graph && other.json.equals(json);
  }

  @Override
  public int hashCode() {
    return json.hashCode();
  }
}
