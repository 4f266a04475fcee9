package org.dp4j.clipping;

import static org.dp4j.InvalidSettingException.checkArgument;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.deeplearning4j.nn.api.Layer;
import org.deeplearning4j.nn.api.layers.IOutputLayer;
import org.deeplearning4j.nn.conf.ConvolutionMode;
import org.deeplearning4j.nn.conf.GradientNormalization;
import org.deeplearning4j.nn.conf.InputPreProcessor;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.layers.ActivationLayer;
import org.deeplearning4j.nn.conf.layers.BaseLayer;
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
import org.deeplearning4j.nn.conf.layers.SelfAttentionLayer;
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
import org.deeplearning4j.nn.conf.layers.recurrent.Bidirectional;
import org.deeplearning4j.nn.conf.layers.misc.FrozenLayerWithBackprop;
import org.deeplearning4j.nn.conf.preprocessor.CnnToFeedForwardPreProcessor;
import org.deeplearning4j.nn.conf.preprocessor.FeedForwardToCnnPreProcessor;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.nd4j.linalg.api.ndarray.INDArray;

/**
 * The per-example gradient rule of each DL4J layer: a rule registered with {@link LayerRuleRegistry} first, then
 * dp4j's vectorised rules (exact classes are matched: subclasses such as {@code Convolution1DLayer} compute other
 * gradients), then the generic exact path ({@link GenericLayerGradients}) for any other layer that keeps the examples
 * of a batch independent. Layers that mix examples are refused, naming the layer and what to use instead.
 */
final class LayerRules {
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
    RecurrentRules.checkBackprop(net.getLayerWiseConfigurations().getBackpropType());
    StepCounts counts = StepCounts.of(net::getIterationCount, net::getEpochCount);
    List<PerExampleLayer> rules = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      checkPreprocessor(net.getLayerWiseConfigurations().getInputPreProcess(i), "input preprocessor of layer " + i);
      Layer layer = net.getLayer(i);
      rules.add(ruleFor(layer, describe(net.getLayerWiseConfigurations().getConf(i).getLayer(), i), i == count - 1,
          counts,
          convolutionChunkElements, norms));
    }
    ConvolutionPoolingFusion.apply(rules, net.getLayerWiseConfigurations(), java.util.Arrays.asList(net.getLayers()),
        convolutionChunkElements, norms);
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
    checkArgument(output == layer instanceof IOutputLayer, output
        ? "%s: an output of the network must be an output layer (OutputLayer, LossLayer, RnnOutputLayer, ...)"
        : "%s: an output layer is only supported as an output of the network", where);
    boolean wrapper = layer instanceof org.deeplearning4j.nn.layers.wrapper.BaseWrapperLayer;
    Optional<LayerRuleFactory> registered = wrapper ? Optional.empty() : LayerRuleRegistry.lookup(conf.getClass());
    if (registered.isPresent()) {
      return registeredRule(registered.get(), layer, where, output);
    }
    // Recurrent layers, their Bidirectional and LastTimeStep wrappers, and the recurrent output layers.
    PerExampleLayer recurrent = RecurrentRules.ruleFor(layer, where, convolutionChunkElements);
    if (recurrent != null) {
      return recurrent;
    }
    if (wrapper) {
      // TimeDistributed, MaskZeroLayer, a LastTimeStep of another layer: conf() is the wrapped layer's, so the rules
      // matched by configuration class below would take the wrapper for the wrapped layer; DL4J's own backprop of
      // the wrapper is exact.
      return wrapperRule(layer, where, output);
    }
    MixingLayers.check(conf, where);
    if (type == SelfAttentionLayer.class && ((SelfAttentionLayer) conf).isProjectInput()
        && conf.getIDropout() == null) {
      return new SelfAttentionGradients(layer::getParam, where, convolutionChunkElements);
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
    if (layer.numParams() == 0 && !output) {
      // Batched backprop is exact for a parameter-free layer that keeps examples apart: nothing to clip.
      return new NoParameterLayer(layer);
    }
    return GenericLayerGradients.of(layer, where, GenericLayerGradients.STORE_ELEMENTS);
  }

  private static PerExampleLayer wrapperRule(Layer layer, String where, boolean output) {
    MixingLayers.check(layer.conf().getLayer(), where);
    return layer.numParams() == 0 && !output ? new NoParameterLayer(layer)
        : GenericLayerGradients.of(layer, where, GenericLayerGradients.STORE_ELEMENTS);
  }

  private static PerExampleLayer registeredRule(LayerRuleFactory factory, Layer layer, String where, boolean output) {
    PerExampleLayer rule = factory.create(layer);
    checkArgument(rule != null, "%s: the registered rule factory returned null", where);
    checkArgument(rule.isOutput() == output, "%s: the registered rule %s says isOutput() = %s, but the layer %s an "
        + "output of the network", where, rule.getClass().getName(), rule.isOutput(), output ? "is" : "is not");
    checkArgument(rule.hasParams() == layer.numParams() > 0, "%s: the registered rule %s says hasParams() = %s, but "
        + "the layer has %s parameters", where, rule.getClass().getName(), rule.hasParams(), layer.numParams());
    return rule;
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

  static void checkBaseLayer(BaseLayer conf, String where) {
    GradientNormalization normalization = conf.getGradientNormalization();
    checkArgument(normalization == null || normalization == GradientNormalization.None,
        "%s: gradientNormalization %s acts on the batch gradient, not per example, and is not part of the "
            + "DP-SGD mechanism; remove it (per-example clipping already bounds every gradient)",
        where, normalization);
    checkArgument(conf.getWeightNoise() == null, "%s: weight noise (DropConnect) is not supported by "
        + "per-example clipping; use a DropoutLayer instead", where);
  }

  static String describe(org.deeplearning4j.nn.conf.layers.Layer conf, int index) {
    String name = conf.getLayerName() == null ? "" : " '" + conf.getLayerName() + "'";
    return "layer " + index + name + " (" + conf.getClass().getSimpleName() + ")";
  }

  /**
   * Input preprocessors that keep one example per row: CNN ↔ dense reshapes. The time-series preprocessors turn
   * each example's time steps into rows of a dense layer, which the per-example rules would take for examples, and
   * are refused: recurrent output layers ({@code RnnOutputLayer}) take the time series directly.
   */
  static void checkPreprocessor(InputPreProcessor pre, String where) {
    checkArgument(pre == null || pre instanceof CnnToFeedForwardPreProcessor
            || pre instanceof FeedForwardToCnnPreProcessor,
        "%s (%s) is not supported by per-example clipping: it makes each time step a row of its own, so a row is no "
            + "longer an example; use RnnOutputLayer (or LastTimeStep) instead of a dense layer on a time series; "
            + "supported: CnnToFeedForwardPreProcessor, FeedForwardToCnnPreProcessor",
        where, pre == null ? "" : pre.getClass().getSimpleName());
  }
}
