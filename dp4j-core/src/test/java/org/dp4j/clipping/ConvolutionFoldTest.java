package org.dp4j.clipping;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.stream.Stream;
import org.deeplearning4j.nn.conf.ConvolutionMode;
import org.deeplearning4j.nn.conf.layers.ConvolutionLayer;
import org.deeplearning4j.nn.conf.layers.PoolingType;
import org.deeplearning4j.nn.conf.layers.SubsamplingLayer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.indexing.NDArrayIndex;

/**
 * The Java fold ({@link ConvolutionPatches#foldChannelsLast}) against ND4J's {@code col2im}
 * ({@link ConvolutionPatches#fold}) on the same patch gradients: float32 within 1e-6 of the largest sum (the sums
 * run in another order), and against ND4J's fold of the same values in double precision; over strides, padding
 * (explicit and Same mode), dilation and several channel counts, and with rows in the window order of a 2×2/2
 * pooling, which must give the natural order's result.
 */
class ConvolutionFoldTest {
  private static final double TOLERANCE = 1e-6;

  record Geometry(int channels, int height, int width, int[] kernel, int[] stride, int[] dilation, int[] padding,
      ConvolutionMode mode) {
    ConvolutionPatches patches() {
      return ConvolutionPatches.of(channels, height, width, kernel, stride, dilation, padding, mode);
    }

    @Override
    public String toString() {
      return channels + "x" + height + "x" + width + " kernel " + kernel[0] + "x" + kernel[1] + " stride " + stride[0]
          + "x" + stride[1] + " dilation " + dilation[0] + "x" + dilation[1] + " pad " + padding[0] + "," + padding[1]
          + " " + mode;
    }
  }

  static Geometry g(int c, int h, int w, int kh, int kw, int sh, int sw, int dh, int dw, int ph, int pw,
      ConvolutionMode mode) {
    return new Geometry(c, h, w, new int[] {kh, kw}, new int[] {sh, sw}, new int[] {dh, dw}, new int[] {ph, pw}, mode);
  }

  static Stream<Arguments> geometries() {
    return Stream.of(
        g(3, 9, 8, 3, 3, 1, 1, 1, 1, 0, 0, ConvolutionMode.Truncate),
        g(2, 10, 9, 4, 2, 2, 1, 1, 1, 1, 2, ConvolutionMode.Truncate),
        g(4, 9, 9, 3, 3, 2, 2, 2, 2, 0, 0, ConvolutionMode.Truncate),
        g(1, 28, 28, 8, 8, 2, 2, 1, 1, 0, 0, ConvolutionMode.Same),
        g(16, 13, 13, 4, 4, 2, 2, 1, 1, 0, 0, ConvolutionMode.Same),
        g(16, 12, 12, 5, 5, 1, 1, 1, 1, 0, 0, ConvolutionMode.Truncate),
        g(3, 6, 5, 2, 2, 1, 1, 1, 1, 0, 0, ConvolutionMode.Same),
        g(3, 11, 9, 3, 2, 1, 2, 2, 1, 1, 0, ConvolutionMode.Truncate))
        .map(Arguments::of);
  }

  @ParameterizedTest
  @MethodSource("geometries")
  void equalsNd4jsCol2im(Geometry geometry) {
    ConvolutionPatches patches = geometry.patches();
    int n = 3;
    INDArray gradients = randomGradients(patches, n, 31);
    INDArray expected = nd4jFold(patches, geometry, gradients.castTo(DataType.DOUBLE), n);
    INDArray got = javaFold(patches, geometry, gradients, n, null);
    assertThat(got.shape()).containsExactly(n, geometry.height(), geometry.width(), geometry.channels());
    assertClose(got.permute(0, 3, 1, 2).castTo(DataType.DOUBLE), expected);
    assertClose(got.permute(0, 3, 1, 2), nd4jFold(patches, geometry, gradients, n));
  }

  /** Rows in the window order of a 2×2/2 pooling over the convolution's output give the natural order's result. */
  @Test
  void windowOrderGivesTheSameFold() {
    for (Geometry geometry : new Geometry[] {g(16, 12, 12, 5, 5, 1, 1, 1, 1, 0, 0, ConvolutionMode.Truncate),
        g(3, 12, 11, 3, 3, 1, 1, 1, 1, 0, 0, ConvolutionMode.Truncate)}) {    // 10×9 outputs: a column in no window
      ConvolutionPatches patches = geometry.patches();
      int n = 2;
      INDArray natural = randomGradients(patches, n, 41);
      PoolingWindows windows = poolingWindows(geometry);
      INDArray windowed = windowOrder(natural, patches, windows, n);
      INDArray expected = javaFold(patches, geometry, natural, n, null);
      INDArray got = javaFold(patches, geometry, windowed, n, windows);
      assertClose(got, expected);
    }
  }

  /** The windows of a 2×2/2 max pooling over the output of a convolution of this geometry. */
  static PoolingWindows poolingWindows(Geometry geometry) {
    ConvolutionPatches patches = geometry.patches();
    SubsamplingLayer pooling = new SubsamplingLayer.Builder(PoolingType.MAX).kernelSize(2, 2).stride(2, 2).build();
    ConvolutionLayer conv = new ConvolutionLayer.Builder(geometry.kernel()).nOut(4).build();
    PoolingWindows windows = PoolingWindows.of(pooling, conv, DataType.FLOAT, patches.outputHeight(),
        patches.outputWidth());
    assertThat(windows).as(geometry.toString()).isNotNull();
    return windows;
  }

  /** Patch rows [n·P, K] in the natural order, reordered to the window order of {@code windows} (a new array). */
  static INDArray windowOrder(INDArray natural, ConvolutionPatches patches, PoolingWindows windows, int n) {
    long k = natural.size(1);
    INDArray windowed = natural.ulike();
    windows.reorder(natural.reshape('c', n, patches.outputHeight(), patches.outputWidth(), k),
        windowed.reshape('c', n, patches.outputHeight(), patches.outputWidth(), k), false);
    assertThat(windowed.equals(natural)).as("the order differs").isFalse();
    return windowed;
  }

  /** The Java fold of all n examples, one example per call (as chunks of one), into a new channels-last image. */
  private static INDArray javaFold(ConvolutionPatches patches, Geometry geometry, INDArray gradients, int n,
      PoolingWindows windows) {
    INDArray image = Nd4j.create(DataType.FLOAT, n, geometry.height(), geometry.width(), geometry.channels());
    long rows = patches.positions();
    for (int i = 0; i < n; i++) {
      patches.foldChannelsLast(gradients.get(NDArrayIndex.interval(i * rows, (i + 1) * rows), NDArrayIndex.all()),
          1, image, i, windows);
    }
    return image;
  }

  /** [n·P, K] with columns (kh, kw, c), uniform in [−1, 1). */
  private static INDArray randomGradients(ConvolutionPatches patches, int n, long seed) {
    Nd4j.getRandom().setSeed(seed);
    return Nd4j.rand(DataType.FLOAT, (long) n * patches.positions(), patches.patchSize()).muli(2).subi(1);
  }

  /** ND4J's col2im, which reads the columns in DL4J's weight order (c, kh, kw): NCHW [n, C, H, W]. */
  private static INDArray nd4jFold(ConvolutionPatches patches, Geometry geometry, INDArray gradients, int n) {
    long rows = gradients.size(0);
    int[] kernel = geometry.kernel();
    long c = geometry.channels();
    INDArray weightOrder = gradients.reshape('c', rows, kernel[0], kernel[1], c).permute(0, 3, 1, 2).dup('c')
        .reshape('c', rows, patches.patchSize());
    return patches.fold(weightOrder, n, new ReusableArrays()).dup();
  }

  private static void assertClose(INDArray actual, INDArray expected) {
    double scale = expected.amaxNumber().doubleValue();
    assertThat(scale).isGreaterThan(0);
    assertThat(actual.castTo(expected.dataType()).sub(expected).amaxNumber().doubleValue() / scale)
        .isLessThanOrEqualTo(TOLERANCE);
  }
}
