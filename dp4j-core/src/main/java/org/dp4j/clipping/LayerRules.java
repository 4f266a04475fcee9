package org.dp4j.clipping;

import static com.google.common.base.Preconditions.checkArgument;

import java.util.ArrayList;
import java.util.List;
import org.deeplearning4j.nn.api.Layer;
import org.deeplearning4j.nn.conf.CNN2DFormat;
import org.deeplearning4j.nn.conf.GradientNormalization;
import org.deeplearning4j.nn.conf.InputPreProcessor;
import org.deeplearning4j.nn.conf.layers.ActivationLayer;
import org.deeplearning4j.nn.conf.layers.BaseLayer;
import org.deeplearning4j.nn.conf.layers.BatchNormalization;
import org.deeplearning4j.nn.conf.layers.ConvolutionLayer;
import org.deeplearning4j.nn.conf.layers.DenseLayer;
import org.deeplearning4j.nn.conf.layers.DropoutLayer;
import org.deeplearning4j.nn.conf.layers.GlobalPoolingLayer;
import org.deeplearning4j.nn.conf.layers.LossLayer;
import org.deeplearning4j.nn.conf.layers.OutputLayer;
import org.deeplearning4j.nn.conf.layers.SubsamplingLayer;
import org.deeplearning4j.nn.conf.preprocessor.CnnToFeedForwardPreProcessor;
import org.deeplearning4j.nn.conf.preprocessor.FeedForwardToCnnPreProcessor;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;

/**
 * Which DL4J layers have a per-example gradient rule, and the refusal (naming the layer and what to use instead)
 * for those that do not. Exact classes are matched: subclasses such as {@code Convolution1DLayer} or
 * {@code Deconvolution2D} compute different gradients and are refused.
 */
final class LayerRules {
  private static final String SUPPORTED = "DenseLayer, OutputLayer, LossLayer, ConvolutionLayer (2D, NCHW), "
      + "SubsamplingLayer, GlobalPoolingLayer, ActivationLayer, DropoutLayer";

  private LayerRules() {
  }

  /** One rule per layer, in order; throws IllegalArgumentException at the first unsupported layer. */
  static List<PerExampleLayer> forNetwork(MultiLayerNetwork net, long convolutionChunkElements,
      ConvolutionNorms norms) {
    int count = net.getnLayers();
    checkArgument(count > 0, "network has no layers");
    List<PerExampleLayer> rules = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      checkPreprocessor(net.getLayerWiseConfigurations().getInputPreProcess(i), i);
      rules.add(ruleFor(net, net.getLayer(i), i, i == count - 1, convolutionChunkElements, norms));
    }
    checkArgument(rules.stream().anyMatch(PerExampleLayer::hasParams), "network has no trainable parameters");
    for (int i = 1; i < count; i++) {
      Layer layer = net.getLayer(i);
      boolean trainableBelow = rules.subList(0, i).stream().anyMatch(PerExampleLayer::hasParams);
      checkArgument(!FrozenLayers.isFrozen(layer) || FrozenLayers.passesErrorsBack(layer) || !trainableBelow,
          "frozen %s stops back-propagation, so the trainable layers below it would get no gradient; freeze them "
              + "too or use FrozenLayerWithBackprop", describe(layer.conf().getLayer(), i));
    }
    return List.copyOf(rules);
  }

  private static PerExampleLayer ruleFor(MultiLayerNetwork net, Layer layer, int index, boolean last,
      long convolutionChunkElements, ConvolutionNorms norms) {
    org.deeplearning4j.nn.conf.layers.Layer conf = layer.conf().getLayer();
    Class<?> type = conf.getClass();
    if (FrozenLayers.isFrozen(layer)) {
      return frozenRule(layer, conf, index, last);
    }
    if (conf instanceof BaseLayer) {
      checkBaseLayer((BaseLayer) conf, index);
    }
    if (conf instanceof BatchNormalization) {
      throw refused(conf, index, "BatchNormalization mixes the examples of a batch through its batch statistics, "
          + "so per-example gradients (and the sensitivity bound of DP-SGD) do not exist; remove it and normalise "
          + "the inputs instead, or use a network without batch statistics");
    }
    if (last != (type == OutputLayer.class || type == LossLayer.class)) {
      throw refused(conf, index, last ? "the last layer must be an OutputLayer or a LossLayer"
          : "an output layer is only supported as the last layer");
    }
    if (type == DenseLayer.class || type == OutputLayer.class) {
      return new DenseGradients(net, layer);
    }
    if (type == LossLayer.class) {
      return new LossLayerGradients((LossLayer) conf);
    }
    if (type == ConvolutionLayer.class) {
      ConvolutionLayer conv = (ConvolutionLayer) conf;
      checkArgument(conv.getCnn2dDataFormat() == CNN2DFormat.NCHW,
          "%s: only the NCHW data format is supported, was %s", describe(conf, index), conv.getCnn2dDataFormat());
      checkArgument(conf.getIDropout() == null, "%s: dropout on a ConvolutionLayer's input is not supported; "
          + "put a DropoutLayer before it instead", describe(conf, index));
      return new ConvolutionGradients(layer, convolutionChunkElements, norms);
    }
    if (type == SubsamplingLayer.class || type == GlobalPoolingLayer.class || type == ActivationLayer.class
        || type == DropoutLayer.class) {
      return new NoParameterLayer(layer);
    }
    throw refused(conf, index, "per-example gradients are not implemented for this layer type; supported: "
        + SUPPORTED);
  }

  /**
   * A frozen layer (its {@code conf} is the inner layer's) runs forward in inference mode and has no per-example gradient; errors pass back through it
   * only for {@code FrozenLayerWithBackprop}, whose inner layer must then act on each example separately.
   */
  private static PerExampleLayer frozenRule(Layer layer, org.deeplearning4j.nn.conf.layers.Layer conf, int index,
      boolean last) {
    checkArgument(!last, "frozen %s: the output layer cannot be frozen when training privately (nothing above it "
        + "would be trained); freeze only layers below the trainable ones", describe(conf, index));
    // A frozen layer's conf() is the inner layer's.
    if (FrozenLayers.passesErrorsBack(layer)) {
      Class<?> type = conf.getClass();
      checkArgument(type == DenseLayer.class || type == ConvolutionLayer.class || type == SubsamplingLayer.class
              || type == GlobalPoolingLayer.class || type == ActivationLayer.class || type == DropoutLayer.class,
          "%s: back-propagation through a frozen %s is not supported; supported inside FrozenLayerWithBackprop: "
              + "DenseLayer, ConvolutionLayer, SubsamplingLayer, GlobalPoolingLayer, ActivationLayer, DropoutLayer",
          describe(conf, index), type.getSimpleName());
    }
    return new NoParameterLayer(layer);
  }

  private static void checkBaseLayer(BaseLayer conf, int index) {
    GradientNormalization normalization = conf.getGradientNormalization();
    checkArgument(normalization == null || normalization == GradientNormalization.None,
        "%s: gradientNormalization %s acts on the batch gradient, not per example, and is not part of the "
            + "DP-SGD mechanism; remove it (per-example clipping already bounds every gradient)",
        describe(conf, index), normalization);
    checkArgument(conf.getWeightNoise() == null, "%s: weight noise (DropConnect) is not supported by "
        + "per-example clipping; use a DropoutLayer instead", describe(conf, index));
    checkArgument(!(conf instanceof DenseLayer && ((DenseLayer) conf).hasLayerNorm()),
        "%s: layer normalisation (hasLayerNorm) is not supported by per-example clipping", describe(conf, index));
  }

  private static IllegalArgumentException refused(org.deeplearning4j.nn.conf.layers.Layer conf, int index,
      String why) {
    return new IllegalArgumentException(describe(conf, index) + ": " + why);
  }

  private static String describe(org.deeplearning4j.nn.conf.layers.Layer conf, int index) {
    String name = conf.getLayerName() == null ? "" : " '" + conf.getLayerName() + "'";
    return "layer " + index + name + " (" + conf.getClass().getSimpleName() + ")";
  }

  private static void checkPreprocessor(InputPreProcessor pre, int index) {
    checkArgument(pre == null || pre instanceof CnnToFeedForwardPreProcessor
            || pre instanceof FeedForwardToCnnPreProcessor,
        "input preprocessor of layer %s (%s) is not supported by per-example clipping; supported: "
            + "CnnToFeedForwardPreProcessor, FeedForwardToCnnPreProcessor",
        index, pre == null ? "" : pre.getClass().getSimpleName());
  }
}
