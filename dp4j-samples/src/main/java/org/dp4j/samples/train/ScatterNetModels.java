package org.dp4j.samples.train;

import org.deeplearning4j.nn.conf.ConvolutionMode;
import org.deeplearning4j.nn.conf.MultiLayerConfiguration;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.deeplearning4j.nn.conf.layers.ConvolutionLayer;
import org.deeplearning4j.nn.conf.layers.DenseLayer;
import org.deeplearning4j.nn.conf.layers.OutputLayer;
import org.deeplearning4j.nn.weights.WeightInit;
import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.learning.config.IUpdater;
import org.nd4j.linalg.lossfunctions.LossFunctions;

/**
 * The classifiers Tramèr &amp; Boneh 2021 (Sec. 3, App. B) train on ScatterNet features (K channels of m×m,
 * channel-major, already group-normalised per example): a linear softmax classifier, and their small tanh CNN
 * for MNIST-like data (conv 3×3×16 stride 2 pad 1 – conv 3×3×32 stride 1 pad 1 – dense 32 – dense 10).
 */
public final class ScatterNetModels {
  private ScatterNetModels() {}

  /** Softmax regression on the K·m² features (weights start at zero, as a convex model may). */
  public static MultiLayerConfiguration linear(IUpdater updater, long seed, int features) {
    return new NeuralNetConfiguration.Builder().seed(seed).dataType(DataType.FLOAT).updater(updater)
        .weightInit(WeightInit.ZERO).list()
        .layer(new OutputLayer.Builder(LossFunctions.LossFunction.MCXENT).nIn(features).nOut(10)
            .activation(Activation.SOFTMAX).build())
        .build();
  }

  /** The tanh CNN on K channels of side×side. */
  public static MultiLayerConfiguration cnn(IUpdater updater, long seed, int channels, int side) {
    return new NeuralNetConfiguration.Builder().seed(seed).dataType(DataType.FLOAT).updater(updater)
        .weightInit(WeightInit.XAVIER).convolutionMode(ConvolutionMode.Truncate).list()
        .layer(new ConvolutionLayer.Builder(3, 3).stride(2, 2).padding(1, 1).nOut(16).activation(Activation.TANH)
            .build())
        .layer(new ConvolutionLayer.Builder(3, 3).stride(1, 1).padding(1, 1).nOut(32).activation(Activation.TANH)
            .build())
        .layer(new DenseLayer.Builder().nOut(32).activation(Activation.TANH).build())
        .layer(new OutputLayer.Builder(LossFunctions.LossFunction.MCXENT).nOut(10).activation(Activation.SOFTMAX)
            .build())
        .setInputType(InputType.convolutionalFlat(side, side, channels))
        .build();
  }
}
