package org.dp4j.clipping;

import static org.dp4j.InvalidSettingException.checkArgument;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.deeplearning4j.nn.api.Layer;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.indexing.NDArrayIndex;

/**
 * The exact, slow reference: DL4J's own {@code computeGradientAndScore} on one example at a time (about 100x a batch
 * gradient; docs/dl4j-internals.md#per-example-gradients), then clipping as in Abadi et al. 2016, Alg. 1. Use it to check
 * {@link PerExampleClipper} and {@link GraphPerExampleClipper}, never to train. Stochastic layers (dropout) draw
 * their own randomness here, so the two agree only on deterministic networks.
 *
 * <pre>{@code
 * // given: MultiLayerNetwork net; INDArray x; INDArray y
 * INDArray g = ExactPerExampleGradients.perExample(net, x, y);     // [n, numParams]
 * ClippedGradientSum ref = ExactPerExampleGradients.clippedSum(net, x, y, 1.0, ClippingMode.FLAT);
 * }</pre>
 */
public final class ExactPerExampleGradients {
  private ExactPerExampleGradients() {
  }

  /** Row i is the gradient of example i's loss, in the layout of {@code net.params()}. */
  public static INDArray perExample(MultiLayerNetwork net, INDArray features, INDArray labels) {
    checkArgument(features.size(0) == labels.size(0), "features and labels must have the same number of examples, "
        + "were %s and %s", features.size(0), labels.size(0));
    long n = features.size(0);
    INDArray rows = Nd4j.create(net.params().dataType(), n, net.numParams());
    for (long i = 0; i < n; i++) {
      INDArray x = features.get(NDArrayIndex.interval(i, i + 1)).dup();
      INDArray y = labels.get(NDArrayIndex.interval(i, i + 1)).dup();
      // computeGradientAndScore, as net.fit uses (calculateGradients leaks a workspace with frozen layers).
      net.setInput(x);
      net.setLabels(y);
      net.computeGradientAndScore();
      rows.getRow(i).assign(net.gradient().gradient().reshape(net.numParams()));
    }
    net.clear();
    return rows;
  }

  /** Σ_i clip(g_i) computed from {@link #perExample}, with the same clipping rule as {@link PerExampleClipper}. */
  public static ClippedGradientSum clippedSum(MultiLayerNetwork net, INDArray features, INDArray labels,
      double clipNorm, ClippingMode mode) {
    checkArgument(clipNorm > 0 && Double.isFinite(clipNorm), "clipNorm must be finite and > 0, was %s", clipNorm);
    List<Layer> layers = Arrays.asList(net.getLayers());
    return clip(perExample(net, features, labels), trainableRanges(layers), clipNorm, mode);
  }

  /**
   * Row i is the gradient of example i's loss (the sum over a graph's outputs) in the layout of
   * {@code graph.getFlattenedGradients()}, from DL4J's own {@code computeGradientAndScore} on that example alone.
   *
   * @param labelMasks null, or one entry (or null) per network output
   */
  public static INDArray perExample(ComputationGraph graph, INDArray[] features, INDArray[] labels,
      INDArray[] labelMasks) {
    long n = features[0].size(0);
    INDArray rows = Nd4j.create(graph.params().dataType(), n, graph.numParams());
    for (long i = 0; i < n; i++) {
      graph.setInputs(rowOf(features, i));
      graph.setLabels(rowOf(labels, i));
      graph.setLayerMaskArrays(null, labelMasks == null ? null : rowOf(labelMasks, i));
      graph.computeGradientAndScore();
      rows.getRow(i).assign(graph.gradient().gradient().reshape(graph.numParams()));
    }
    graph.clear();
    return rows;
  }

  /** Σ_i clip(g_i) from {@link #perExample(ComputationGraph, INDArray[], INDArray[], INDArray[])}. */
  public static ClippedGradientSum clippedSum(ComputationGraph graph, INDArray[] features, INDArray[] labels,
      INDArray[] labelMasks, double clipNorm, ClippingMode mode) {
    checkArgument(clipNorm > 0 && Double.isFinite(clipNorm), "clipNorm must be finite and > 0, was %s", clipNorm);
    List<Layer> layers = new ArrayList<>();
    for (int idx : graph.topologicalSortOrder()) {
      if (graph.getVertices()[idx].hasLayer()) {
        layers.add(graph.getVertices()[idx].getLayer());
      }
    }
    return clip(perExample(graph, features, labels, labelMasks), trainableRanges(layers), clipNorm, mode);
  }

  private static INDArray[] rowOf(INDArray[] arrays, long i) {
    INDArray[] rows = new INDArray[arrays.length];
    for (int k = 0; k < arrays.length; k++) {
      rows[k] = arrays[k] == null ? null : arrays[k].get(NDArrayIndex.interval(i, i + 1)).dup();
    }
    return rows;
  }

  private static ClippedGradientSum clip(INDArray g, List<long[]> ranges, double clipNorm, ClippingMode mode) {
    int n = (int) g.size(0);
    double[] norms = new double[n];
    int clipped = 0;
    INDArray sum = Nd4j.zeros(g.dataType(), 1, g.size(1));
    for (int i = 0; i < n; i++) {
      INDArray row = g.getRow(i).dup();
      norms[i] = row.norm2Number().doubleValue();
      boolean wasClipped = false;
      if (mode == ClippingMode.FLAT) {
        wasClipped = norms[i] > clipNorm;
        row.muli(Math.min(1.0, clipNorm / norms[i]));
      } else {
        double layerClip = clipNorm / Math.sqrt(ranges.size());
        for (long[] range : ranges) {
          INDArray part = row.get(NDArrayIndex.interval(range[0], range[1]));
          double norm = part.norm2Number().doubleValue();
          wasClipped |= norm > layerClip;
          part.muli(norm > layerClip ? layerClip / norm : 1.0);
        }
      }
      clipped += wasClipped ? 1 : 0;
      sum.addi(row.reshape(1, row.length()));
    }
    return new ClippedGradientSum(sum, norms, clipped, clipNorm, mode);
  }

  /** [start, end) in the flat vector of each layer with trainable (not frozen) parameters, layers in param order. */
  private static List<long[]> trainableRanges(List<Layer> layersInParamOrder) {
    List<long[]> ranges = new ArrayList<>();
    long offset = 0;
    for (Layer layer : layersInParamOrder) {
      long size = layer.numParams();
      if (size > 0 && !LayerRules.isFrozen(layer)) {
        ranges.add(new long[] {offset, offset + size});
      }
      offset += size;
    }
    return ranges;
  }

  /** Offsets of each layer's parameters in the flat vector: layer l owns [bounds[l], bounds[l+1]). */
  static long[] layerBounds(MultiLayerNetwork net) {
    long[] bounds = new long[net.getnLayers() + 1];
    for (int l = 0; l < net.getnLayers(); l++) {
      bounds[l + 1] = bounds[l] + net.getLayer(l).numParams();
    }
    return bounds;
  }
}
