package org.dp4j.clipping;

import java.util.List;
import org.deeplearning4j.nn.api.Layer;
import org.deeplearning4j.nn.conf.MultiLayerConfiguration;
import org.deeplearning4j.nn.conf.layers.PoolingType;
import org.deeplearning4j.nn.conf.layers.SubsamplingLayer;
import org.nd4j.linalg.activations.IActivation;
import org.nd4j.linalg.activations.impl.ActivationIdentity;
import org.nd4j.linalg.activations.impl.ActivationReLU;

/**
 * Moves the activation of a {@code ConvolutionLayer} above the max pooling that directly follows it, when that
 * gives the same result ({@link ActivatedMaxPooling} says why): the activation is plain ReLU or identity, the next
 * layer is a max-pooling {@code SubsamplingLayer} in the same data format, without dropout and without an input
 * preprocessor between the two. The convolution then hands its pre-activation to the pooling layer in its own
 * channels-last layout ({@link ConvolutionGradients} with the activation deferred), and takes dL/dz back.
 *
 * <p>Only for the layer list of a {@code MultiLayerNetwork} ({@link LayerRules#forNetwork}); the rules of a
 * {@code ComputationGraph} stay one per vertex.
 */
final class ConvolutionPoolingFusion {
  private ConvolutionPoolingFusion() {
  }

  /** Replaces each fusable (convolution, pooling) pair of {@code rules} (one per layer of {@code net}) in place. */
  static void apply(List<PerExampleLayer> rules, MultiLayerConfiguration configuration, List<Layer> layers,
      long chunkElements, ConvolutionNorms norms) {
    for (int i = 0; i + 1 < rules.size(); i++) {
      if (!(rules.get(i) instanceof ConvolutionGradients)
          || !(rules.get(i + 1) instanceof PoolingGradients)
          || configuration.getInputPreProcess(i + 1) != null) {
        continue;
      }
      SubsamplingLayer pooling = (SubsamplingLayer) layers.get(i + 1).conf().getLayer();
      org.deeplearning4j.nn.conf.layers.ConvolutionLayer below =
          (org.deeplearning4j.nn.conf.layers.ConvolutionLayer) layers.get(i).conf().getLayer();
      if (pooling.getPoolingType() == PoolingType.MAX && pooling.getIDropout() == null
          && pooling.getCnn2dDataFormat() == below.getCnn2dDataFormat() && commutesWithMax(below.getActivationFn())) {
        rules.set(i, new ConvolutionGradients(layers.get(i), chunkElements, norms, pooling));
        rules.set(i + 1, new ActivatedMaxPooling(pooling, below));
      }
    }
    // A fused pooling layer directly below a convolution and that convolution exchange NCHW-shaped views of
    // channels-last memory (the output upwards, the input error downwards) instead of copies in NCHW order: both
    // rules read such views directly.
    for (int i = 0; i + 1 < rules.size(); i++) {
      if (rules.get(i) instanceof ActivatedMaxPooling && rules.get(i + 1) instanceof ConvolutionGradients
          && configuration.getInputPreProcess(i + 1) == null) {
        ((ActivatedMaxPooling) rules.get(i)).handOverChannelsLast(true);
        ((ConvolutionGradients) rules.get(i + 1)).handOverChannelsLastError(true);
      }
    }
  }

  /** Identity, or ReLU without a maximum, threshold or negative slope. */
  static boolean commutesWithMax(IActivation activation) {
    // Exact classes: a subclass may compute something else.
    if (activation.getClass() == ActivationIdentity.class) {
      return true;
    }
    return activation.getClass() == ActivationReLU.class && ((ActivationReLU) activation).getMax() == null
        && ((ActivationReLU) activation).getThreshold() == null
        && ((ActivationReLU) activation).getNegativeSlope() == null;
  }
}
