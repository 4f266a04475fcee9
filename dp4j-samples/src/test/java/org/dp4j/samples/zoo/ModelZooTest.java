package org.dp4j.samples.zoo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import java.util.EnumMap;
import java.util.Map;
import org.deeplearning4j.nn.api.Model;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.dp4j.mbcd.LiftedCnn;
import org.dp4j.mbcd.LiftedMlp;
import org.dp4j.mbcd.OutputLoss;
import org.junit.jupiter.api.Test;
import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.learning.config.Sgd;

/** Every zoo network builds, and has the parameter count worked out by hand from its layers. */
class ModelZooTest {
  /**
   * Weights + biases per layer, by hand (conv: k·k·in·out + out; dense: in·out + out; DL4J's LSTM: 4u·(in + u) + 4u;
   * same-mode stride s: ⌈n/s⌉; truncate: ⌊(n + 2p − k)/s⌋ + 1; pooling has no parameters).
   */
  private static final Map<ModelZoo.Entry, Long> HAND_COUNTS = new EnumMap<>(Map.of(
      // 784·256 + 256 + 256·10 + 10
      ModelZoo.Entry.MNIST_MLP, 203_530L,
      // avg-pool 2: 14·14 = 196 inputs; 196·256 + 256 + 256·10 + 10
      ModelZoo.Entry.MNIST_POOLED_MLP, 53_002L,
      // 784·128 + 128 + 128·10 + 10
      ModelZoo.Entry.AUDIT_MLP, 101_770L,
      // conv 8·8·1·16 + 16 = 1,040 (28 → 14); pool 2/1 → 13; conv 4·4·16·32 + 32 = 8,224 (13 → 7); pool → 6;
      // dense 6·6·32·32 + 32 = 36,896; output 32·10 + 10 = 330
      ModelZoo.Entry.MNIST_CNN, 46_490L,
      // the CNN plus the branch conv 3·3·32·32 + 32 = 9,248 (6×6×32 added to pool2: same shape)
      ModelZoo.Entry.MNIST_CNN_GRAPH, 55_738L,
      // LSTM 4·64·(28 + 64) + 4·64 = 23,808; output 64·10 + 10 = 650
      ModelZoo.Entry.MNIST_LSTM, 24_458L,
      // 81·7·7 = 3,969 features: 3,969·10 + 10
      ModelZoo.Entry.SCATTERNET_LINEAR, 39_700L,
      // conv 3·3·81·16 + 16 = 11,680 (7 → ⌊(7 + 2 − 3)/2⌋ + 1 = 4); conv 3·3·16·32 + 32 = 4,640 (4 → 4);
      // dense 4·4·32·32 + 32 = 16,416; output 330
      ModelZoo.Entry.SCATTERNET_CNN, 33_066L,
      // 784·256 + 256 + 256·256 + 256 + 256·10 + 10
      ModelZoo.Entry.LIFTED_MLP, 269_322L,
      // conv 5·5·1·6 + 6 = 156 (28 → ⌊23/2⌋ + 1 = 12); avg-pool 2 → 6; dense 6·6·6·64 + 64 = 13,888; output 650
      ModelZoo.Entry.LIFTED_CNN, 14_694L));

  @Test
  void everyEntryBuildsWithItsHandCountedParameters() {
    assertThat(HAND_COUNTS.keySet()).containsExactlyInAnyOrder(ModelZoo.Entry.values());
    for (ModelZoo.Entry e : ModelZoo.Entry.values()) {
      Model net = e.network(7);
      assertThat(net.numParams()).as(e.id()).isEqualTo(HAND_COUNTS.get(e));
      assertThat(net).as(e.id()).isInstanceOf(e == ModelZoo.Entry.MNIST_CNN_GRAPH ? ComputationGraph.class
          : MultiLayerNetwork.class);
      assertThat(ModelZoo.Entry.byName(e.id().toUpperCase(java.util.Locale.ROOT))).isEqualTo(e);
    }
    assertThat(Arrays.stream(ModelZoo.Entry.values()).map(ModelZoo.Entry::id).distinct())
        .hasSize(ModelZoo.Entry.values().length);
    assertThatThrownBy(() -> ModelZoo.Entry.byName("resnet")).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("no model named 'resnet'").hasMessageContaining("mnist-cnn");
  }

  @Test
  void theLiftedNetworksAreTheShapesTheLiftedTrainerTakes() {
    // the trainer's own checks accept them, and count the released blocks: 3 for each default
    assertThat(LiftedMlp.from(ModelZoo.liftedMlp(1, OutputLoss.SQUARED, 784, 256, 256, 10)).numBlocks()).isEqualTo(3);
    assertThat(LiftedMlp.from(ModelZoo.liftedMlp(1, OutputLoss.SOFTMAX_CROSS_ENTROPY, 5, 3)).outputLoss())
        .isEqualTo(OutputLoss.SOFTMAX_CROSS_ENTROPY);
    assertThat(LiftedCnn.from(ModelZoo.liftedCnn(1, OutputLoss.SQUARED, 6, 64)).numBlocks()).isEqualTo(3);
  }

  @Test
  void refusesSizesThatAreNotPositive() {
    assertThatThrownBy(() -> ModelZoo.mnistMlp(new Sgd(0.1), 1, new int[] {256, 0}, Activation.TANH))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("[256, 0]");
    assertThatThrownBy(() -> ModelZoo.mnistLstm(new Sgd(0.1), 1, 0)).hasMessageContaining("was 0");
    assertThatThrownBy(() -> ModelZoo.liftedMlp(1, OutputLoss.SQUARED, 784)).hasMessageContaining("[784]");
  }
}
