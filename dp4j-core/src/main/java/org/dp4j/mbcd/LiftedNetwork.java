package org.dp4j.mbcd;

import static org.dp4j.InvalidSettingException.checkArgument;

import org.deeplearning4j.nn.conf.MultiLayerConfiguration;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.layers.BaseOutputLayer;
import org.deeplearning4j.nn.conf.layers.ConvolutionLayer;
import org.deeplearning4j.nn.conf.layers.SubsamplingLayer;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.ops.transforms.Transforms;

/**
 * The released part of a lifted ReLU network (Chen &amp; Liu Eq. 3–4; docs/accountants.md#dp-mbcd; docs/threat-models.md#dp-mbcd-auxiliaries): the D+1 blocks
 * W_0..W_D of a DL4J {@link MultiLayerNetwork}, in order, each acting on flat rows (one example per row).
 * {@link LiftedMlp} lifts dense networks, {@link LiftedCnn} convolutional ones; {@link DpMbcdTrainer} runs
 * either. The per-example auxiliaries x_d, u_d are not here: they live in the trainer and never leave it.
 *
 * <pre>{@code
 * // given: MultiLayerNetwork net; INDArray features
 * LiftedNetwork lifted = LiftedNetwork.from(net);   // copies net's parameters
 * INDArray p = lifted.output(features);             // equals net.output(features)
 * MultiLayerNetwork released = lifted.toNetwork();
 * }</pre>
 */
public abstract class LiftedNetwork {
  private final MultiLayerConfiguration conf;
  private final OutputLoss outputLoss;

  /** {@code conf}'s last layer must already be validated as an output layer ({@link LiftedMlp#checkLayer}). */
  LiftedNetwork(MultiLayerConfiguration conf) {
    this.conf = conf.clone();
    this.outputLoss = LiftedMlp.outputLoss(
        (BaseOutputLayer) conf.getConf(conf.getConfs().size() - 1).getLayer());
  }

  /** A {@link LiftedCnn} if the network has convolution or pooling layers, else a {@link LiftedMlp}. */
  public static LiftedNetwork from(MultiLayerNetwork net) {
    for (NeuralNetConfiguration layer : net.getLayerWiseConfigurations().getConfs()) {
      if (layer.getLayer() instanceof ConvolutionLayer
          || layer.getLayer() instanceof SubsamplingLayer) {
        return LiftedCnn.from(net);
      }
    }
    return LiftedMlp.from(net);
  }

  /** D+1, the number of released blocks. */
  public abstract int numBlocks();

  /** Block d (0 ≤ d ≤ D). */
  abstract LiftedBlock block(int d);

  /** Block d, which must be a plain dense block (e.g. the output block). */
  LinearBlock linearBlock(int d) {
    LiftedBlock b = block(d);
    checkArgument(b instanceof LinearBlock, "block %s is not a plain dense block: %s", d,
        b.getClass().getSimpleName());
    return (LinearBlock) b;
  }

  /** D: the number of hidden layers; there are D+1 released blocks. */
  public int depth() {
    return numBlocks() - 1;
  }

  /** Row widths n_0 (input), n_1..n_D (hidden x_d, flattened), n_{D+1} (output). */
  public int[] widths() {
    int[] w = new int[numBlocks() + 1];
    w[0] = block(0).nIn();
    for (int d = 0; d < numBlocks(); d++) {
      w[d + 1] = block(d).nOut();
    }
    return w;
  }

  /** Number of parameters (weights + biases) of block d. */
  public long blockParameterCount(int d) {
    return block(d).parameterCount();
  }

  /** The output block's loss R (squared, or softmax cross-entropy). */
  public OutputLoss outputLoss() {
    return outputLoss;
  }

  /**
   * The standard forward pass x_{d+1} = ReLU(W_d x_d + c_d), output W_D x_D + c_D, through softmax for the
   * cross-entropy output (no clipping): what DL4J's {@code output} computes.
   */
  public INDArray output(INDArray features) {
    INDArray x = features;
    for (int d = 0; d < depth(); d++) {
      x = Transforms.relu(block(d).apply(x), false);
    }
    INDArray logits = block(depth()).apply(x);
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
    checkArgument(net.getLayerWiseConfigurations().getConfs().size() == conf.getConfs().size(),
        "network has %s layers, the lifted one %s", net.getLayerWiseConfigurations().getConfs().size(),
        conf.getConfs().size());
    INDArray[] flats = new INDArray[numBlocks()];
    for (int d = 0; d < flats.length; d++) {
      flats[d] = block(d).layerParameters();
    }
    INDArray params = Nd4j.hstack(flats);
    checkArgument(params.length() == net.numParams(), "network has %s parameters, the lifted one %s",
        net.numParams(), params.length());
    net.setParams(params.castTo(net.params().dataType()));
  }
}
