package org.dp4j.mbcd;

import static org.dp4j.InvalidSettingException.checkArgument;

import java.util.ArrayList;
import java.util.List;
import org.deeplearning4j.nn.conf.CNN2DFormat;
import org.deeplearning4j.nn.conf.InputPreProcessor;
import org.deeplearning4j.nn.conf.MultiLayerConfiguration;
import org.deeplearning4j.nn.conf.layers.ConvolutionLayer;
import org.deeplearning4j.nn.conf.layers.DenseLayer;
import org.deeplearning4j.nn.conf.layers.FeedForwardLayer;
import org.deeplearning4j.nn.conf.layers.Layer;
import org.deeplearning4j.nn.conf.layers.OutputLayer;
import org.deeplearning4j.nn.conf.layers.PoolingType;
import org.deeplearning4j.nn.conf.layers.SubsamplingLayer;
import org.deeplearning4j.nn.conf.preprocessor.CnnToFeedForwardPreProcessor;
import org.deeplearning4j.nn.conf.preprocessor.FeedForwardToCnnPreProcessor;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.dp4j.InvalidSettingException;
import org.nd4j.linalg.activations.impl.ActivationReLU;

/**
 * A lifted convolutional ReLU network (Chen &amp; Liu B.2.2; docs/errata.md#dp-mbcd-lifted-updates, #dp-mbcd-lipschitz-f, #dp-mbcd-convolution): a DL4J configuration
 * built with {@code setInputType(InputType.convolutionalFlat(h, w, c))}, made of {@link ConvolutionLayer}s
 * (ReLU, bias, NCHW, Truncate/Strict/Same, no dilation), {@link SubsamplingLayer}s with <b>average</b>
 * pooling (linear and parameter-free: folded into the next block's linear map), dense ReLU layers and a
 * final identity/MSE {@link OutputLayer}. Max pooling is refused: it is not linear. Every x_d is a flat
 * NCHW row, as DL4J's preprocessors flatten feature maps, so the trainer's auxiliary store and clipping are
 * the dense ones. The layer right before the output layer must not be a pooling layer.
 *
 * <pre>{@code
 * // given: MultiLayerNetwork net; INDArray flatImages
 * LiftedCnn lifted = LiftedCnn.from(net);         // copies net's parameters
 * INDArray p = lifted.output(flatImages);         // equals net.output(flatImages)
 * }</pre>
 */
public final class LiftedCnn extends LiftedNetwork {
  private final List<LiftedBlock> blocks;

  private LiftedCnn(MultiLayerConfiguration conf, List<LiftedBlock> blocks) {
    super(conf);
    this.blocks = List.copyOf(blocks);
  }

  /** Validates the architecture and copies the network's current parameters. */
  public static LiftedCnn from(MultiLayerNetwork net) {
    MultiLayerConfiguration conf = net.getLayerWiseConfigurations();
    int layers = conf.getConfs().size();
    InputPreProcessor first = conf.getInputPreProcess(0);
    checkArgument(first instanceof FeedForwardToCnnPreProcessor,
        "the lifted CNN takes flat image rows: build the configuration with "
            + "setInputType(InputType.convolutionalFlat(height, width, channels)); layer 0 has "
            + "preprocessor %s", first);
    FeedForwardToCnnPreProcessor in = (FeedForwardToCnnPreProcessor) first;
    int[] maps = {(int) in.getNumChannels(), (int) in.getInputHeight(), (int) in.getInputWidth()};
    boolean flat = false;       // false while activations are feature maps
    int width = maps[0] * maps[1] * maps[2];
    LinearMap pooling = null;   // pending pooling, folded into the next block
    int pooledFrom = width;
    List<LiftedBlock> blocks = new ArrayList<>();
    for (int i = 0; i < layers; i++) {
      Layer layer = conf.getConf(i).getLayer();
      boolean last = i == layers - 1;
      InputPreProcessor pre = conf.getInputPreProcess(i);
      checkArgument(i == 0 || pre == null || pre instanceof CnnToFeedForwardPreProcessor,
          "layer %s: input preprocessor %s is not supported by the lifted CNN", i, pre);
      if (pre instanceof CnnToFeedForwardPreProcessor) {
        checkArgument(((CnnToFeedForwardPreProcessor) pre).getFormat() == CNN2DFormat.NCHW,
            "layer %s: only NCHW feature maps are supported", i);
        flat = true;
      }
      LiftedBlock block;
      if (layer.getClass() == SubsamplingLayer.class) {
        checkArgument(!flat, "layer %s: pooling after a dense layer is not supported", i);
        checkArgument(!last, "layer %s: the last layer must be an OutputLayer, was a pooling layer", i);
        checkArgument(!(conf.getConf(i + 1).getLayer() instanceof OutputLayer),
            "layer %s: the output layer cannot follow a pooling layer directly (its x-update is the "
                + "dense closed form); put a DenseLayer or ConvolutionLayer in between", i);
        AveragePooling pool = new AveragePooling(poolingWindow(i, (SubsamplingLayer) layer, maps));
        maps = new int[] {maps[0], pool.window().outHeight(), pool.window().outWidth()};
        if (pooling == null) {
          pooledFrom = width;
        }
        pooling = pooling == null ? pool : pooling.then(pool);
        width = maps[0] * maps[1] * maps[2];
        continue;
      }
      if (layer instanceof ConvolutionLayer && layer.getClass() == ConvolutionLayer.class) {
        checkArgument(!flat, "layer %s: a convolution after a dense layer is not supported", i);
        ConvolutionLayer c = (ConvolutionLayer) layer;
        checkConvolution(i, c);
        ConvolutionGeometry g = ConvolutionGeometry.of(maps[0], maps[1], maps[2], c.getKernelSize(),
            c.getStride(), c.getPadding(), c.getConvolutionMode());
        block = ConvolutionBlock.fromLayerParameters(net.getLayer(i).params(), g, (int) c.getNOut());
        maps = new int[] {(int) c.getNOut(), g.outHeight(), g.outWidth()};
      } else if (layer instanceof DenseLayer || layer instanceof OutputLayer) {
        checkArgument(flat, "layer %s: a dense layer on feature maps needs DL4J's CNN-to-dense "
            + "preprocessor (set the input type)", i);
        LiftedMlp.checkLayer(i, layer, last);
        FeedForwardLayer ff = (FeedForwardLayer) layer;
        block = LinearBlock.fromFlat(net.getLayer(i).params(), (int) ff.getNIn(), (int) ff.getNOut());
      } else {
        throw new InvalidSettingException(String.format("layer %s: %s is not supported by the lifted "
                + "CNN (supported: ConvolutionLayer, SubsamplingLayer with AVG pooling, DenseLayer, "
                + "OutputLayer)", i, layer.getClass().getSimpleName()));
      }
      checkArgument(last == layer instanceof OutputLayer,
          "layer %s: the last layer, and only it, must be an OutputLayer", i);
      checkArgument(block.nIn() == width, "layer %s takes %s inputs, the layer below gives %s", i,
          block.nIn(), width);
      if (pooling != null) {
        block = new PooledBlock(pooling, pooledFrom, block);
        pooling = null;
      }
      blocks.add(block);
      width = block.nOut();
    }
    return new LiftedCnn(conf, blocks);
  }

  private static void checkConvolution(int i, ConvolutionLayer c) {
    LiftedMlp.checkPlain(i, c);
    checkArgument(c.getActivationFn() instanceof ActivationReLU,
        "layer %s must use ReLU (Eq. 10 is the ReLU closed form), was %s", i, c.getActivationFn());
    checkArgument(c.hasBias(), "layer %s must have a bias", i);
    checkArgument(c.getDilation()[0] == 1 && c.getDilation()[1] == 1,
        "layer %s: dilation is not supported, was %sx%s", i, c.getDilation()[0], c.getDilation()[1]);
    checkArgument(c.getCnn2dDataFormat() == CNN2DFormat.NCHW, "layer %s: only NCHW is supported", i);
  }

  private static ConvolutionGeometry poolingWindow(int i, SubsamplingLayer s, int[] maps) {
    checkArgument(s.getPoolingType() == PoolingType.AVG,
        "layer %s: %s pooling is refused: max pooling is not linear; use AVG pooling or a strided "
            + "convolution (docs/errata.md#dp-mbcd-convolution)", i, s.getPoolingType());
    checkArgument(s.getDilation()[0] == 1 && s.getDilation()[1] == 1,
        "layer %s: pooling dilation is not supported", i);
    checkArgument(s.getCnn2dDataFormat() == CNN2DFormat.NCHW, "layer %s: only NCHW is supported", i);
    boolean padded = s.getConvolutionMode() == org.deeplearning4j.nn.conf.ConvolutionMode.Same
        || s.getPadding()[0] > 0 || s.getPadding()[1] > 0;
    checkArgument(!padded || s.isAvgPoolIncludePadInDivisor(),
        "layer %s: padded average pooling must count the padding in the divisor "
            + "(avgPoolIncludePadInDivisor(true)): with smaller divisors at the border ‖pool(x)‖ can exceed"
            + " ‖x‖ and the next block's curvature bound would not hold", i);
    return ConvolutionGeometry.of(maps[0], maps[1], maps[2], s.getKernelSize(), s.getStride(),
        s.getPadding(), s.getConvolutionMode());
  }

  @Override
  public int numBlocks() {
    return blocks.size();
  }

  @Override
  LiftedBlock block(int d) {
    checkArgument(d >= 0 && d < blocks.size(), "block index must be in [0, %s], was %s",
        blocks.size() - 1, d);
    return blocks.get(d);
  }
}
