package org.dp4j.clipping;

import static com.google.common.base.Preconditions.checkArgument;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.deeplearning4j.nn.api.Layer;
import org.deeplearning4j.nn.conf.ConvolutionMode;
import org.deeplearning4j.nn.conf.GradientNormalization;
import org.deeplearning4j.nn.conf.InputPreProcessor;
import org.deeplearning4j.nn.conf.layers.ActivationLayer;
import org.deeplearning4j.nn.conf.layers.BaseLayer;
import org.deeplearning4j.nn.conf.layers.BatchNormalization;
import org.deeplearning4j.nn.conf.layers.ConvolutionLayer;
import org.deeplearning4j.nn.conf.layers.Convolution1D;
import org.deeplearning4j.nn.conf.layers.Convolution1DLayer;
import org.deeplearning4j.nn.conf.layers.Convolution3D;
import org.deeplearning4j.nn.conf.layers.Deconvolution2D;
import org.deeplearning4j.nn.conf.layers.DepthwiseConvolution2D;
import org.deeplearning4j.nn.conf.layers.EmbeddingLayer;
import org.deeplearning4j.nn.conf.layers.EmbeddingSequenceLayer;
import org.deeplearning4j.nn.conf.layers.PReLULayer;
import org.deeplearning4j.nn.conf.layers.Pooling1D;
import org.deeplearning4j.nn.conf.layers.Pooling2D;
import org.deeplearning4j.nn.conf.layers.SeparableConvolution2D;
import org.deeplearning4j.nn.conf.layers.SpaceToDepthLayer;
import org.deeplearning4j.nn.conf.layers.Subsampling1DLayer;
import org.deeplearning4j.nn.conf.layers.Subsampling3DLayer;
import org.deeplearning4j.nn.conf.layers.Upsampling1D;
import org.deeplearning4j.nn.conf.layers.Upsampling2D;
import org.deeplearning4j.nn.conf.layers.Upsampling3D;
import org.deeplearning4j.nn.conf.layers.ZeroPadding1DLayer;
import org.deeplearning4j.nn.conf.layers.ZeroPadding3DLayer;
import org.deeplearning4j.nn.conf.layers.ZeroPaddingLayer;
import org.deeplearning4j.nn.conf.layers.convolutional.Cropping1D;
import org.deeplearning4j.nn.conf.layers.convolutional.Cropping2D;
import org.deeplearning4j.nn.conf.layers.convolutional.Cropping3D;
import org.deeplearning4j.nn.conf.layers.DenseLayer;
import org.deeplearning4j.nn.conf.layers.DropoutLayer;
import org.deeplearning4j.nn.conf.layers.GlobalPoolingLayer;
import org.deeplearning4j.nn.conf.layers.LocalResponseNormalization;
import org.deeplearning4j.nn.conf.layers.LossLayer;
import org.deeplearning4j.nn.conf.layers.OutputLayer;
import org.deeplearning4j.nn.conf.layers.SubsamplingLayer;
import org.deeplearning4j.nn.conf.layers.misc.FrozenLayer;
import org.deeplearning4j.nn.conf.layers.misc.FrozenLayerWithBackprop;
import org.deeplearning4j.nn.conf.preprocessor.CnnToFeedForwardPreProcessor;
import org.deeplearning4j.nn.conf.preprocessor.FeedForwardToCnnPreProcessor;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;

/**
 * Which DL4J layers have a per-example gradient rule, and the refusal (naming the layer and what to use instead)
 * for those that do not. Exact classes are matched: a subclass computes different gradients (as
 * {@code Convolution1DLayer} does from {@code ConvolutionLayer}) and needs its own rule.
 */
final class LayerRules {
  private static final String SUPPORTED = "DenseLayer (with or without layer norm), OutputLayer, LossLayer, "
      + "ConvolutionLayer (2D, NCHW or NHWC), Convolution1DLayer, Convolution3D, DepthwiseConvolution2D, "
      + "SeparableConvolution2D, Deconvolution2D, EmbeddingLayer, EmbeddingSequenceLayer, PReLULayer, "
      + "SubsamplingLayer (1D, 2D, 3D), GlobalPoolingLayer, ActivationLayer, DropoutLayer, "
      + "LocalResponseNormalization, Upsampling1D/2D/3D, ZeroPadding1D/2D/3D, Cropping1D/2D/3D, SpaceToDepthLayer, "
      + "FrozenLayer, FrozenLayerWithBackprop";
  /**
   * Parameter-free layers that act on each example alone: DL4J's own batched backprop passes the per-example errors
   * through them ({@link NoParameterLayer}).
   */
  private static final Set<Class<?>> PARAMETER_FREE = Set.of(SubsamplingLayer.class, Pooling2D.class,
      Subsampling1DLayer.class, Pooling1D.class, Subsampling3DLayer.class, GlobalPoolingLayer.class,
      ActivationLayer.class, DropoutLayer.class, LocalResponseNormalization.class, Upsampling1D.class,
      Upsampling2D.class, Upsampling3D.class, ZeroPadding1DLayer.class, ZeroPaddingLayer.class,
      ZeroPadding3DLayer.class, Cropping1D.class, Cropping2D.class, Cropping3D.class, SpaceToDepthLayer.class);
  /** Convolutions other than the 2-D one, each with a rule built on {@link UnfoldedConvolutionRule}. */
  private static final Set<Class<?>> UNFOLDED = Set.of(Convolution1DLayer.class, Convolution1D.class,
      Convolution3D.class, DepthwiseConvolution2D.class, SeparableConvolution2D.class, Deconvolution2D.class);

  private LayerRules() {
  }

  /** One rule per layer, in order; throws IllegalArgumentException at the first unsupported layer. */
  static List<PerExampleLayer> forNetwork(MultiLayerNetwork net, long convolutionChunkElements,
      ConvolutionNorms norms) {
    int count = net.getnLayers();
    checkArgument(count > 0, "network has no layers");
    StepCounts counts = StepCounts.of(net::getIterationCount, net::getEpochCount);
    List<PerExampleLayer> rules = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      checkPreprocessor(net.getLayerWiseConfigurations().getInputPreProcess(i), "input preprocessor of layer " + i);
      Layer layer = net.getLayer(i);
      rules.add(ruleFor(layer, describe(layer.conf().getLayer(), i), i == count - 1, counts,
          convolutionChunkElements, norms));
    }
    checkArgument(rules.stream().anyMatch(PerExampleLayer::hasParams), "network has no trainable parameters");
    for (int i = 1; i < count; i++) {
      Layer layer = net.getLayer(i);
      boolean trainableBelow = rules.subList(0, i).stream().anyMatch(PerExampleLayer::hasParams);
      checkArgument(!isFrozen(layer) || FrozenLayers.passesErrorsBack(layer) || !trainableBelow,
          "frozen %s stops back-propagation, so the trainable layers below it would get no gradient; freeze them "
              + "too or use FrozenLayerWithBackprop", describe(layer.conf().getLayer(), i));
    }
    return List.copyOf(rules);
  }

  /**
   * The rule for one layer of a {@code MultiLayerNetwork} or a {@code ComputationGraph}.
   *
   * @param where how refusals name the layer, e.g. "layer 2 (DenseLayer)"
   * @param output whether the layer is an output of the network (its loss starts the backward pass)
   * @throws IllegalArgumentException naming the layer when it has no per-example rule
   */
  static PerExampleLayer ruleFor(Layer layer, String where, boolean output, StepCounts counts,
      long convolutionChunkElements, ConvolutionNorms norms) {
    org.deeplearning4j.nn.conf.layers.Layer conf = layer.conf().getLayer();
    Class<?> type = conf.getClass();
    if (isFrozen(layer)) {
      return frozenRule(layer, conf, where, output);
    }
    if (conf instanceof BaseLayer) {
      checkBaseLayer((BaseLayer) conf, where);
    }
    if (conf instanceof BatchNormalization) {
      throw refused(where, "BatchNormalization mixes the examples of a batch through its batch statistics, "
          + "so per-example gradients (and the sensitivity bound of DP-SGD) do not exist; remove it and normalise "
          + "the inputs instead, or use a network without batch statistics");
    }
    if (output != (type == OutputLayer.class || type == LossLayer.class)) {
      throw refused(where, output ? "an output of the network must be an OutputLayer or a LossLayer"
          : "an OutputLayer or LossLayer is only supported as an output of the network");
    }
    if (type == DenseLayer.class || type == OutputLayer.class) {
      return new DenseGradients(layer, counts);
    }
    if (type == LossLayer.class) {
      return new LossLayerGradients((LossLayer) conf);
    }
    if (type == ConvolutionLayer.class) {
      ConvolutionLayer conv = (ConvolutionLayer) conf;
      checkArgument(conv.getConvolutionMode() != ConvolutionMode.Causal,
          "%s: ConvolutionMode.Causal is only defined for 1-D convolutions", where);
      checkArgument(conf.getIDropout() == null, "%s: dropout on a ConvolutionLayer's input is not supported; "
          + "put a DropoutLayer before it instead", where);
      return new ConvolutionGradients(layer, convolutionChunkElements, norms);
    }
    if (UNFOLDED.contains(type)) {
      checkArgument(conf.getIDropout() == null, "%s: dropout on a %s's input is not supported; put a DropoutLayer "
          + "before it instead", where, type.getSimpleName());
      return unfoldedRule(layer, type, convolutionChunkElements, norms);
    }
    if (type == EmbeddingLayer.class || type == EmbeddingSequenceLayer.class) {
      return new EmbeddingGradients(layer, convolutionChunkElements);
    }
    if (type == PReLULayer.class) {
      checkArgument(conf.getIDropout() == null, "%s: dropout on a PReLULayer's input is not supported; put a "
          + "DropoutLayer before it instead", where);
      return new PReLUGradients(layer);
    }
    if (type == SubsamplingLayer.class) {
      return new PoolingGradients((SubsamplingLayer) conf);
    }
    if (PARAMETER_FREE.contains(type)) {
      return new NoParameterLayer(layer);
    }
    throw refused(where, "per-example gradients are not implemented for this layer type; supported: "
        + SUPPORTED);
  }

  private static PerExampleLayer unfoldedRule(Layer layer, Class<?> type, long chunkElements,
      ConvolutionNorms norms) {
    if (type == Convolution3D.class) {
      return ConvolutionNdGradients.threeDimensional(layer, chunkElements, norms);
    }
    if (type == DepthwiseConvolution2D.class || type == SeparableConvolution2D.class) {
      return new DepthwiseConvolutionGradients(layer, chunkElements, norms);
    }
    if (type == Deconvolution2D.class) {
      return new DeconvolutionGradients(layer, chunkElements, norms);
    }
    return ConvolutionNdGradients.oneDimensional(layer, chunkElements, norms);
  }

  /**
   * Whether DL4J trains none of the layer's parameters ({@code FrozenLayer}, {@code FrozenLayerWithBackprop},
   * {@code setFeatureExtractor}). The wrappers report the wrapped layer's configuration, so the implementation
   * class is what tells ({@link FrozenLayers}).
   */
  static boolean isFrozen(Layer layer) {
    return FrozenLayers.isFrozen(layer) || FrozenLayers.isFrozen(layer.conf().getLayer());
  }

  /**
   * Frozen parameters take no part in clipping: no norm, a zero sum. The layer runs forward in inference mode;
   * errors pass back through it only for {@code FrozenLayerWithBackprop}, whose inner layer must then act on each
   * example separately.
   */
  private static PerExampleLayer frozenRule(Layer layer, org.deeplearning4j.nn.conf.layers.Layer conf, String where,
      boolean output) {
    checkArgument(!output, "frozen %s: the output layer cannot be frozen when training privately (nothing above it "
        + "would be trained); freeze only layers below the trainable ones", where);
    if (FrozenLayers.passesErrorsBack(layer)) {
      Class<?> type = conf.getClass();
      checkArgument(type == DenseLayer.class || type == ConvolutionLayer.class || UNFOLDED.contains(type)
              || type == PReLULayer.class || PARAMETER_FREE.contains(type),
          "%s: back-propagation through a frozen %s is not supported; supported inside FrozenLayerWithBackprop: "
              + "DenseLayer, ConvolutionLayer, Convolution1DLayer, Convolution3D, DepthwiseConvolution2D, "
              + "SeparableConvolution2D, Deconvolution2D, PReLULayer and the parameter-free layers that act on each "
              + "example alone (pooling, activation, dropout, upsampling, padding, cropping)", where,
          type.getSimpleName());
    }
    return new NoParameterLayer(layer);
  }

  private static void checkBaseLayer(BaseLayer conf, String where) {
    GradientNormalization normalization = conf.getGradientNormalization();
    checkArgument(normalization == null || normalization == GradientNormalization.None,
        "%s: gradientNormalization %s acts on the batch gradient, not per example, and is not part of the "
            + "DP-SGD mechanism; remove it (per-example clipping already bounds every gradient)",
        where, normalization);
    checkArgument(conf.getWeightNoise() == null, "%s: weight noise (DropConnect) is not supported by "
        + "per-example clipping; use a DropoutLayer instead", where);
  }

  private static IllegalArgumentException refused(String where, String why) {
    return new IllegalArgumentException(where + ": " + why);
  }

  static String describe(org.deeplearning4j.nn.conf.layers.Layer conf, int index) {
    String name = conf.getLayerName() == null ? "" : " '" + conf.getLayerName() + "'";
    return "layer " + index + name + " (" + conf.getClass().getSimpleName() + ")";
  }

  /**
   * Input preprocessors that keep one example per row: CNN ↔ dense reshapes. Time-series preprocessors turn
   * time steps into rows, which the per-example rules would take for examples, and are refused.
   */
  static void checkPreprocessor(InputPreProcessor pre, String where) {
    checkArgument(pre == null || pre instanceof CnnToFeedForwardPreProcessor
            || pre instanceof FeedForwardToCnnPreProcessor,
        "%s (%s) is not supported by per-example clipping; supported: "
            + "CnnToFeedForwardPreProcessor, FeedForwardToCnnPreProcessor",
        where, pre == null ? "" : pre.getClass().getSimpleName());
  }
}
