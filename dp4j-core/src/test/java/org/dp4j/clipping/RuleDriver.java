package org.dp4j.clipping;

import java.util.List;
import java.util.Map;
import org.deeplearning4j.nn.api.Layer;
import org.deeplearning4j.nn.api.MaskState;
import org.deeplearning4j.nn.conf.InputPreProcessor;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.deeplearning4j.nn.workspace.LayerWorkspaceMgr;
import org.nd4j.common.primitives.Pair;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.indexing.NDArrayIndex;

/**
 * Runs the per-example rules of a {@link MultiLayerNetwork} (as {@link LayerRules} picks them) on a batch, with an
 * optional feature mask handed to every rule and used as the label mask, and reads back every example's full
 * gradient: {@code writeScaledSum} with scale e_i writes g_i. The reference is DL4J's own batch-of-one gradient
 * ({@link #dl4jPerExample}), an independent code path.
 */
final class RuleDriver {
  private RuleDriver() {
  }

  /** Row i: example i's gradient in the layout of {@code net.params()}, from the rules. */
  static INDArray perExample(MultiLayerNetwork net, INDArray x, INDArray y, INDArray mask) {
    return perExample(net, x, y, mask, mask);
  }

  /**
   * As above with the label mask given; the feature mask is carried up through the layers as DL4J's
   * {@code feedForwardMaskArray} does.
   */
  static INDArray perExample(MultiLayerNetwork net, INDArray x, INDArray y, INDArray mask, INDArray labelMask) {
    if (net.getFlattenedGradients() == null) {
      net.initGradientsView();
    }
    return perExample(net, x, y, mask, labelMask, LayerRules.forNetwork(net, ConvolutionGradients.CHUNK_ELEMENTS,
        ConvolutionNorms.BY_COST));
  }

  /** As above with the rules given (one per layer of {@code net}). */
  static INDArray perExample(MultiLayerNetwork net, INDArray x, INDArray y, INDArray mask, INDArray labelMask,
      List<PerExampleLayer> rules) {
    int n = (int) x.size(0);
    INDArray a = x;
    INDArray m = mask;
    for (int l = 0; l < rules.size(); l++) {
      InputPreProcessor pre = net.getLayerWiseConfigurations().getInputPreProcess(l);
      if (pre != null) {
        a = pre.preProcess(a, n, LayerWorkspaceMgr.noWorkspaces());
      }
      rules.get(l).setInputMask(m);
      a = rules.get(l).forward(a);
      if (m != null) {
        Pair<INDArray, MaskState> next = net.getLayer(l).feedForwardMaskArray(m, MaskState.Active, n);
        m = next == null ? null : next.getFirst();
      }
    }
    int last = rules.size() - 1;
    INDArray error = rules.get(last).backwardFromLabels(y, labelMask, true);
    for (int l = last; l >= 0; l--) {
      if (l < last) {
        error = rules.get(l).backward(error, l > 0);
      }
      InputPreProcessor pre = net.getLayerWiseConfigurations().getInputPreProcess(l);
      if (pre != null && l > 0) {
        error = pre.backprop(error, n, LayerWorkspaceMgr.noWorkspaces());
      }
    }
    INDArray rows = Nd4j.create(x.dataType(), n, net.numParams());
    long[] bounds = ExactPerExampleGradients.layerBounds(net);
    for (int l = 0; l <= last; l++) {
      if (!rules.get(l).hasParams()) {
        continue;
      }
      Layer layer = net.getLayer(l);
      rules.get(l).squaredNorms();   // the contract's order: norms before sums (some rules keep state from it)
      for (int i = 0; i < n; i++) {
        INDArray slice = rows.get(NDArrayIndex.interval(i, i + 1), NDArrayIndex.interval(bounds[l], bounds[l + 1]));
        Map<String, INDArray> views = GradientViews.of(layer, slice);
        INDArray unit = Nd4j.zeros(x.dataType(), n, 1).putScalar(i, 0, 1.0);
        rules.get(l).writeScaledSum(unit, views);
      }
    }
    return rows;
  }

  /** Row i: DL4J's gradient of example i's loss alone (its feature mask row, also as its label mask). */
  static INDArray dl4jPerExample(MultiLayerNetwork net, INDArray x, INDArray y, INDArray mask) {
    return dl4jPerExample(net, x, y, mask, mask);
  }

  /** As above with the label mask given. */
  static INDArray dl4jPerExample(MultiLayerNetwork net, INDArray x, INDArray y, INDArray mask,
      INDArray labelMask) {
    int n = (int) x.size(0);
    INDArray rows = Nd4j.create(x.dataType(), n, net.numParams());
    net.clearLayerMaskArrays();   // the reference starts clean: no mask left on a layer by an earlier pass
    for (int i = 0; i < n; i++) {
      net.setLayerMaskArrays(mask == null ? null : row(mask, i), labelMask == null ? null : row(labelMask, i));
      net.setInput(row(x, i));
      net.setLabels(row(y, i));
      net.computeGradientAndScore();
      rows.getRow(i).assign(net.gradient().gradient().reshape(net.numParams()));
    }
    net.clearLayerMaskArrays();
    net.clear();
    return rows;
  }

  static INDArray row(INDArray a, int i) {
    NDArrayIndexes idx = new NDArrayIndexes(a.rank(), i);
    return a.get(idx.indexes).dup();
  }

  /** [i, i+1) on the first dimension, all of the others. */
  private static final class NDArrayIndexes {
    final org.nd4j.linalg.indexing.INDArrayIndex[] indexes;

    NDArrayIndexes(int rank, long i) {
      indexes = new org.nd4j.linalg.indexing.INDArrayIndex[rank];
      indexes[0] = NDArrayIndex.interval(i, i + 1);
      for (int d = 1; d < rank; d++) {
        indexes[d] = NDArrayIndex.all();
      }
    }
  }
}
