package org.dp4j.training;

import static org.assertj.core.api.Assertions.assertThat;

import org.deeplearning4j.nn.conf.MultiLayerConfiguration;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.deeplearning4j.nn.conf.layers.LSTM;
import org.deeplearning4j.nn.conf.layers.OutputLayer;
import org.deeplearning4j.nn.conf.layers.RnnOutputLayer;
import org.deeplearning4j.nn.conf.layers.recurrent.Bidirectional;
import org.deeplearning4j.nn.conf.layers.recurrent.LastTimeStep;
import org.deeplearning4j.nn.conf.layers.recurrent.SimpleRnn;
import org.dp4j.noise.AesCtrRandom;
import org.dp4j.noise.GaussianNoise;
import org.junit.jupiter.api.Test;
import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.dataset.DataSet;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.indexing.NDArrayIndex;
import org.nd4j.linalg.learning.config.Sgd;
import org.nd4j.linalg.lossfunctions.LossFunctions.LossFunction;

/**
 * Private {@code fit} on padded sequences of uneven lengths: the masks of the sampled batches reach the clipper, so
 * what stands in the padded steps cannot change the trained network.
 */
class PrivateMaskedRecurrentFitTest {
  private static final int N = 60;
  private static final int STEPS = 6;

  private static MultiLayerConfiguration conf(DpSgdSetup setup) {
    return new NeuralNetConfiguration.Builder().seed(5).dataType(DataType.DOUBLE).updater(new Sgd(0.5)).list()
        .layer(new LSTM.Builder().nIn(2).nOut(4).build())
        .layer(new RnnOutputLayer.Builder(LossFunction.MCXENT).nIn(4).nOut(2).activation(Activation.SOFTMAX).build())
        .setInputType(InputType.recurrent(2)).build();
  }

  /** Sequences of 1..STEPS steps, end-padded with {@code padding}, with feature and label masks (or none). */
  private static DataSet data(double padding, boolean masks) {
    Nd4j.getRandom().setSeed(9);
    INDArray x = Nd4j.randn(DataType.DOUBLE, N, 2, STEPS);
    INDArray y = Nd4j.zeros(DataType.DOUBLE, N, 2, STEPS);
    INDArray mask = Nd4j.zeros(DataType.DOUBLE, N, STEPS);
    for (int i = 0; i < N; i++) {
      int length = 1 + i % STEPS;
      mask.get(NDArrayIndex.point(i), NDArrayIndex.interval(0, length)).assign(1.0);
      x.get(NDArrayIndex.point(i), NDArrayIndex.all(), NDArrayIndex.interval(length, STEPS)).assign(padding);
      for (int t = 0; t < STEPS; t++) {
        y.putScalar(new int[] {i, x.getDouble(i, 0, Math.min(t, length - 1)) > 0 ? 1 : 0, t}, 1.0);
      }
    }
    return masks ? new DataSet(x, y, mask, mask) : new DataSet(x, y);
  }

  private static INDArray trained(DataSet data) {
    return trained(data, null);
  }

  /** Two private epochs of {@code conf} (null: the LSTM above) from fixed sampling and noise seeds. */
  private static INDArray trained(DataSet data, MultiLayerConfiguration conf) {
    DpSgdSetup setup = DpSgdSetup.builder().datasetSize(N).expectedBatchSize(20).epochs(2).clipNorm(0.5)
        .noiseMultiplier(1.0).delta(1e-5).build();
    PrivateMultiLayerNetwork net = setup.privateNetwork(conf == null ? conf(setup) : conf);
    net.insecureNoise(GaussianNoise.insecureFixedSeed(3));
    net.fit(SampledDataSetIterator.poisson(IndexedData.of(data), 20, AesCtrRandom.insecureFixedSeed(4)), 2);
    return net.params();
  }

  @Test
  void paddedStepsDoNotChangeTheTrainedNetwork() {
    INDArray zeros = trained(data(0.0, true));
    INDArray garbage = trained(data(7.5, true));
    assertThat(garbage.sub(zeros).amaxNumber().doubleValue()).isLessThan(1e-12);
    // Without masks the padding is data, and the same run ends elsewhere: the masks did reach the clipper.
    assertThat(trained(data(7.5, false)).sub(zeros).amaxNumber().doubleValue()).isGreaterThan(1e-3);
  }

  @Test
  void recurrentWrappersTrainPrivatelyWithTheirInnerLayersUpdaters() {
    // Bidirectional and LastTimeStep hold the updaters of the layers they wrap: the setup makes those DpSgd too.
    MultiLayerConfiguration wrapped = new NeuralNetConfiguration.Builder().seed(5).dataType(DataType.DOUBLE)
        .updater(new Sgd(0.5)).list()
        .layer(new Bidirectional(Bidirectional.Mode.ADD, new LSTM.Builder().nIn(2).nOut(3).build()))
        .layer(new LastTimeStep(new SimpleRnn.Builder().nIn(3).nOut(3).build()))
        .layer(new OutputLayer.Builder(LossFunction.MCXENT).nIn(3).nOut(2).activation(Activation.SOFTMAX).build())
        .setInputType(InputType.recurrent(2)).build();
    DataSet data = data(7.5, true);
    DataSet lastStep = new DataSet(data.getFeatures(), data.getLabels().get(NDArrayIndex.all(), NDArrayIndex.all(),
        NDArrayIndex.point(0)), data.getFeaturesMaskArray(), null);
    INDArray zeros = trained(new DataSet(data(0.0, true).getFeatures(), lastStep.getLabels(),
        lastStep.getFeaturesMaskArray(), null), wrapped);
    assertThat(trained(lastStep, wrapped).sub(zeros).amaxNumber().doubleValue()).isLessThan(1e-12);
    DataSet unmasked = new DataSet(lastStep.getFeatures(), lastStep.getLabels());
    assertThat(trained(unmasked, wrapped).sub(zeros).amaxNumber().doubleValue()).isGreaterThan(1e-3);
  }
}
