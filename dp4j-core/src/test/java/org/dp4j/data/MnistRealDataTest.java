package org.dp4j.data;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.dataset.DataSet;

/**
 * The real test sets, when {@code scripts/fetch-data.sh} has filled {@code .cache/data} at the
 * repository root (CI runs it first); skipped otherwise. Reference values are published facts about
 * the data sets: the MNIST test label counts (LeCun et al.'s distribution), its first labels
 * 7 2 1 0 4 1 4 9 5 9, the widely used normalisation mean 0.1325 (test) and Fashion-MNIST's 1000
 * test images per class (Xiao et al. 2017) with mean 0.2868.
 */
class MnistRealDataTest {

  private static Path cacheDir(MnistVariant variant) {
    Path dir = Path.of("").toAbsolutePath();
    while (dir != null) {
      Path candidate = variant.cacheDir(dir);
      if (Files.isDirectory(candidate)) {
        return candidate;
      }
      dir = dir.getParent();
    }
    return null;
  }

  @Test
  void realMnistTestSet() throws Exception {
    Path dir = cacheDir(MnistVariant.MNIST);
    assumeTrue(dir != null, "no .cache/data/mnist: run scripts/fetch-data.sh");
    LabelledImages test = MnistLoader.load(dir, MnistSplit.TEST);
    assertThat(test.size()).isEqualTo(10_000);
    assertThat(histogram(test.labels())).containsExactly(980, 1135, 1032, 1010, 982, 892, 958, 1028, 974, 1009);
    assertThat(java.util.Arrays.copyOf(test.labels(), 10)).containsExactly(7, 2, 1, 0, 4, 1, 4, 9, 5, 9);
    // DOUBLE: ND4J's FLOAT mean over 7.84M elements was off by 3.6e-4 here (float accumulation).
    DataSet ds = test.toDataSet(DataType.DOUBLE);
    assertThat(ds.getFeatures().shape()).containsExactly(10_000, 784);
    assertThat(ds.getFeatures().meanNumber().doubleValue()).isCloseTo(0.1325, within(1e-4));
    assertThat(ds.getLabels().sumNumber().doubleValue()).isEqualTo(10_000.0);
  }

  @Test
  void realFashionMnistTestSet() throws Exception {
    Path dir = cacheDir(MnistVariant.FASHION_MNIST);
    assumeTrue(dir != null, "no .cache/data/fashion-mnist: run scripts/fetch-data.sh");
    LabelledImages test = MnistLoader.load(dir, MnistSplit.TEST);
    assertThat(test.size()).isEqualTo(10_000);
    assertThat(histogram(test.labels())).containsOnly(1000);
    float[] x = test.scaledFeatures();
    double sum = 0;
    for (float v : x) {
      sum += v;
    }
    assertThat(sum / x.length).isCloseTo(0.2868, within(1e-4));
  }

  private static int[] histogram(int[] labels) {
    int[] counts = new int[10];
    for (int l : labels) {
      counts[l]++;
    }
    return counts;
  }
}
