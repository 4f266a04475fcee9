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
        ActivatedMaxPooling fused = new ActivatedMaxPooling(pooling, below);
        // A convolution rule above reads an NCHW-shaped view of channels-last memory without a copy.
        fused.handOverChannelsLast(i + 2 < rules.size() && rules.get(i + 2) instanceof ConvolutionGradients
            && configuration.getInputPreProcess(i + 2) == null);
        rules.set(i + 1, fused);
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
