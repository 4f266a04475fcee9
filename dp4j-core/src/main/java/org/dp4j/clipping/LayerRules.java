package org.dp4j.clipping;

import static com.google.common.base.Preconditions.checkArgument;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.deeplearning4j.nn.api.Layer;
import org.deeplearning4j.nn.conf.CNN2DFormat;
import org.deeplearning4j.nn.conf.GradientNormalization;
import org.deeplearning4j.nn.conf.InputPreProcessor;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.layers.ActivationLayer;
import org.deeplearning4j.nn.conf.layers.BaseLayer;
import org.deeplearning4j.nn.conf.layers.BatchNormalization;
import org.deeplearning4j.nn.conf.layers.ConvolutionLayer;
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
 * Which DL4J layers have a per-example gradient rule, and the refusal (naming the layer and what to use instead)
 * for those that do not. Exact classes are matched: subclasses such as {@code Convolution1DLayer} or
 * {@code Deconvolution2D} compute different gradients and are refused.
 */
final class LayerRules {
  private static final String SUPPORTED = "DenseLayer, OutputLayer, LossLayer, ConvolutionLayer (2D, NCHW), "
      + "SubsamplingLayer, GlobalPoolingLayer, ActivationLayer, DropoutLayer, LocalResponseNormalization, "
      + "FrozenLayer, FrozenLayerWithBackprop, " + RecurrentRules.SUPPORTED;

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
    if (output != (type == OutputLayer.class || type == LossLayer.class || RecurrentRules.isOutput(type))) {
      throw refused(where, output ? "an output of the network must be an OutputLayer, a LossLayer, an RnnOutputLayer "
          + "or an RnnLossLayer" : "an OutputLayer or LossLayer is only supported as an output of the network");
    }
    PerExampleLayer recurrent = RecurrentRules.ruleFor(layer, where, convolutionChunkElements);
    if (recurrent != null) {
      return recurrent;
    }
    if (type == DenseLayer.class || type == OutputLayer.class) {
      return new DenseGradients(layer, counts);
    }
    if (type == LossLayer.class) {
      return new LossLayerGradients((LossLayer) conf);
    }
    if (type == ConvolutionLayer.class) {
      ConvolutionLayer conv = (ConvolutionLayer) conf;
      checkArgument(conv.getCnn2dDataFormat() == CNN2DFormat.NCHW,
          "%s: only the NCHW data format is supported, was %s", where, conv.getCnn2dDataFormat());
      checkArgument(conf.getIDropout() == null, "%s: dropout on a ConvolutionLayer's input is not supported; "
          + "put a DropoutLayer before it instead", where);
      return new ConvolutionGradients(layer, convolutionChunkElements, norms);
    }
    if (type == SubsamplingLayer.class || type == GlobalPoolingLayer.class || type == ActivationLayer.class
        || type == DropoutLayer.class || type == LocalResponseNormalization.class) {
      return new NoParameterLayer(layer);
    }
    throw refused(where, "per-example gradients are not implemented for this layer type; supported: "
        + SUPPORTED);
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
      checkArgument(type == DenseLayer.class || type == ConvolutionLayer.class || type == SubsamplingLayer.class
              || type == GlobalPoolingLayer.class || type == ActivationLayer.class || type == DropoutLayer.class
              || type == LocalResponseNormalization.class,
          "%s: back-propagation through a frozen %s is not supported; supported inside FrozenLayerWithBackprop: "
              + "DenseLayer, ConvolutionLayer, SubsamplingLayer, GlobalPoolingLayer, ActivationLayer, DropoutLayer, "
              + "LocalResponseNormalization", where, type.getSimpleName());
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
    checkArgument(!(conf instanceof DenseLayer && ((DenseLayer) conf).hasLayerNorm()),
        "%s: layer normalisation (hasLayerNorm) is not supported by per-example clipping", where);
  }

  private static IllegalArgumentException refused(String where, String why) {
    return new IllegalArgumentException(where + ": " + why);
  }

  /**
   * The views of one layer's slice of the flattened gradient, by parameter key. DL4J's
   * {@code BidirectionalParamInitializer} hands the wrapper's own configuration to the wrapped layer's initializer
   * (a ClassCastException); it gets the wrapped layer's configuration here.
   */
  static Map<String, INDArray> gradientViews(Layer layer, INDArray slice) {
    org.deeplearning4j.nn.conf.layers.Layer conf = layer.conf().getLayer();
    NeuralNetConfiguration netConf = layer.conf();
    if (conf instanceof Bidirectional) {
      netConf = netConf.clone();
      netConf.setLayer(((Bidirectional) conf).getFwd());
    }
    return conf.initializer().getGradientsFromFlattened(netConf, slice);
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
