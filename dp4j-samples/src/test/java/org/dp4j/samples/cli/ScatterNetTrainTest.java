package org.dp4j.samples.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ScatterNetTrainTest {
  @Test
  void trainsLinearAndCnnOnCachedFeaturesOfATinyDataSet(@TempDir Path dir) throws Exception {
    Path data = Files.createDirectories(dir.resolve("data"));
    writeIdx(data, "train", 48);
    writeIdx(data, "t10k", 16);
    Path report = dir.resolve("r.json");
    String[] common = {"train", "--features", "scatternet", "--data-dir", data.toString(), "--feature-cache",
        dir.resolve("fc").toString(), "--noise-multiplier", "1", "--epochs", "1", "--batch-size", "16",
        "--report", report.toString()};
    CliRun linear = CliRun.of(concat(common, "--model", "linear"));
    assertThat(linear.status()).as(linear.err()).isZero();
    assertThat(linear.out()).contains("ScatterNet J=2 L=8 features of 48 train images (3969 per image): computed",
        "group normalisation per example, 27 groups (no privacy cost)", "epoch 1/1");
    JsonNode j = new ObjectMapper().readTree(report.toFile());
    assertThat(j.get("features").asText()).isEqualTo("scatternet");
    assertThat(j.get("featureCount").asInt()).isEqualTo(3969);
    assertThat(j.get("featureNormalisation").asText()).contains("per example");
    assertThat(j.get("model").asText()).isEqualTo("linear");
    CliRun cnn = CliRun.of(concat(common, "--model", "cnn", "--norm-groups", "81"));
    assertThat(cnn.status()).as(cnn.err()).isZero();
    assertThat(cnn.out()).contains("read from", "81 groups");
  }

  @Test
  void validationHoldsOutTheLastTrainingImagesAndEvaluatesOnThem(@TempDir Path dir) throws Exception {
    Path report = dir.resolve("r.json");
    CliRun run = linearOnTinyData(dir, "--validation", "12", "--report", report.toString());
    assertThat(run.status()).as(run.err()).isZero();
    assertThat(run.out()).contains("training on the first 36 training images; the last 12 are held out")
        .doesNotContain("test images");
    JsonNode j = new ObjectMapper().readTree(report.toFile());
    assertThat(j.get("trainingRecords").asInt()).isEqualTo(36);
    assertThat(j.get("evaluatedOn").asText()).startsWith("validation: the last 12 training images");
    // accuracy on 12 images is a multiple of 1/12
    assertThat(j.get("testAccuracy").asDouble() * 12).isCloseTo(Math.rint(j.get("testAccuracy").asDouble() * 12),
        org.assertj.core.data.Offset.offset(1e-9));
    CliRun all = linearOnTinyData(dir, "--validation", "48");
    assertThat(all.status()).isEqualTo(2);
    assertThat(all.err()).contains("--validation must be below the 48 training images, was 48");
  }

  @Test
  void mirrorViewsTrainAndEvaluateWithTheirOwnCachedFeatures(@TempDir Path dir) throws Exception {
    Path report = dir.resolve("r.json");
    CliRun run = linearOnTinyData(dir, "--validation", "12", "--augment", "mirror", "--test-augment", "MIRROR",
        "--report", report.toString());
    assertThat(run.status()).as(run.err()).isZero();
    assertThat(run.out()).contains("features of 48 train images (3969 per image): computed",
        "features of 48 train images, mirrored (3969 per image): computed", "with the mirror at test time");
    assertThat(dir.resolve("fc").resolve("train-J2-L8-mirrored.scat")).isRegularFile();
    JsonNode j = new ObjectMapper().readTree(report.toFile());
    assertThat(j.get("trainingRecords").asInt()).isEqualTo(36);
    assertThat(j.get("augmentation").asText()).contains("mean over the image and its left-right mirror",
        "clipped once");
    assertThat(j.get("testAugmentation").asText()).contains("post-processing");
    // The held-out images and their mirrors: the accuracy is still over 12 images.
    assertThat(j.get("testAccuracy").asDouble() * 12).isCloseTo(Math.rint(j.get("testAccuracy").asDouble() * 12),
        org.assertj.core.data.Offset.offset(1e-9));
    CliRun test = linearOnTinyData(dir, "--test-augment", "mirror");
    assertThat(test.status()).as(test.err()).isZero();
    assertThat(test.out()).contains("features of 16 test images, mirrored (3969 per image): computed",
        "train images (3969 per image): read from").doesNotContain("train images, mirrored");
  }

  @Test
  void badFeatureOptionsAreRefusedInOneLine() {
    CliRun.of("train", "--epsilon", "3", "--features", "scatternet", "--model", "linear", "--augment", "flip")
        .assertRefusedNaming("--augment must be mirror, was 'flip'");
    CliRun.of("train", "--epsilon", "3", "--features", "scatternet", "--model", "cnn", "--augment", "mirror")
        .assertRefusedNaming("--augment mirror needs --model linear");
    CliRun.of("train", "--epsilon", "3", "--features", "scatternet", "--model", "linear", "--augment", "mirror",
        "--spark", "local[2]").assertRefusedNaming("not supported with --spark");
    CliRun.of("train", "--algorithm", "dp-mbcd", "--epsilon", "3", "--features", "scatternet", "--augment",
        "mirror").assertRefusedNaming("not to --algorithm dp-mbcd");
    CliRun.of("train", "--epsilon", "3", "--test-augment", "mirror").assertRefusedNaming("need --features scatternet");
    CliRun.of("train", "--epsilon", "3", "--features", "scatternet", "--model", "mlp")
        .assertRefusedNaming("--model linear or cnn");
    CliRun.of("train", "--epsilon", "3", "--features", "sift", "--model", "linear")
        .assertRefusedNaming("--features must be scatternet");
    CliRun.of("train", "--epsilon", "3", "--norm-groups", "27").assertRefusedNaming("need --features scatternet");
    CliRun.of("train", "--epsilon", "3", "--features", "scatternet", "--model", "linear", "--norm-groups", "10")
        .assertRefusedNaming("--norm-groups must divide the 81 channels, was 10");
    CliRun.of("train", "--epsilon", "3", "--features", "scatternet", "--model", "linear", "--scatter-scales", "9")
        .assertRefusedNaming("--scatter-scales");
    CliRun.of("train", "--epsilon", "3", "--validation", "100").assertRefusedNaming("need --features scatternet");
    CliRun.of("train", "--epsilon", "3", "--features", "scatternet", "--model", "linear", "--validation", "0")
        .assertRefusedNaming("--validation must be at least 1");
    CliRun.of("train", "--epsilon", "3", "--features", "scatternet", "--model", "linear", "--validation", "100",
        "--train-size", "5000").assertRefusedNaming("not combined with --train-size, was 100 with --train-size 5000");
  }

  /**
   * {@code dp4j train --features scatternet --model linear} on 48 training and 16 test images written to {@code dir}
   * (features cached in {@code dir/fc}), one epoch of batch 16 at noise multiplier 1, then {@code more}.
   */
  private static CliRun linearOnTinyData(Path dir, String... more) throws IOException {
    Path data = dir.resolve("data");
    if (!Files.isDirectory(data)) {
      Files.createDirectories(data);
      writeIdx(data, "train", 48);
      writeIdx(data, "t10k", 16);
    }
    return CliRun.of(concat(new String[] {"train", "--features", "scatternet", "--model", "linear", "--data-dir",
        data.toString(), "--feature-cache", dir.resolve("fc").toString(), "--noise-multiplier", "1", "--epochs",
        "1", "--batch-size", "16"}, more));
  }

  private static String[] concat(String[] a, String... b) {
    String[] out = java.util.Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }

  /** {@code n} images of a bright bar whose angle depends on the label (5 classes), as IDX files. */
  static void writeIdx(Path dir, String prefix, int n) throws IOException {
    ByteBuffer img = ByteBuffer.allocate(16 + n * 784).putInt(0x803).putInt(n).putInt(28).putInt(28);
    ByteBuffer lab = ByteBuffer.allocate(8 + n).putInt(0x801).putInt(n);
    for (int i = 0; i < n; i++) {
      int label = i % 5;
      double angle = label * Math.PI / 5;
      for (int r = 0; r < 28; r++) {
        for (int c = 0; c < 28; c++) {
          double d = Math.abs((r - 14) * Math.cos(angle) - (c - 14) * Math.sin(angle));
          img.put((byte) (d < 2 ? 255 : 0));
        }
      }
      lab.put((byte) label);
    }
    Files.write(dir.resolve(prefix + "-images-idx3-ubyte"), img.array());
    Files.write(dir.resolve(prefix + "-labels-idx1-ubyte"), lab.array());
  }
}
