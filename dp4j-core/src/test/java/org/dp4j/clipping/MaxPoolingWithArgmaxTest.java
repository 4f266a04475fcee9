package org.dp4j.clipping;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.deeplearning4j.nn.api.Layer;
import org.deeplearning4j.nn.conf.CNN2DFormat;
import org.deeplearning4j.nn.conf.ConvolutionMode;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.deeplearning4j.nn.conf.layers.PoolingType;
import org.deeplearning4j.nn.conf.layers.SubsamplingLayer;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.deeplearning4j.nn.workspace.LayerWorkspaceMgr;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;

/**
 * {@link PoolingGradients}' max pooling on {@link MaxPoolingWithArgmax} against DL4J's own {@code SubsamplingLayer}
 * ({@code activate} and {@code backpropGradient}, i.e. libnd4j's {@code maxpool2d} and {@code maxpool2d_bp}, an
 * independent code path) over kernels, strides, paddings, dilations, modes, both data formats and both float types,
 * on inputs full of ties (small integers), all negative (where a padded zero would win if padding took
 * part). Forward outputs are selections, so they must be equal bit for bit; input errors are sums of the same
 * output errors in the same order, equal to 1e-12.
 */
class MaxPoolingWithArgmaxTest {

  record Pool(int[] kernel, int[] stride, int[] padding, int[] dilation, ConvolutionMode mode) {
    @Override
    public String toString() {
      return "k" + Arrays.toString(kernel) + " s" + Arrays.toString(stride) + " p" + Arrays.toString(padding)
          + " d" + Arrays.toString(dilation) + " " + mode;
    }
  }

  static Stream<Arguments> grid() {
    int[] one = {1, 1};
    int[] two = {2, 2};
    int[] none = {0, 0};
    List<Pool> pools = List.of(
        new Pool(two, two, none, one, ConvolutionMode.Truncate),              // the MNIST CNNs' pooling
        new Pool(two, one, none, one, ConvolutionMode.Truncate),              // overlapping windows
        new Pool(new int[] {3, 3}, two, new int[] {1, 1}, one, ConvolutionMode.Truncate),
        new Pool(new int[] {3, 2}, new int[] {1, 2}, new int[] {1, 0}, one, ConvolutionMode.Truncate),
        new Pool(two, one, none, two, ConvolutionMode.Truncate),              // dilation
        new Pool(new int[] {3, 3}, two, none, one, ConvolutionMode.Same),
        new Pool(new int[] {2, 3}, one, none, new int[] {2, 1}, ConvolutionMode.Same),
        new Pool(new int[] {3, 3}, new int[] {3, 3}, none, one, ConvolutionMode.Same));
    List<Arguments> cases = new ArrayList<>();
    for (Pool pool : pools) {
      for (CNN2DFormat format : CNN2DFormat.values()) {
        for (DataType type : new DataType[] {DataType.DOUBLE, DataType.FLOAT}) {
          cases.add(Arguments.of(pool, format, type));
        }
      }
    }
    return cases.stream();
  }

  @ParameterizedTest(name = "{0} {1} {2}")
  @MethodSource("grid")
  void matchesDl4jsSubsamplingLayer(Pool pool, CNN2DFormat format, DataType type) {
    Layer dl4j = subsampling(pool, format, type);
    PoolingGradients rule = new PoolingGradients((SubsamplingLayer) dl4j.conf().getLayer());
    // Two passes of different batch sizes on the same reused buffers.
    for (int n : new int[] {5, 3}) {
      INDArray x = ties(n, format, type);
      INDArray expectedOut = dl4j.activate(x, true, LayerWorkspaceMgr.noWorkspaces()).dup();
      INDArray out = rule.forward(x);
      boolean flat = pool.kernel()[0] == 2 && pool.kernel()[1] == 2 && pool.stride()[0] == 1
          && pool.stride()[1] == 1 && pool.dilation()[0] == 1 && format == CNN2DFormat.NCHW
          && type == DataType.FLOAT;
      assertThat(rule.lastPassWasFlat()).as("flat 2×2 stride-1 search").isEqualTo(flat);
      assertThat(out.shape()).isEqualTo(expectedOut.shape());
      assertThat(out.equals(expectedOut)).as("forward, batch %s", n).isTrue();
      INDArray error = Nd4j.rand(type, expectedOut.shape()).subi(0.5);
      INDArray expectedIn = dl4j.backpropGradient(error, LayerWorkspaceMgr.noWorkspaces()).getSecond().dup();
      INDArray in = rule.backward(error, true);
      assertThat(in.shape()).isEqualTo(expectedIn.shape());
      double scale = error.amaxNumber().doubleValue();
      assertThat(in.sub(expectedIn).amaxNumber().doubleValue()).as("backward, batch %s", n)
          .isLessThanOrEqualTo(1e-12 * scale);
      assertThat(in.amaxNumber().doubleValue()).as("the error reaches the input").isGreaterThan(0);
    }
  }

  @Test
  void aNaNInAWindowTakesTheSweep() {
    // The flat search cannot tell which of a NaN window's values libnd4j's search stops on: the sweep decides.
    Layer dl4j = subsampling(new Pool(new int[] {2, 2}, new int[] {1, 1}, new int[] {0, 0}, new int[] {1, 1},
        ConvolutionMode.Truncate), CNN2DFormat.NCHW, DataType.FLOAT);
    PoolingGradients rule = new PoolingGradients((SubsamplingLayer) dl4j.conf().getLayer());
    INDArray x = ties(2, CNN2DFormat.NCHW, DataType.FLOAT);
    rule.forward(x);
    assertThat(rule.lastPassWasFlat()).isTrue();
    x.putScalar(new long[] {1, 2, 4, 5}, Float.NaN);
    rule.forward(x);
    assertThat(rule.lastPassWasFlat()).isFalse();
  }

  @Test
  void tiesGoToTheFirstMaximumInRowMajorOrder() {
    // A single 2×2 window of equal values: libnd4j's search moves only on a strictly larger value.
    Layer dl4j = subsampling(new Pool(new int[] {2, 2}, new int[] {2, 2}, new int[] {0, 0}, new int[] {1, 1},
        ConvolutionMode.Truncate), CNN2DFormat.NCHW, DataType.DOUBLE);
    PoolingGradients rule = new PoolingGradients((SubsamplingLayer) dl4j.conf().getLayer());
    INDArray x = Nd4j.createFromArray(new double[] {3, 7, 7, 7}).reshape(1, 1, 2, 2);
    rule.forward(x);
    INDArray in = rule.backward(Nd4j.createFromArray(5.0).reshape(1, 1, 1, 1), true);
    assertThat(in.reshape(4).toDoubleVector()).containsExactly(0, 5, 0, 0);
  }

  /** A network of one subsampling layer on 9×8×3 inputs; its layer 0 is DL4J's own implementation. */
  private static Layer subsampling(Pool pool, CNN2DFormat format, DataType type) {
    MultiLayerNetwork net = TinyNetworks.init(new NeuralNetConfiguration.Builder().dataType(type).list()
        .layer(new SubsamplingLayer.Builder(PoolingType.MAX).kernelSize(pool.kernel()).stride(pool.stride())
            .padding(pool.padding()).dilation(pool.dilation()).convolutionMode(pool.mode()).dataFormat(format)
            .build())
        .setInputType(InputType.convolutional(9, 8, 3, format)).build());
    return net.getLayer(0);
  }

  /** Values in {−4, …, −1}: most windows hold ties, and every value is negative (a padded zero would win). */
  private static INDArray ties(int n, CNN2DFormat format, DataType type) {
    long[] shape = format == CNN2DFormat.NCHW ? new long[] {n, 3, 9, 8} : new long[] {n, 9, 8, 3};
    INDArray x = Nd4j.rand(DataType.DOUBLE, shape).muli(4).castTo(DataType.INT32).castTo(type).addi(1).negi();
    assertThat(x.maxNumber().doubleValue()).isEqualTo(-1.0);
    return x;
  }
}
