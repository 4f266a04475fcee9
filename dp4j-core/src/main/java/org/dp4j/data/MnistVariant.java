package org.dp4j.data;

import static com.google.common.base.Preconditions.checkNotNull;

import java.nio.file.Path;

/**
 * MNIST or Fashion-MNIST: same format (28×28 grey images, 10 classes), different cache folder and
 * class names. {@code scripts/fetch-data.sh} fills {@code .cache/data/mnist} and
 * {@code .cache/data/fashion-mnist} under the repository root.
 *
 * <pre>{@code
 * // given: Path repoRoot
 * LabelledImages test = MnistLoader.load(MnistVariant.FASHION_MNIST.cacheDir(repoRoot), MnistSplit.TEST);
 * }</pre>
 */
public enum MnistVariant {
  MNIST("mnist"),
  FASHION_MNIST("fashion-mnist");

  private final String folder;

  MnistVariant(String folder) {
    this.folder = folder;
  }

  /** {@code root/.cache/data/<folder>}, where the fetch script puts the files. */
  public Path cacheDir(Path repositoryRoot) {
    return checkNotNull(repositoryRoot, "repositoryRoot").resolve(".cache").resolve("data").resolve(folder);
  }
}
