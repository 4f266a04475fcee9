package org.dp4j.clipping;

import java.util.Random;
import org.deeplearning4j.nn.conf.ConvolutionMode;
import org.deeplearning4j.nn.conf.MultiLayerConfiguration;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.deeplearning4j.nn.conf.layers.ActivationLayer;
import org.deeplearning4j.nn.conf.layers.ConvolutionLayer;
import org.deeplearning4j.nn.conf.layers.DenseLayer;
import org.deeplearning4j.nn.conf.layers.DropoutLayer;
import org.deeplearning4j.nn.conf.layers.GlobalPoolingLayer;
import org.deeplearning4j.nn.conf.layers.LossLayer;
import org.deeplearning4j.nn.conf.layers.OutputLayer;
import org.deeplearning4j.nn.conf.layers.PoolingType;
import org.deeplearning4j.nn.conf.layers.SubsamplingLayer;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.deeplearning4j.nn.weights.WeightInit;
import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.learning.config.IUpdater;
import org.nd4j.linalg.learning.config.Sgd;
import org.nd4j.linalg.lossfunctions.LossFunctions.LossFunction;

/** Tiny double-precision networks and data for the clipping and updater tests. */
public final class TinyNetworks {
  private TinyNetworks() {
  }

  public static NeuralNetConfiguration.ListBuilder base(IUpdater updater) {
    return new NeuralNetConfiguration.Builder().seed(7).dataType(DataType.DOUBLE).updater(updater)
        .weightInit(WeightInit.XAVIER).list();
  }

  public static MultiLayerNetwork init(MultiLayerConfiguration conf) {
    MultiLayerNetwork net = new MultiLayerNetwork(conf);
    net.init();
    return net;
  }

  /** Dense → dropout (fixed mask) → activation layer → dense with input dropout → output with the given loss. */
  public static MultiLayerNetwork mlp(LossFunction loss, Activation outputActivation, IUpdater updater) {
    return init(base(updater)
        .layer(new DenseLayer.Builder().nIn(6).nOut(5).activation(Activation.TANH).build())
        .layer(new DropoutLayer.Builder().dropOut(new FixedMaskDropout()).build())
        .layer(new ActivationLayer.Builder().activation(Activation.SOFTPLUS).build())
        .layer(new DenseLayer.Builder().nOut(4).activation(Activation.SIGMOID).dropOut(new FixedMaskDropout()).build())
        .layer(new OutputLayer.Builder(loss).nOut(3).activation(outputActivation).build())
        .setInputType(InputType.feedForward(6)).build());
  }

  /** Dense without bias → LossLayer. */
  public static MultiLayerNetwork denseIntoLossLayer(LossFunction loss, Activation activation) {
    return init(base(new Sgd(0.1))
        .layer(new DenseLayer.Builder().nIn(6).nOut(3).activation(Activation.IDENTITY).hasBias(false).build())
        .layer(new LossLayer.Builder(loss).activation(activation).build())
        .setInputType(InputType.feedForward(6)).build());
  }

  /** Flat 1×7×7 input → conv → max pool → conv (given stride/padding/dilation/mode) → avg global pool → output. */
  public static MultiLayerNetwork cnn(int[] stride, int[] padding, int[] dilation, ConvolutionMode mode) {
    return cnn(stride, padding, dilation, mode, PoolingType.MAX, PoolingType.AVG);
  }

  /** As above with the pooling types of the subsampling and global pooling layers given. */
  public static MultiLayerNetwork cnn(int[] stride, int[] padding, int[] dilation, ConvolutionMode mode,
      PoolingType subsampling, PoolingType global) {
    return init(base(new Sgd(0.1))
        .layer(new ConvolutionLayer.Builder(3, 3).nOut(2).activation(Activation.ELU)
            .convolutionMode(ConvolutionMode.Truncate).build())
        .layer(new SubsamplingLayer.Builder(subsampling).kernelSize(2, 2).stride(1, 1).pnorm(3).build())
        .layer(new ConvolutionLayer.Builder(2, 2).nOut(3).stride(stride).padding(padding).dilation(dilation)
            .convolutionMode(mode).activation(Activation.TANH).build())
        .layer(new GlobalPoolingLayer.Builder(global).build())
        .layer(new OutputLayer.Builder(LossFunction.MCXENT).nOut(3).activation(Activation.SOFTMAX).build())
        .setInputType(InputType.convolutionalFlat(7, 7, 1)).build());
  }

  /** Conv without bias → CnnToFeedForward preprocessor → dense → output. */
  public static MultiLayerNetwork cnnIntoDense() {
    return init(base(new Sgd(0.1))
        .layer(new ConvolutionLayer.Builder(3, 3).nOut(2).stride(2, 2).hasBias(false).activation(Activation.RELU)
            .build())
        .layer(new DenseLayer.Builder().nOut(4).activation(Activation.TANH).build())
        .layer(new OutputLayer.Builder(LossFunction.MSE).nOut(2).activation(Activation.IDENTITY).build())
        .setInputType(InputType.convolutional(6, 6, 2)).build());
  }

  public static INDArray features(long seed, long... shape) {
    Nd4j.getRandom().setSeed(seed);
    return Nd4j.randn(DataType.DOUBLE, shape).muli(1.5);
  }

  /** One-hot labels, or uniform in (0, 1) rows for regression/binary losses when {@code oneHot} is false. */
  public static INDArray labels(long seed, int n, int classes, boolean oneHot) {
    Random random = new Random(seed);
    INDArray labels = Nd4j.zeros(DataType.DOUBLE, n, classes);
    for (int i = 0; i < n; i++) {
      if (oneHot) {
        labels.putScalar(i, random.nextInt(classes), 1.0);
      } else {
        for (int j = 0; j < classes; j++) {
          labels.putScalar(i, j, random.nextDouble());
        }
      }
    }
    return labels;
  }
}
