package org.dp4j.mbcd;

import static com.google.common.base.Preconditions.checkArgument;

import java.util.ArrayList;
import java.util.List;
import org.deeplearning4j.nn.conf.MultiLayerConfiguration;
import org.deeplearning4j.nn.conf.layers.BaseLayer;
import org.deeplearning4j.nn.conf.layers.BaseOutputLayer;
import org.deeplearning4j.nn.conf.layers.DenseLayer;
import org.deeplearning4j.nn.conf.layers.Layer;
import org.deeplearning4j.nn.conf.layers.OutputLayer;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.nd4j.linalg.activations.impl.ActivationIdentity;
import org.nd4j.linalg.activations.impl.ActivationReLU;
import org.nd4j.linalg.activations.impl.ActivationSoftmax;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.lossfunctions.impl.LossL2;
import org.nd4j.linalg.lossfunctions.impl.LossMCXENT;
import org.nd4j.linalg.ops.transforms.Transforms;

/**
 * The released part of a lifted dense ReLU network (Chen &amp; Liu Eq. 3–4; digest 003 §1, §2.7): the
 * D+1 blocks W_0..W_D (weights and biases) of a DL4J {@link MultiLayerNetwork} made of D dense ReLU
 * layers and a final {@link OutputLayer} with identity activation and MSE (or L2) loss, or softmax with
 * cross-entropy ({@link OutputLoss}). The per-example
 * auxiliaries x_d, u_d are not here: they live in the trainer and never leave it. DL4J's loss is only
 * checked to be a squared loss: the lifted objective uses R = ½‖W_D x_D + c_D − y‖² as in the paper,
 * whatever DL4J's own scaling (MSE divides by the number of outputs).
 *
 * <pre>{@code
 * LiftedMlp lifted = LiftedMlp.from(net);        // copies net's parameters
 * INDArray p = lifted.output(features);          // equals net.output(features)
 * MultiLayerNetwork released = lifted.toNetwork();
 * }</pre>
 */
public final class LiftedMlp {
  private final MultiLayerConfiguration conf;
  private final List<LinearBlock> blocks;
  private final OutputLoss outputLoss;

  private LiftedMlp(MultiLayerConfiguration conf, List<LinearBlock> blocks, OutputLoss outputLoss) {
    this.conf = conf;
    this.blocks = blocks;
    this.outputLoss = outputLoss;
  }

  /** Validates the architecture and copies the network's current parameters. */
  public static LiftedMlp from(MultiLayerNetwork net) {
    MultiLayerConfiguration conf = net.getLayerWiseConfigurations();
    int layers = conf.getConfs().size();
    checkArgument(layers >= 1, "the network needs at least an output layer, had %s layers", layers);
    checkArgument(conf.getInputPreProcessors().isEmpty(),
        "input preprocessors are not supported by the lifted MLP, found %s",
        conf.getInputPreProcessors());
    List<LinearBlock> blocks = new ArrayList<>();
    for (int i = 0; i < layers; i++) {
      Layer layer = conf.getConf(i).getLayer();
      checkLayer(i, layer, i == layers - 1);
      var ff = (org.deeplearning4j.nn.conf.layers.FeedForwardLayer) layer;
      blocks.add(LinearBlock.fromFlat(net.getLayer(i).params(), (int) ff.getNIn(),
          (int) ff.getNOut()));
    }
    return new LiftedMlp(conf.clone(), blocks,
        outputLoss((BaseOutputLayer) conf.getConf(layers - 1).getLayer()));
  }

  private static void checkLayer(int i, Layer layer, boolean last) {
    checkArgument(layer.getIDropout() == null, "layer %s: dropout is not supported", i);
    if (layer instanceof BaseLayer) {
      BaseLayer base = (BaseLayer) layer;
      // DL4J's L1/L2/weight decay are gradient terms the lifted trainer never applies; a regulariser
      // belongs in the prox (digest 003 §7)
      checkArgument(isEmpty(base.getRegularization()) && isEmpty(base.getRegularizationBias()),
          "layer %s: DL4J regularisation %s is not applied by DP-MBCD; use a ProximalOperator", i,
          base.getRegularization());
    }
    if (!last) {
      checkArgument(layer instanceof DenseLayer,
          "layer %s must be a DenseLayer (lifted MLP), was %s", i, layer.getClass().getSimpleName());
      DenseLayer d = (DenseLayer) layer;
      checkArgument(d.getActivationFn() instanceof ActivationReLU,
          "layer %s must use ReLU (Eq. 10 is the ReLU closed form), was %s", i, d.getActivationFn());
      checkArgument(d.hasBias(), "layer %s must have a bias", i);
      return;
    }
    checkArgument(layer instanceof OutputLayer,
        "the last layer must be an OutputLayer, was %s", layer.getClass().getSimpleName());
    checkArgument(((BaseOutputLayer) layer).hasBias(), "the output layer must have a bias");
    outputLoss((BaseOutputLayer) layer);
  }

  /** Squared loss with identity activation, or softmax with (multi-class) cross-entropy; nothing else. */
  private static OutputLoss outputLoss(BaseOutputLayer out) {
    if (out.getActivationFn() instanceof ActivationIdentity && out.getLossFn() instanceof LossL2) {
      return OutputLoss.SQUARED;   // LossMSE is a LossL2
    }
    if (out.getActivationFn() instanceof ActivationSoftmax && out.getLossFn() instanceof LossMCXENT) {
      return OutputLoss.SOFTMAX_CROSS_ENTROPY;   // LossNegativeLogLikelihood is a LossMCXENT
    }
    throw new IllegalArgumentException(String.format("the output layer must be identity + MSE/L2 (the paper's"
        + " squared loss) or softmax + MCXENT/negative log-likelihood, was %s + %s", out.getActivationFn(),
        out.getLossFn()));
  }

  private static boolean isEmpty(List<?> list) {
    return list == null || list.isEmpty();
  }

  /** D: the number of hidden layers; there are D+1 released blocks. */
  public int depth() {
    return blocks.size() - 1;
  }

  public int numBlocks() {
    return blocks.size();
  }

  /** Layer widths n_0 (input), n_1..n_D (hidden), n_{D+1} (output). */
  public int[] widths() {
    int[] w = new int[blocks.size() + 1];
    w[0] = blocks.get(0).nIn();
    for (int d = 0; d < blocks.size(); d++) {
      w[d + 1] = blocks.get(d).nOut();
    }
    return w;
  }

  /** Number of parameters (weights + biases) of block d. */
  public long blockParameterCount(int d) {
    return block(d).parameterCount();
  }

  /** The output block's loss R. */
  public OutputLoss outputLoss() {
    return outputLoss;
  }

  /**
   * The standard forward pass x_{d+1} = ReLU(x_d·A_d + c_d), output x_D·A_D + c_D, through softmax for the
   * cross-entropy output (no clipping): what DL4J's {@code output} computes.
   */
  public INDArray output(INDArray features) {
    INDArray x = features;
    for (int d = 0; d < depth(); d++) {
      x = Transforms.relu(blocks.get(d).apply(x), false);
    }
    INDArray logits = blocks.get(depth()).apply(x);
    return outputLoss == OutputLoss.SOFTMAX_CROSS_ENTROPY ? Transforms.softmax(logits, false) : logits;
  }

  /** A new, initialised DL4J network with this configuration and the current released blocks. */
  public MultiLayerNetwork toNetwork() {
    MultiLayerNetwork net = new MultiLayerNetwork(conf.clone());
    net.init();
    writeTo(net);
    return net;
  }

  /** Overwrites the parameters of a network with the same architecture by the released blocks. */
  public void writeTo(MultiLayerNetwork net) {
    checkArgument(net.getnLayers() == blocks.size(),
        "network has %s layers, the lifted MLP %s", net.getnLayers(), blocks.size());
    INDArray[] flats = new INDArray[blocks.size()];
    for (int d = 0; d < flats.length; d++) {
      flats[d] = blocks.get(d).flat();
    }
    net.setParams(Nd4j.hstack(flats).castTo(net.params().dataType()));
  }

  LinearBlock block(int d) {
    checkArgument(d >= 0 && d < blocks.size(), "block index must be in [0, %s], was %s",
        blocks.size() - 1, d);
    return blocks.get(d);
  }
}
