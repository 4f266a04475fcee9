package org.dp4j.training;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Random;
import org.deeplearning4j.nn.conf.MultiLayerConfiguration;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.layers.Convolution1DLayer;
import org.deeplearning4j.nn.conf.layers.EmbeddingSequenceLayer;
import org.deeplearning4j.nn.conf.layers.GlobalPoolingLayer;
import org.deeplearning4j.nn.conf.layers.OutputLayer;
import org.deeplearning4j.nn.conf.layers.PoolingType;
import org.deeplearning4j.nn.weights.WeightInit;
import org.dp4j.noise.AesCtrRandom;
import org.dp4j.noise.GaussianNoise;
import org.junit.jupiter.api.Test;
import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.dataset.DataSet;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.learning.config.Sgd;
import org.nd4j.linalg.lossfunctions.LossFunctions.LossFunction;

/**
 * Smoke test of the private {@code fit} on a token model (embedding → 1-D convolution → max pooling → softmax): a
 * synthetic task with a known answer, "does the sequence contain token 7?", is learned under DP-SGD.
 */
class PrivateSequenceFitTest {
  private static final int N = 400;
  private static final int STEPS = 10;
  private static final int VOCABULARY = 12;
  private static final int KEY = 7;

  /** Half of the sequences contain the key token once at a random place, the other half never. */
  static DataSet containsKeyToken(long seed, int n) {
    Random random = new Random(seed);
    INDArray x = Nd4j.create(DataType.FLOAT, n, STEPS);
    INDArray y = Nd4j.zeros(DataType.FLOAT, n, 2);
    for (int i = 0; i < n; i++) {
      boolean positive = i % 2 == 0;
      for (int t = 0; t < STEPS; t++) {
        int token = random.nextInt(VOCABULARY - 1);
        x.putScalar(i, t, token >= KEY ? token + 1 : token);
      }
      if (positive) {
        x.putScalar(i, random.nextInt(STEPS), KEY);
      }
      y.putScalar(i, positive ? 1 : 0, 1.0);
    }
    return new DataSet(x, y);
  }

  static MultiLayerConfiguration tokenModel() {
    return new NeuralNetConfiguration.Builder().seed(5).dataType(DataType.FLOAT).updater(new Sgd(0.5))
        .weightInit(WeightInit.XAVIER).list()
        .layer(new EmbeddingSequenceLayer.Builder().nIn(VOCABULARY).nOut(4).inputLength(STEPS)
            .activation(Activation.IDENTITY).build())
        .layer(new Convolution1DLayer.Builder(3).nIn(4).nOut(6).activation(Activation.RELU).build())
        .layer(new GlobalPoolingLayer.Builder(PoolingType.MAX).build())
        .layer(new OutputLayer.Builder(LossFunction.MCXENT).nIn(6).nOut(2).activation(Activation.SOFTMAX).build())
        .build();
  }

  @Test
  void embeddingAndConvolution1DTrainPrivately() {
    DataSet train = containsKeyToken(1, N);
    DpSgdSetup setup = DpSgdSetup.builder().datasetSize(N).expectedBatchSize(50).epochs(15).clipNorm(1.0)
        .noiseMultiplier(0.8).delta(1e-5).build();
    PrivateMultiLayerNetwork net = setup.privateNetwork(tokenModel());
    net.insecureNoise(GaussianNoise.insecureFixedSeed(3));
    double before = accuracy(net, containsKeyToken(2, 400));
    net.fit(SampledDataSetIterator.poisson(IndexedData.of(train), 50, AesCtrRandom.insecureFixedSeed(4)), 15);
    double after = accuracy(net, containsKeyToken(2, 400));
    assertThat(net.getIterationCount()).isGreaterThan(0);
    assertThat(after).as("held-out accuracy after private training (before: %s)", before).isGreaterThan(0.85);
  }

  private static double accuracy(PrivateMultiLayerNetwork net, DataSet test) {
    INDArray predicted = net.output(test.getFeatures()).argMax(1);
    INDArray actual = test.getLabels().argMax(1);
    return predicted.eq(actual).castTo(DataType.DOUBLE).meanNumber().doubleValue();
  }
}
