package org.dp4j.samples.train;

import org.dp4j.samples.zoo.ModelZoo;

/** Which network {@code dp4j train} trains on 28×28 grey images with 10 classes; the networks are in {@link ModelZoo}. */
public final class MnistModels {
  private MnistModels() {}

  /** Which network. */
  public enum Kind { MLP, CNN, LSTM }
}
