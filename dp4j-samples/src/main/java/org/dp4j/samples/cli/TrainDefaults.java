package org.dp4j.samples.cli;

import org.dp4j.samples.train.MnistModels;

/**
 * Default hyperparameters of {@code dp4j train} per model, chosen by a search at ε = 3, δ = 1e-5 on MNIST
 * (see README: "Accuracy").
 */
public record TrainDefaults(int epochs, int batchSize, double clipNorm, double learningRate, double momentum,
    int[] hidden, String activation) {
  public static TrainDefaults of(MnistModels.Kind kind) {
    return switch (kind) {
      case MLP -> new TrainDefaults(60, 2048, 0.2, 2.0, 0.9, new int[] {256}, "tanh");
      case CNN -> new TrainDefaults(20, 512, 0.1, 0.5, 0.9, new int[0], "tanh");
      case LSTM -> new TrainDefaults(4, 1024, 0.5, 2.0, 0.9, new int[] {64}, "tanh");    // MnistLstm; LSTM units
    };
  }
}
