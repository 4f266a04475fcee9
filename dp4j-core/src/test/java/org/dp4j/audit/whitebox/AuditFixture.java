package org.dp4j.audit.whitebox;

import org.deeplearning4j.nn.conf.MultiLayerConfiguration;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.layers.DenseLayer;
import org.deeplearning4j.nn.conf.layers.OutputLayer;
import org.dp4j.training.DpSgdSetup;
import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.dataset.DataSet;
import org.nd4j.linalg.learning.config.Sgd;
import org.nd4j.linalg.lossfunctions.LossFunctions;

/**
 * The small audited run of the white-box tests: two Gaussian blobs in the first {@link #INFORMATIVE} of
 * {@link #INPUTS} features (the rest blank in every record, like MNIST's border pixels, so 70 × 16 first-layer
 * weights get no data gradient and host the Dirac canaries), a 80-16-2 ReLU MLP, n = 1000, expected batch 10
 * (q = 0.01), 5 epochs = 500 steps, clip norm 1, δ = 1e-5.
 */
final class AuditFixture {
  static final int INFORMATIVE = 10;
  static final int INPUTS = 80;
  static final int HIDDEN = 16;
  static final int N = 1000;
  static final int BATCH = 10;
  static final int EPOCHS = 5;
  static final double DELTA = 1e-5;
  /** Flat index where the output layer's parameters start (after 80·16 weights and 16 biases). */
  static final int OUTPUT_LAYER_START = INPUTS * HIDDEN + HIDDEN;

  private AuditFixture() {}

  static DpSgdSetup setup(double targetEpsilon) {
    return DpSgdSetup.builder().datasetSize(N).expectedBatchSize(BATCH).epochs(EPOCHS).clipNorm(1.0)
        .targetEpsilon(targetEpsilon).delta(DELTA).build();
  }

  static MultiLayerConfiguration mlp() {
    return new NeuralNetConfiguration.Builder().seed(1).dataType(DataType.FLOAT).updater(new Sgd(0.5)).list()
        .layer(new DenseLayer.Builder().nIn(INPUTS).nOut(HIDDEN).activation(Activation.RELU).build())
        .layer(new OutputLayer.Builder(LossFunctions.LossFunction.MCXENT).nIn(HIDDEN).nOut(2)
            .activation(Activation.SOFTMAX).build())
        .build();
  }

  static DataSet blobs() {
    return org.dp4j.audit.Blobs.of(N, INFORMATIVE, INPUTS);
  }
}
