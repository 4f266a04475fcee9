package org.dp4j.clipping;

import org.deeplearning4j.nn.conf.CNN2DFormat;
import org.deeplearning4j.nn.conf.ConvolutionMode;
import org.deeplearning4j.nn.conf.layers.PoolingType;
import org.deeplearning4j.nn.conf.layers.SubsamplingLayer;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.api.ops.DynamicCustomOp;
import org.nd4j.linalg.factory.Nd4j;

/**
 * {@code SubsamplingLayer} (max, average or p-norm pooling, NCHW or NHWC): no parameters; the forward pass is the
 * ND4J op DL4J's layer calls ({@code maxpool2d}, {@code avgpool2d}, {@code pnormpool2d}) with DL4J's arguments. The
 * backward pass of max pooling (float or double) scatters the error to the positions {@link MaxPoolingWithArgmax}
 * found in the forward pass (ties and padding as DL4J's op); the other cases run DL4J's {@code _bp} ops. All on
 * arrays reused from pass to pass ({@link ReusableArrays}) instead of a fresh allocation per call. Pooling
 * acts on each example separately, so the batched backward pass is the per-example one.
 */
final class PoolingGradients implements ParameterFreeLayer {
  private final SubsamplingLayer conf;
  private final boolean channelsLast;
  private final ReusableArrays arrays = new ReusableArrays();
  private final MaxPoolingWithArgmax maxPooling;
  private INDArray input;
  private ConvolutionPatches geometry;
  private boolean argmaxPass;    // whether the last forward pass ran maxPooling

  PoolingGradients(SubsamplingLayer conf) {
    this.conf = conf;
    this.channelsLast = conf.getCnn2dDataFormat() == CNN2DFormat.NHWC;
    this.maxPooling = conf.getPoolingType() == PoolingType.MAX
        ? new MaxPoolingWithArgmax(conf.getKernelSize(), conf.getStride(), conf.getDilation(), arrays) : null;
  }

  @Override
  public INDArray forward(INDArray in) {
    input = in;
    int h = channelsLast ? 1 : 2;
    geometry = ConvolutionPatches.of(1, (int) in.size(h), (int) in.size(h + 1), conf.getKernelSize(),
        conf.getStride(), conf.getDilation(), conf.getPadding(), conf.getConvolutionMode());
    long c = in.size(channelsLast ? 3 : 1);
    long[] shape = channelsLast
        ? new long[] {in.size(0), geometry.outputHeight(), geometry.outputWidth(), c}
        : new long[] {in.size(0), c, geometry.outputHeight(), geometry.outputWidth()};
    INDArray output = arrays.get("output", in.dataType(), shape);
    argmaxPass = maxPooling != null && BufferElements.supports(in);
    if (argmaxPass && maxPooling.poolFlat(toLogical(in), toLogical(output), geometry.padding())) {
      return output;
    }
    // As DL4J's SubsamplingLayer.activate: the configured padding, the op derives Same-mode padding itself.
    Nd4j.exec(op("", conf.getPadding()).addInputs(in).addOutputs(output).build());
    if (argmaxPass) {
      maxPooling.locate(toLogical(in), toLogical(output), geometry.padding());
    }
    return output;
  }

  /** Whether the last forward pass located the maxima by the flat 2×2 stride-1 search (for tests). */
  boolean lastPassWasFlat() {
    return argmaxPass && maxPooling.lastLocateWasFlat();
  }

  @Override
  public INDArray backward(INDArray outputError, boolean needInputError) {
    if (!needInputError) {
      return null;
    }
    if (argmaxPass) {
      return fromLogical(maxPooling.backward(toLogical(outputError.castTo(input.dataType()))));
    }
    // As DL4J's SubsamplingLayer.backpropGradient: explicit top-left padding in Same mode.
    int[] padding = conf.getConvolutionMode() == ConvolutionMode.Same ? geometry.padding() : conf.getPadding();
    INDArray inputError = arrays.get("inputError", input.dataType(), input.shape());
    DynamicCustomOp.DynamicCustomOpsBuilder b = op("_bp", padding);
    if (conf.getPoolingType() == PoolingType.PNORM) {
      b.addFloatingPointArguments(conf.getEps());
    }
    Nd4j.exec(b.addInputs(input, outputError.castTo(input.dataType())).addOutputs(inputError).build());
    return inputError;
  }

  /** The layer's layout → logical NCHW (a view). */
  private INDArray toLogical(INDArray a) {
    return channelsLast ? a.permute(0, 3, 1, 2) : a;
  }

  /** Logical NCHW → the layer's layout (a view). */
  private INDArray fromLogical(INDArray a) {
    return channelsLast ? a.permute(0, 2, 3, 1) : a;
  }

  private DynamicCustomOp.DynamicCustomOpsBuilder op(String suffix, int[] padding) {
    int extra;
    String name;
    switch (conf.getPoolingType()) {
      case MAX -> {
        name = "maxpool2d";
        extra = 0;
      }
      // 1: divide by the number of elements present, excluding padding (DL4J's legacy option); 0: by kH·kW.
      case AVG -> {
        name = "avgpool2d";
        extra = conf.isAvgPoolIncludePadInDivisor() ? 1 : 0;
      }
      case PNORM -> {
        name = "pnormpool2d";
        extra = conf.getPnorm();
      }
      default -> throw new IllegalStateException("pooling type " + conf.getPoolingType() + " reached the rule; "
          + "LayerRules admits only MAX, AVG and PNORM");
    }
    int[] k = conf.getKernelSize();
    int[] s = conf.getStride();
    int[] d = conf.getDilation();
    return DynamicCustomOp.builder(name + suffix).addIntegerArguments(k[0], k[1], s[0], s[1], padding[0],
        padding[1], d[0], d[1], conf.getConvolutionMode() == ConvolutionMode.Same ? 1 : 0, extra,
        channelsLast ? 1 : 0);
  }
}
