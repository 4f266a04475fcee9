package org.dp4j.clipping;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.stream.Collectors;
import org.deeplearning4j.nn.conf.graph.StackVertex;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.deeplearning4j.nn.conf.layers.BatchNormalization;
import org.deeplearning4j.nn.conf.layers.DenseLayer;
import org.deeplearning4j.nn.conf.layers.DropoutLayer;
import org.deeplearning4j.nn.conf.layers.LSTM;
import org.deeplearning4j.nn.conf.layers.misc.ElementWiseMultiplicationLayer;
import org.deeplearning4j.nn.conf.layers.OutputLayer;
import org.deeplearning4j.nn.conf.layers.RnnOutputLayer;
import org.deeplearning4j.nn.conf.layers.recurrent.LastTimeStep;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.deeplearning4j.nn.transferlearning.TransferLearning;
import org.junit.jupiter.api.Test;
import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.learning.config.Sgd;
import org.nd4j.linalg.lossfunctions.LossFunctions.LossFunction;

/** The validator names the path of every layer and every refusal at once, with its replacement. */
class PrivacyValidatorTest {

  private static List<LayerPath> paths(ValidationReport report) {
    return report.entries().stream().map(ValidationReport.Entry::path).collect(Collectors.toList());
  }

  @Test
  void listsThePathOfEveryLayer() {
    MultiLayerNetwork net = TinyNetworks.init(TinyNetworks.base(new Sgd(0.1))
        .layer(new LSTM.Builder().nOut(4).build())
        .layer(new LastTimeStep(new LSTM.Builder().nOut(3).build()))
        .layer(new ElementWiseMultiplicationLayer.Builder().nOut(3).build())
        .layer(new DropoutLayer.Builder(0.5).build())
        .layer(new OutputLayer.Builder(LossFunction.MCXENT).nOut(2).activation(Activation.SOFTMAX).build())
        .setInputType(InputType.recurrent(3, 5)).build());
    MultiLayerNetwork frozen = new TransferLearning.Builder(net).setFeatureExtractor(0).build();
    ValidationReport report = PrivacyValidator.inspect(frozen);
    assertThat(paths(report)).containsExactly(LayerPath.FROZEN, LayerPath.VECTORISED, LayerPath.GENERIC,
        LayerPath.NO_PARAMETERS, LayerPath.VECTORISED);
    assertThat(report.isSupported()).isTrue();
    assertThat(report.usesGenericPath()).isTrue();
    report.requireSupported();
    String table = report.toString();
    assertThat(table.lines().count()).isEqualTo(6);
    assertThat(table).contains("layer 2 'layer2'").contains("ElementWiseMultiplicationLayer")
        .contains("generic (slow)").contains("LastTimeStep").contains("DenseGradients");
  }

  @Test
  void aRuleRegisteredForTheWrappedLayerIsNotUsedForItsWrapper() {
    // A wrapper layer's conf() is the wrapped layer's: an LSTM rule must not receive LastTimeStep's layer.
    LayerRuleRegistry.register(LSTM.class, layer -> {
      throw new AssertionError("the LSTM rule was asked for " + layer);
    });
    try {
      MultiLayerNetwork net = TinyNetworks.init(TinyNetworks.base(new Sgd(0.1))
          .layer(new LastTimeStep(new LSTM.Builder().nOut(3).build()))
          .layer(new OutputLayer.Builder(LossFunction.MSE).nOut(2).build())
          .setInputType(InputType.recurrent(3, 5)).build());
      assertThat(paths(PrivacyValidator.inspect(net))).containsExactly(LayerPath.VECTORISED, LayerPath.VECTORISED);
    } finally {
      LayerRuleRegistry.unregister(LSTM.class);
    }
  }

  @Test
  void namesEveryRefusalWithItsReplacementBeforeAnyStep() {
    MultiLayerNetwork net = TinyNetworks.init(TinyNetworks.base(new Sgd(0.1))
        .layer(new DenseLayer.Builder().nOut(4).build())
        .layer(new BatchNormalization.Builder().build())
        .layer(new RnnOutputLayer.Builder(LossFunction.MSE).nOut(3).build())
        .layer(new OutputLayer.Builder(LossFunction.MSE).nOut(2).build())
        .setInputType(InputType.feedForward(3)).build());
    ValidationReport report = PrivacyValidator.inspect(net);
    assertThat(paths(report)).containsExactly(LayerPath.VECTORISED, LayerPath.REFUSED, LayerPath.REFUSED,
        LayerPath.REFUSED);
    assertThat(report.refusals().get(2).detail()).contains("RnnToFeedForwardPreProcessor");
    assertThat(report.refusals().get(0).detail()).contains("hasLayerNorm(true), or no normalisation");
    assertThat(report.refusals().get(1).detail()).contains("FeedForwardToRnnPreProcessor");
    assertThatThrownBy(report::requireSupported).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("layer 1 'layer1' (BatchNormalization)")
        .hasMessageContaining("input preprocessor of layer 3");
    assertThat(report.toString()).contains("REFUSED");
  }

  @Test
  void graphVerticesAndNetworkProblems() {
    ComputationGraph ok = TinyGraphs.denseSkip();
    ValidationReport report = PrivacyValidator.inspect(ok);
    assertThat(report.isSupported()).isTrue();
    assertThat(report.entries()).anyMatch(e -> e.type().equals("MergeVertex")
        && e.path() == LayerPath.NO_PARAMETERS);
    ComputationGraph stacked = TinyGraphs.init(TinyGraphs.builder().addInputs("x", "z")
        .addVertex("stack", new StackVertex(), "x", "z")
        .addLayer("bn", new BatchNormalization.Builder().nIn(4).nOut(4).build(), "stack")
        .addLayer("out", new OutputLayer.Builder(LossFunction.MSE).nIn(4).nOut(2).build(), "bn")
        .setOutputs("out").build());
    ValidationReport refused = PrivacyValidator.inspect(stacked);
    assertThat(refused.refusals()).extracting(ValidationReport.Entry::name)
        .containsExactly("vertex 'stack'", "vertex 'bn'");
    assertThat(refused.refusals().get(0).detail()).contains("MergeVertex instead");
  }
}
