package org.dp4j.data;

/** The two halves of MNIST and Fashion-MNIST, with their standard IDX file names. */
public enum MnistSplit {
  /** 60000 records. */
  TRAIN("train-images-idx3-ubyte", "train-labels-idx1-ubyte"),
  /** 10000 records. */
  TEST("t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte");

  private final String imagesFile;
  private final String labelsFile;

  MnistSplit(String imagesFile, String labelsFile) {
    this.imagesFile = imagesFile;
    this.labelsFile = labelsFile;
  }

  /** File name of the images, without a {@code .gz} suffix. */
  public String imagesFile() {
    return imagesFile;
  }

  /** File name of the labels, without a {@code .gz} suffix. */
  public String labelsFile() {
    return labelsFile;
  }
}
