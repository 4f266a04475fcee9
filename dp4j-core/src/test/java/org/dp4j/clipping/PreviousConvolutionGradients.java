package org.dp4j.clipping;

import java.util.Map;
import org.deeplearning4j.nn.api.Layer;
import org.deeplearning4j.nn.conf.ConvolutionMode;
import org.deeplearning4j.nn.conf.layers.ConvolutionLayer;
import org.deeplearning4j.nn.params.ConvolutionParamInitializer;
import org.deeplearning4j.nn.workspace.LayerWorkspaceMgr;
import org.deeplearning4j.util.ConvolutionUtils;
import org.nd4j.linalg.api.memory.MemoryWorkspace;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.convolution.Convolution;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.indexing.NDArrayIndex;

/**
 * The convolution rule dp4j used before issue 20 (ND4J's im2col op, DL4J's own {@code backpropGradient} for the
 * input error), kept in the tests as a second reference for the unfolded path ({@link ConvolutionGradients}): NCHW
 * only. Its norms use {@link PatchGradients}, like the new rule.
 */
final class PreviousConvolutionGradients implements PerExampleLayer {

  private final Layer layer;
  private final ConvolutionLayer conf;
  private final long chunkElements;
  private final ConvolutionNorms norms;
  private INDArray patches;     // [n, P, K]
  private INDArray preActivation;
  private INDArray delta;       // [n, P, out]

  PreviousConvolutionGradients(Layer layer, long chunkElements, ConvolutionNorms norms) {
    this.layer = layer;
    this.chunkElements = chunkElements;
    this.norms = norms;
    this.conf = (ConvolutionLayer) layer.conf().getLayer();
  }

  @Override
  public INDArray forward(INDArray input) {
    layer.setInput(input, LayerWorkspaceMgr.noWorkspaces());
    INDArray weights = layer.getParam(ConvolutionParamInitializer.WEIGHT_KEY);
    int n = (int) input.size(0);
    int outChannels = (int) weights.size(0);
    int[] kernel = conf.getKernelSize();
    int[] stride = conf.getStride();
    int[] dilation = conf.getDilation();
    ConvolutionMode mode = conf.getConvolutionMode();
    int[] inSize = {(int) input.size(2), (int) input.size(3)};
    int[] outSize;
    int[] padding;
    // Same output size and padding as DL4J's ConvolutionLayer.preOutput.
    if (mode == ConvolutionMode.Same) {
      outSize = ConvolutionUtils.getOutputSize(input, kernel, stride, null, mode, dilation);
      padding = ConvolutionUtils.getSameModeTopLeftPadding(outSize, inSize, kernel, stride, dilation);
    } else {
      padding = conf.getPadding();
      outSize = ConvolutionUtils.getOutputSize(input, kernel, stride, padding, mode, dilation);
    }
    int positions = outSize[0] * outSize[1];
    long patchSize = weights.size(1) * kernel[0] * kernel[1];
    INDArray columns = Nd4j.createUninitialized(input.dataType(),
        new long[] {n, outSize[0], outSize[1], weights.size(1), kernel[0], kernel[1]}, 'c');
    Convolution.im2col(input, kernel[0], kernel[1], stride[0], stride[1], padding[0], padding[1],
        dilation[0], dilation[1], mode == ConvolutionMode.Same, columns.permute(0, 3, 4, 5, 1, 2));
    patches = columns.reshape('c', n, positions, patchSize);
    INDArray weights2d = weights.reshape('c', outChannels, patchSize);
    INDArray z = patches.reshape('c', (long) n * positions, patchSize).mmul(weights2d.transpose());
    if (conf.hasBias()) {
      z.addiRowVector(layer.getParam(ConvolutionParamInitializer.BIAS_KEY));
    }
    preActivation = z.reshape('c', n, outSize[0], outSize[1], outChannels).permute(0, 3, 1, 2).dup('c');
    return conf.getActivationFn().getActivation(preActivation.dup(), true);
  }

  @Override
  public INDArray backward(INDArray outputError, boolean needInputError) {
    INDArray inputError = needInputError
        ? layer.backpropGradient(outputError, LayerWorkspaceMgr.noWorkspaces()).getSecond() : null;
    INDArray d = conf.getActivationFn().backprop(preActivation, outputError.dup()).getFirst();
    long n = d.size(0);
    delta = d.permute(0, 2, 3, 1).dup('c').reshape('c', n, patches.size(1), d.size(1));
    preActivation = null;
    return inputError;
  }

  @Override
  public boolean hasParams() {
    return true;
  }

  @Override
  public INDArray squaredNorms() {
    long n = delta.size(0);
    long positions = patches.size(1);
    boolean gram = norms.useGram(positions, patches.size(2), delta.size(2));
    INDArray result = PatchGradients.squaredNorms(patches, delta, gram, chunkElements);
    if (conf.hasBias()) {
      INDArray biasSq = delta.sum(1).norm2(1);
      result.addi(biasSq.muli(biasSq).reshape(n, 1));
    }
    return result;
  }

  @Override
  public void writeScaledSum(INDArray scale, Map<String, INDArray> gradientViews) {
    long n = delta.size(0);
    long positions = patches.size(1);
    long out = delta.size(2);
    INDArray scaled = delta.reshape('c', n, positions * out).mulColumnVector(scale).reshape('c', n * positions, out);
    INDArray weightSum = scaled.transpose().mmul(patches.reshape('c', n * positions, patches.size(2)));
    INDArray weightView = gradientViews.get(ConvolutionParamInitializer.WEIGHT_KEY);
    weightView.assign(weightSum.reshape('c', weightView.shape()));
    if (conf.hasBias()) {
      INDArray biasView = gradientViews.get(ConvolutionParamInitializer.BIAS_KEY);
      biasView.assign(scaled.sum(0).reshape(biasView.shape()));
    }
  }
}
