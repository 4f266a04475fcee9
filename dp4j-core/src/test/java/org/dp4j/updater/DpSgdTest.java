package org.dp4j.updater;

import org.dp4j.noise.GaussianNoise;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.File;
import java.io.IOException;
import java.nio.file.Path;
import org.deeplearning4j.nn.conf.MultiLayerConfiguration;
import org.deeplearning4j.nn.conf.layers.BaseLayer;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.deeplearning4j.util.ModelSerializer;
import org.dp4j.accounting.SampledGaussianMechanism;
import org.dp4j.clipping.ClippingMode;
import org.dp4j.clipping.TinyNetworks;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.learning.config.Adam;
import org.nd4j.linalg.learning.config.Nesterovs;
import org.nd4j.linalg.lossfunctions.LossFunctions.LossFunction;

class DpSgdTest {
  @BeforeAll
  static void doublePrecision() {
    Nd4j.setDefaultDataTypes(DataType.DOUBLE, DataType.DOUBLE);
  }

  private static DpSgd adam() {
    return DpSgd.builder().clipNorm(1.5).noiseMultiplier(1.1).expectedBatchSize(8).baseUpdater(new Adam(1e-2))
        .clipping(ClippingMode.PER_LAYER).build();
  }

  private static DpSgd updaterOf(MultiLayerConfiguration conf, int layer) {
    return (DpSgd) ((BaseLayer) conf.getConf(layer).getLayer()).getIUpdater();
  }

  @Test
  void configurationJsonAndYamlRoundTripsKeepTheMechanism() {
    MultiLayerNetwork net = TinyNetworks.mlp(LossFunction.MCXENT, Activation.SOFTMAX, adam());
    MultiLayerConfiguration conf = net.getLayerWiseConfigurations();
    MultiLayerConfiguration fromJson = MultiLayerConfiguration.fromJson(conf.toJson());
    MultiLayerConfiguration fromYaml = MultiLayerConfiguration.fromYaml(conf.toYaml());
    assertThat(fromJson).isEqualTo(conf);
    assertThat(fromYaml).isEqualTo(conf);
    DpSgd restored = updaterOf(fromJson, 0);
    assertThat(restored).isEqualTo(adam());
    assertThat(restored.clipNorm()).isEqualTo(1.5);
    assertThat(restored.noiseMultiplier()).isEqualTo(1.1);
    assertThat(restored.expectedBatchSize()).isEqualTo(8);
    assertThat(restored.clipping()).isEqualTo(ClippingMode.PER_LAYER);
    assertThat(restored.baseUpdater()).isEqualTo(new Adam(1e-2));
  }

  @Test
  void modelSerializerRestoresParametersUpdaterStateAndContinuesIdentically(@TempDir Path dir) throws IOException {
    MultiLayerNetwork net = TinyNetworks.mlp(LossFunction.MCXENT, Activation.SOFTMAX, adam());
    DpSgdStep step = DpSgdStep.withInsecureNoise(net, GaussianNoise.insecureFixedSeed(3));
    for (int i = 0; i < 2; i++) {
      step.apply(TinyNetworks.features(50 + i, 8, 6), TinyNetworks.labels(60 + i, 8, 3, true));
    }
    File file = dir.resolve("net.zip").toFile();
    ModelSerializer.writeModel(net, file, true);
    MultiLayerNetwork restored = ModelSerializer.restoreMultiLayerNetwork(file, true);

    assertThat(updaterOf(restored.getLayerWiseConfigurations(), 3)).isEqualTo(adam());
    assertThat(restored.params()).isEqualTo(net.params());
    assertThat(restored.getUpdater().getStateViewArray()).isEqualTo(net.getUpdater().getStateViewArray());

    // Same next batch and same noise: both networks must land on the same parameters (Adam state restored).
    INDArray x = TinyNetworks.features(70, 8, 6);
    INDArray y = TinyNetworks.labels(71, 8, 3, true);
    DpSgdStep.withInsecureNoise(net, GaussianNoise.insecureFixedSeed(9)).apply(x, y);
    DpSgdStep.withInsecureNoise(restored, GaussianNoise.insecureFixedSeed(9)).apply(x, y);
    assertThat(restored.params().sub(net.params()).amaxNumber().doubleValue()).isLessThan(1e-15);
  }

  @Test
  void mechanismUsesExpectedBatchOverDatasetSize() {
    DpSgd dp = DpSgd.builder().clipNorm(1).noiseMultiplier(1.1).expectedBatchSize(256).build();
    SampledGaussianMechanism m = dp.mechanism(60_000);
    assertThat(m.samplingRate()).isEqualTo(256.0 / 60_000);
    assertThat(m.noiseMultiplier()).isEqualTo(1.1);
    assertThat(dp.noiseStd()).isEqualTo(1.1);
    assertThatThrownBy(() -> dp.mechanism(100)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("datasetSize must be >= expectedBatchSize = 256.0, was 100");
  }

  @Test
  void builderRejectsInvalidMechanisms() {
    assertThatThrownBy(() -> DpSgd.builder().clipNorm(-1).noiseMultiplier(1).expectedBatchSize(10).build())
        .isInstanceOf(IllegalArgumentException.class).hasMessage("clipNorm must be finite and > 0, was -1.0");
    assertThatThrownBy(() -> DpSgd.builder().clipNorm(1).noiseMultiplier(0).expectedBatchSize(10).build())
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("noiseMultiplier must be finite and > 0");
    assertThatThrownBy(() -> DpSgd.builder().clipNorm(1).noiseMultiplier(1).build())
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("expectedBatchSize must be finite");
    assertThatThrownBy(() -> DpSgd.builder().clipNorm(1).noiseMultiplier(1).expectedBatchSize(4)
        .baseUpdater(adam()).build()).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("baseUpdater must be a non-DP updater");
  }

  @Test
  void learningRateAndStateSizeComeFromTheBaseUpdater() {
    DpSgd dp = DpSgd.builder().clipNorm(1).noiseMultiplier(1).expectedBatchSize(4)
        .baseUpdater(new Nesterovs(0.05, 0.9)).build();
    assertThat(dp.getLearningRate(0, 0)).isEqualTo(0.05);
    assertThat(dp.stateSize(100)).isEqualTo(100);
    assertThat(dp.clone()).isEqualTo(dp).isNotSameAs(dp);
  }
}
