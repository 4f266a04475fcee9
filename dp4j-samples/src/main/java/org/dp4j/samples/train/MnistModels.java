package org.dp4j.samples.train;

import org.deeplearning4j.nn.conf.ComputationGraphConfiguration;
import org.deeplearning4j.nn.conf.ConvolutionMode;
import org.deeplearning4j.nn.conf.MultiLayerConfiguration;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.graph.ElementWiseVertex;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.deeplearning4j.nn.conf.layers.ConvolutionLayer;
import org.deeplearning4j.nn.conf.layers.DenseLayer;
import org.deeplearning4j.nn.conf.layers.OutputLayer;
import org.deeplearning4j.nn.conf.layers.SubsamplingLayer;
import org.deeplearning4j.nn.weights.WeightInit;
import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.learning.config.IUpdater;
import org.nd4j.linalg.lossfunctions.LossFunctions;

/** The networks {@code dp4j train} offers for 28×28 grey images with 10 classes (non-private configurations). */
public final class MnistModels {
  private MnistModels() {}

  /** Which network. */
  public enum Kind { MLP, CNN, LSTM }

  /** 784-h1-...-10 with the given hidden activation and a softmax cross-entropy output. */
  public static MultiLayerConfiguration mlp(IUpdater updater, long seed, int[] hidden, Activation activation) {
    var list = new NeuralNetConfiguration.Builder().seed(seed).dataType(DataType.FLOAT).updater(updater)
        .weightInit(activation == Activation.RELU ? WeightInit.RELU : WeightInit.XAVIER).list();
    int in = 784;
    for (int h : hidden) {
      list.layer(new DenseLayer.Builder().nIn(in).nOut(h).activation(activation).build());
      in = h;
    }
    return list.layer(new OutputLayer.Builder(LossFunctions.LossFunction.MCXENT).nIn(in).nOut(10)
            .activation(Activation.SOFTMAX).weightInit(WeightInit.XAVIER).build())
        .build();
  }

  /**
   * {@link #mlp} on images downscaled by a fixed k×k average pooling (no parameters, independent of the data, so
   * it costs no privacy): 28×28 → (28/k)×(28/k) → hidden layers → 10. With k = 2 the first layer has a quarter of the
   * weights, so the same DP noise per coordinate is a quarter of the noise energy.
   */
  public static MultiLayerConfiguration pooledMlp(IUpdater updater, long seed, int pool, int[] hidden,
      Activation activation) {
    var list = new NeuralNetConfiguration.Builder().seed(seed).dataType(DataType.FLOAT).updater(updater)
        .weightInit(activation == Activation.RELU ? WeightInit.RELU : WeightInit.XAVIER).list()
        .layer(new SubsamplingLayer.Builder(SubsamplingLayer.PoolingType.AVG).kernelSize(pool, pool)
            .stride(pool, pool).build());
    for (int h : hidden) {
      list.layer(new DenseLayer.Builder().nOut(h).activation(activation).build());
    }
    return list.layer(new OutputLayer.Builder(LossFunctions.LossFunction.MCXENT).nOut(10)
            .activation(Activation.SOFTMAX).weightInit(WeightInit.XAVIER).build())
        .setInputType(InputType.convolutionalFlat(28, 28, 1))
        .build();
  }

  /**
   * The small tanh CNN used for DP-SGD on MNIST by Papernot et al. 2021 and Tramèr &amp; Boneh 2021:
   * conv 8×8×16 stride 2 (same) – max-pool 2 stride 1 – conv 4×4×32 stride 2 – max-pool 2 stride 1 –
   * dense 32 – dense 10 (about 26k parameters).
   */
  public static MultiLayerConfiguration cnn(IUpdater updater, long seed) {
    return new NeuralNetConfiguration.Builder().seed(seed).dataType(DataType.FLOAT).updater(updater)
        .weightInit(WeightInit.XAVIER).list()
        .layer(new ConvolutionLayer.Builder(8, 8).stride(2, 2).nOut(16).convolutionMode(ConvolutionMode.Same)
            .activation(Activation.TANH).build())
        .layer(new SubsamplingLayer.Builder(SubsamplingLayer.PoolingType.MAX).kernelSize(2, 2).stride(1, 1).build())
        .layer(new ConvolutionLayer.Builder(4, 4).stride(2, 2).nOut(32).convolutionMode(ConvolutionMode.Same)
            .activation(Activation.TANH).build())
        .layer(new SubsamplingLayer.Builder(SubsamplingLayer.PoolingType.MAX).kernelSize(2, 2).stride(1, 1).build())
        .layer(new DenseLayer.Builder().nOut(32).activation(Activation.TANH).build())
        .layer(new OutputLayer.Builder(LossFunctions.LossFunction.MCXENT).nOut(10).activation(Activation.SOFTMAX)
            .build())
        .setInputType(InputType.convolutionalFlat(28, 28, 1))
        .build();
  }

  /**
   * {@link #cnn}'s tanh CNN as a {@code ComputationGraph} with a residual skip connection after the second
   * pooling layer: pool2 → conv 3×3×32 (same, tanh) and pool2 itself, merged by an element-wise add, then dense 32
   * and the softmax output (about 35k parameters). Input "in" (flattened 28×28×1), output "out".
   */
  public static ComputationGraphConfiguration cnnGraph(IUpdater updater, long seed) {
    return new NeuralNetConfiguration.Builder().seed(seed).dataType(DataType.FLOAT).updater(updater)
        .weightInit(WeightInit.XAVIER).graphBuilder()
        .addInputs("in")
        .setInputTypes(InputType.convolutionalFlat(28, 28, 1))
        .addLayer("conv1", new ConvolutionLayer.Builder(8, 8).stride(2, 2).nOut(16)
            .convolutionMode(ConvolutionMode.Same).activation(Activation.TANH).build(), "in")
        .addLayer("pool1", new SubsamplingLayer.Builder(SubsamplingLayer.PoolingType.MAX).kernelSize(2, 2)
            .stride(1, 1).build(), "conv1")
        .addLayer("conv2", new ConvolutionLayer.Builder(4, 4).stride(2, 2).nOut(32)
            .convolutionMode(ConvolutionMode.Same).activation(Activation.TANH).build(), "pool1")
        .addLayer("pool2", new SubsamplingLayer.Builder(SubsamplingLayer.PoolingType.MAX).kernelSize(2, 2)
            .stride(1, 1).build(), "conv2")
        .addLayer("branch", new ConvolutionLayer.Builder(3, 3).stride(1, 1).nOut(32)
            .convolutionMode(ConvolutionMode.Same).activation(Activation.TANH).build(), "pool2")
        .addVertex("skip", new ElementWiseVertex(ElementWiseVertex.Op.Add), "pool2", "branch")
        .addLayer("dense", new DenseLayer.Builder().nOut(32).activation(Activation.TANH).build(), "skip")
        .addLayer("out", new OutputLayer.Builder(LossFunctions.LossFunction.MCXENT).nOut(10)
            .activation(Activation.SOFTMAX).build(), "dense")
        .setOutputs("out")
        .build();
  }
}
