package org.dp4j.mbcd;

import static org.dp4j.InvalidSettingException.checkArgument;

import java.util.ArrayList;
import java.util.List;
import org.deeplearning4j.nn.conf.MultiLayerConfiguration;
import org.deeplearning4j.nn.conf.layers.BaseLayer;
import org.deeplearning4j.nn.conf.layers.BaseOutputLayer;
import org.deeplearning4j.nn.conf.layers.DenseLayer;
import org.deeplearning4j.nn.conf.layers.Layer;
import org.deeplearning4j.nn.conf.layers.OutputLayer;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.dp4j.InvalidSettingException;
import org.nd4j.linalg.activations.impl.ActivationIdentity;
import org.nd4j.linalg.activations.impl.ActivationReLU;
import org.nd4j.linalg.activations.impl.ActivationSoftmax;
import org.nd4j.linalg.lossfunctions.impl.LossL2;
import org.nd4j.linalg.lossfunctions.impl.LossMCXENT;

/**
 * The released part of a lifted dense ReLU network (Chen &amp; Liu Eq. 3–4; docs/accountants.md#dp-mbcd; docs/threat-models.md#dp-mbcd-auxiliaries): the
 * D+1 blocks W_0..W_D (weights and biases) of a DL4J {@link MultiLayerNetwork} made of D dense ReLU
 * layers and a final {@link OutputLayer} with identity activation and MSE (or L2) loss, or softmax with
 * cross-entropy ({@link OutputLoss}). The per-example auxiliaries x_d, u_d are not here: they live in the
 * trainer and never leave it. For the squared loss the lifted objective uses R = ½‖W_D x_D + c_D − y‖² as in
 * the paper, whatever DL4J's own scaling (MSE divides by the number of outputs).
 *
 * <pre>{@code
 * // given: MultiLayerNetwork net; INDArray features
 * LiftedMlp lifted = LiftedMlp.from(net);        // copies net's parameters
 * INDArray p = lifted.output(features);          // equals net.output(features)
 * MultiLayerNetwork released = lifted.toNetwork();
 * }</pre>
 */
public final class LiftedMlp extends LiftedNetwork {
  private final List<LinearBlock> blocks;

  private LiftedMlp(MultiLayerConfiguration conf, List<LinearBlock> blocks) {
    super(conf);
    this.blocks = blocks;
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
    return new LiftedMlp(conf, blocks);
  }

  /**
   * Dense ReLU hidden layer or (last) output layer with identity/squared loss or softmax/cross-entropy, with bias,
   * no regularisation.
   */
  static void checkLayer(int i, Layer layer, boolean last) {
    checkPlain(i, layer);
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
  static OutputLoss outputLoss(BaseOutputLayer out) {
    if (out.getActivationFn() instanceof ActivationIdentity && out.getLossFn() instanceof LossL2 l2) {
      checkArgument(l2.getWeights() == null, "the output loss has per-output weights %s, which the lifted"
          + " objective would ignore; use an unweighted loss", l2.getWeights());
      return OutputLoss.SQUARED;   // LossMSE is a LossL2
    }
    if (out.getActivationFn() instanceof ActivationSoftmax && out.getLossFn() instanceof LossMCXENT ce) {
      checkArgument(ce.getWeights() == null, "the output loss has per-class weights %s, which the lifted"
          + " objective would ignore; use an unweighted loss", ce.getWeights());
      return OutputLoss.SOFTMAX_CROSS_ENTROPY;   // LossNegativeLogLikelihood is a LossMCXENT
    }
    throw new InvalidSettingException(String.format("the output layer must be identity + MSE/L2 (the paper's"
        + " squared loss) or softmax + MCXENT/negative log-likelihood, was %s + %s", out.getActivationFn(),
        out.getLossFn()));
  }

  /** No dropout and no DL4J regularisation: neither is applied by the lifted trainer. */
  static void checkPlain(int i, Layer layer) {
    checkArgument(layer.getIDropout() == null, "layer %s: dropout is not supported", i);
    if (layer instanceof BaseLayer) {
      BaseLayer base = (BaseLayer) layer;
      // DL4J's L1/L2/weight decay are gradient terms the lifted trainer never applies; a regulariser
      // belongs in the prox (docs/accountants.md#dp-mbcd)
      checkArgument(isEmpty(base.getRegularization()) && isEmpty(base.getRegularizationBias()),
          "layer %s: DL4J regularisation %s is not applied by DP-MBCD; use a ProximalOperator", i,
          base.getRegularization());
    }
  }

  private static boolean isEmpty(List<?> list) {
    return list == null || list.isEmpty();
  }

  @Override
  public int numBlocks() {
    return blocks.size();
  }

  @Override
  LinearBlock block(int d) {
    checkArgument(d >= 0 && d < blocks.size(), "block index must be in [0, %s], was %s",
        blocks.size() - 1, d);
    return blocks.get(d);
  }
}
