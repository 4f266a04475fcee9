package org.dp4j.updater;

import static org.dp4j.InvalidSettingException.checkArgument;

import org.deeplearning4j.nn.graph.ComputationGraph;
import org.deeplearning4j.nn.graph.vertex.GraphVertex;
import org.dp4j.clipping.ClippedGradientSum;
import org.dp4j.clipping.FrozenLayers;
import org.dp4j.clipping.GraphPerExampleClipper;
import org.dp4j.clipping.PrivacyValidator;
import org.nd4j.linalg.api.ndarray.INDArray;

/**
 * {@link ClippableModel} of a {@link ComputationGraph}: {@link GraphPerExampleClipper} over all its inputs and
 * outputs. The graph's parameters are laid out in topological order, vertex by vertex; frozen vertices
 * ({@code FrozenVertex}, {@code FrozenLayer}, {@code setFeatureExtractor}) form the frozen views.
 */
final class GraphClippable extends BaseClippable {
  private final ComputationGraph graph;
  private final GraphPerExampleClipper clipper;

  GraphClippable(ComputationGraph graph) {
    // clone() goes through the builder, so a configuration edited in JSON is validated again here.
    super(initialised(graph), DpSgdStep.configOf(graph).clone());
    this.graph = graph;
    // Every refused vertex named at once, before any step.
    PrivacyValidator.inspect(graph).requireSupported();
    this.clipper = GraphPerExampleClipper.of(graph, config().clipping());
    int[] order = graph.topologicalSortOrder();
    long[] sizes = new long[order.length];
    boolean[] isFrozen = new boolean[order.length];
    for (int p = 0; p < order.length; p++) {
      GraphVertex v = graph.getVertices()[order[p]];
      sizes[p] = v.numParams();
      isFrozen[p] = FrozenLayers.isFrozen(v);
    }
    splitViews(sizes, isFrozen);
  }

  private static ComputationGraph initialised(ComputationGraph graph) {
    checkArgument(graph.params() != null, "graph must be initialised (call graph.init())");
    return graph;
  }

  @Override
  public INDArray gradientView() {
    if (graph.getFlattenedGradients() == null) {
      graph.initGradientsView();
    }
    return graph.getFlattenedGradients();
  }

  @Override
  public ClippedGradientSum addClippedSum(INDArray[] features, INDArray[] labels, INDArray[] featureMasks,
      INDArray[] labelMasks, double clipNorm, INDArray target) {
    return clipper.addClippedSum(features, labels, featureMasks, labelMasks, clipNorm, target);
  }
}
