package org.dp4j.clipping;

import static org.assertj.core.api.Assertions.assertThat;
import static org.dp4j.clipping.ConvolutionFoldTest.g;

import org.deeplearning4j.nn.conf.ConvolutionMode;
import org.dp4j.clipping.ConvolutionFoldTest.Geometry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.indexing.NDArrayIndex;

/**
 * Both im2col implementations of {@link ConvolutionPatches} — the Java one ({@code unfoldFloats}) and the one by
 * ND4J copies of strided views ({@code unfoldByViews}) — against patches read element by element from the NCHW
 * input by the definition (row (i, oh, ow), column (kh, kw, c) holds x[i, c, oh·sH − pT + kh·dH, ow·sW − pL + kw·dW],
 * 0 outside the input). A patch matrix is a copy, so equality is exact. Inputs: contiguous channels-last, the
 * permuted view of an NCHW array (rows not contiguous when C > 1), and a slice of examples from a larger array.
 */
class ConvolutionUnfoldTest {

  @ParameterizedTest
  @MethodSource("org.dp4j.clipping.ConvolutionFoldTest#geometries")
  void bothUnfoldsEqualTheDefinition(Geometry geometry) {
    ConvolutionPatches patches = geometry.patches();
    int n = 3;
    INDArray nchw = randomInput(geometry, n + 3, 17);
    INDArray slice = nchw.get(NDArrayIndex.interval(2, 2 + n), NDArrayIndex.all(), NDArrayIndex.all(),
        NDArrayIndex.all());
    INDArray expected = definition(patches, geometry, slice);
    INDArray[] inputs = {slice.permute(0, 2, 3, 1).dup('c'), slice.permute(0, 2, 3, 1),
        nchw.permute(0, 2, 3, 1).dup('c').get(NDArrayIndex.interval(2, 2 + n), NDArrayIndex.all(),
            NDArrayIndex.all(), NDArrayIndex.all())};
    for (INDArray channelsLast : inputs) {
      INDArray java = columns(patches, geometry, n);
      boolean inJava = geometry.dilation()[1] == 1;    // the Java im2col copies runs of kW·C values
      assertThat(patches.unfoldFloats(channelsLast, new ReusableArrays(), null, java)).isEqualTo(inJava);
      if (inJava) {
        assertThat(flat(java)).isEqualTo(flat(expected));
      }
      INDArray views = columns(patches, geometry, n);
      patches.unfoldByViews(channelsLast, new ReusableArrays(), null, views);
      assertThat(flat(views)).isEqualTo(flat(expected));
    }
  }

  /** Rows of K + 1 values: the patch, then 1 (a convolution's bias as one more weight column). */
  @Test
  void aColumnOfOnesAfterEachPatch() {
    Geometry geometry = g(3, 8, 7, 3, 2, 2, 1, 1, 1, 1, 1, ConvolutionMode.Truncate);
    ConvolutionPatches patches = geometry.patches();
    int n = 4;
    INDArray nchw = randomInput(geometry, n, 31);
    long rows = n * patches.positions();
    INDArray expected = Nd4j.hstack(definition(patches, geometry, nchw), Nd4j.ones(DataType.FLOAT, rows, 1));
    INDArray got = Nd4j.create(DataType.FLOAT, rows, patches.patchSize() + 1).assign(Float.NaN);
    assertThat(patches.unfoldsInJava(DataType.FLOAT, n, patches.patchSize() + 1)).isTrue();
    for (int pass = 0; pass < 2; pass++) {    // the second pass reuses the scratch rows, ones included
      assertThat(patches.unfoldFloats(nchw.permute(0, 2, 3, 1), new ReusableArrays(), null, got)).isTrue();
      assertThat(flat(got)).isEqualTo(flat(expected));
    }
  }

  /** Width dilation and double precision go to the ND4J copies, which still give the definition's patches. */
  @Test
  void widthDilationAndDoubleUseTheViews() {
    Geometry dilated = g(2, 9, 10, 2, 3, 1, 2, 2, 2, 1, 1, ConvolutionMode.Truncate);
    Geometry plain = g(3, 7, 7, 3, 3, 1, 1, 1, 1, 1, 1, ConvolutionMode.Truncate);
    for (Geometry geometry : new Geometry[] {dilated, plain}) {
      ConvolutionPatches patches = geometry.patches();
      int n = 2;
      DataType type = geometry == dilated ? DataType.FLOAT : DataType.DOUBLE;
      INDArray nchw = randomInput(geometry, n, 23).castTo(type);
      INDArray columns = columns(patches, geometry, n).castTo(type);
      assertThat(patches.unfoldFloats(nchw.permute(0, 2, 3, 1), new ReusableArrays(), null, columns)).isFalse();
      patches.unfold(nchw.permute(0, 2, 3, 1), new ReusableArrays(), null, columns);
      assertThat(columns.reshape(n * patches.positions(), patches.patchSize()))
          .isEqualTo(definition(patches, geometry, nchw).castTo(type));
    }
  }

  /**
   * In the window order of a 2×2/2 pooling the rows are those of the natural order, permuted as
   * {@link PoolingWindows#reorder} permutes them; the same from both implementations.
   */
  @Test
  void windowOrderPermutesTheRows() {
    for (Geometry geometry : new Geometry[] {g(16, 12, 12, 5, 5, 1, 1, 1, 1, 0, 0, ConvolutionMode.Truncate),
        g(3, 13, 12, 3, 3, 1, 1, 1, 1, 1, 0, ConvolutionMode.Truncate)}) {    // 13×10 outputs: a row in no window
      ConvolutionPatches patches = geometry.patches();
      int n = 2;
      INDArray nchw = randomInput(geometry, n, 29);
      PoolingWindows windows = ConvolutionFoldTest.poolingWindows(geometry);
      INDArray expected = ConvolutionFoldTest.windowOrder(definition(patches, geometry, nchw), patches, windows, n);
      INDArray java = columns(patches, geometry, n);
      assertThat(patches.unfoldFloats(nchw.permute(0, 2, 3, 1), new ReusableArrays(), windows, java)).isTrue();
      assertThat(flat(java)).isEqualTo(flat(expected));
      INDArray views = columns(patches, geometry, n);
      patches.unfoldByViews(nchw.permute(0, 2, 3, 1), new ReusableArrays(), windows, views);
      assertThat(flat(views)).isEqualTo(flat(expected));
    }
  }

  /** The patch matrix [n·P, K] by the definition, read element by element from the NCHW input. */
  private static INDArray definition(ConvolutionPatches patches, Geometry geometry, INDArray nchw) {
    long n = nchw.size(0);
    int[] pad = patches.padding();
    int c = geometry.channels();
    int kh = geometry.kernel()[0];
    int kw = geometry.kernel()[1];
    INDArray result = Nd4j.create(DataType.FLOAT, n * patches.positions(), patches.patchSize());
    for (int i = 0; i < n; i++) {
      for (int oh = 0; oh < patches.outputHeight(); oh++) {
        for (int ow = 0; ow < patches.outputWidth(); ow++) {
          long row = (long) i * patches.positions() + (long) oh * patches.outputWidth() + ow;
          for (int a = 0; a < kh; a++) {
            for (int b = 0; b < kw; b++) {
              int h = oh * geometry.stride()[0] - pad[0] + a * geometry.dilation()[0];
              int w = ow * geometry.stride()[1] - pad[1] + b * geometry.dilation()[1];
              for (int ch = 0; ch < c; ch++) {
                boolean inside = h >= 0 && h < geometry.height() && w >= 0 && w < geometry.width();
                result.putScalar(row, (long) (a * kw + b) * c + ch, inside ? nchw.getFloat(i, ch, h, w) : 0f);
              }
            }
          }
        }
      }
    }
    return result;
  }

  /** [n, outH, outW, kH, kW, C], as {@link ConvolutionPatches#unfold} fills it, float32, NaN until written. */
  private static INDArray columns(ConvolutionPatches patches, Geometry geometry, int n) {
    return Nd4j.create(DataType.FLOAT, n, patches.outputHeight(), patches.outputWidth(), geometry.kernel()[0],
        geometry.kernel()[1], geometry.channels()).assign(Float.NaN);
  }

  private static float[] flat(INDArray a) {
    return a.dup('c').reshape(a.length()).toFloatVector();
  }

  /** NCHW, uniform in [1, 2), so that no element equals the padding's zero. */
  private static INDArray randomInput(Geometry geometry, int n, long seed) {
    Nd4j.getRandom().setSeed(seed);
    return Nd4j.rand(DataType.FLOAT, n, geometry.channels(), geometry.height(), geometry.width()).addi(1);
  }
}
