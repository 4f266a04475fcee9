package org.dp4j.data;

import static com.google.common.base.Preconditions.checkNotNull;

import java.nio.file.Path;
import java.util.List;

/**
 * MNIST or Fashion-MNIST: same format (28×28 grey images, 10 classes), different cache folder and
 * class names. {@code scripts/fetch-data.sh} fills {@code .cache/data/mnist} and
 * {@code .cache/data/fashion-mnist} under the repository root.
 *
 * <pre>{@code
 * LabelledImages test = MnistLoader.load(MnistVariant.FASHION_MNIST.cacheDir(repoRoot), MnistSplit.TEST);
 * }</pre>
 */
public enum MnistVariant {
  MNIST("mnist", List.of("0", "1", "2", "3", "4", "5", "6", "7", "8", "9")),
  FASHION_MNIST("fashion-mnist", List.of("T-shirt/top", "Trouser", "Pullover", "Dress", "Coat",
      "Sandal", "Shirt", "Sneaker", "Bag", "Ankle boot"));

  private final String folder;
  private final List<String> classNames;

  MnistVariant(String folder, List<String> classNames) {
    this.folder = folder;
    this.classNames = classNames;
  }

  /** {@code root/.cache/data/<folder>}, where the fetch script puts the files. */
  public Path cacheDir(Path repositoryRoot) {
    return checkNotNull(repositoryRoot, "repositoryRoot").resolve(".cache").resolve("data").resolve(folder);
  }

  /** Class names by label 0..9. */
  public List<String> classNames() {
    return classNames;
  }
}
