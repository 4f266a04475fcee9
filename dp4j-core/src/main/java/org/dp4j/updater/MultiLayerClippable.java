package org.dp4j.updater;

import static org.dp4j.InvalidSettingException.checkArgument;

import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.dp4j.clipping.ClippedGradientSum;
import org.dp4j.clipping.FrozenLayers;
import org.dp4j.clipping.PerExampleClipper;
import org.dp4j.clipping.PrivacyValidator;
import org.nd4j.linalg.api.ndarray.INDArray;

/** {@link ClippableModel} of a {@link MultiLayerNetwork}: {@link PerExampleClipper} on its only input and output. */
final class MultiLayerClippable extends BaseClippable {
  private final MultiLayerNetwork net;
  private final PerExampleClipper clipper;

  MultiLayerClippable(MultiLayerNetwork net) {
    // clone() goes through the builder, so a configuration edited in JSON is validated again here.
    super(initialised(net), DpSgdStep.configOf(net).clone());
    this.net = net;
    // Every refused layer named at once, before any step.
    PrivacyValidator.inspect(net).requireSupported();
    this.clipper = PerExampleClipper.of(net, config().clipping());
    long[] sizes = new long[net.getnLayers()];
    boolean[] isFrozen = new boolean[sizes.length];
    for (int i = 0; i < sizes.length; i++) {
      sizes[i] = net.getLayer(i).numParams();
      isFrozen[i] = FrozenLayers.isFrozen(net.getLayer(i));
    }
    splitViews(sizes, isFrozen);
  }

  private static MultiLayerNetwork initialised(MultiLayerNetwork net) {
    checkArgument(net.params() != null, "network must be initialised (call net.init())");
    return net;
  }

  /** The clipper (for its fused-path flag). */
  PerExampleClipper clipper() {
    return clipper;
  }

  @Override
  public INDArray gradientView() {
    if (net.getFlattenedGradients() == null) {
      net.initGradientsView();
    }
    return net.getFlattenedGradients();
  }

  @Override
  public ClippedGradientSum addClippedSum(INDArray[] features, INDArray[] labels, INDArray[] featureMasks,
      INDArray[] labelMasks, double clipNorm, INDArray target) {
    check(features, labels, featureMasks, labelMasks);
    return clipper.clippedSum(features[0], labels[0], only(featureMasks), only(labelMasks), clipNorm, target, true);
  }

  @Override
  public ClippedGradientSum clippedSum(INDArray[] features, INDArray[] labels, INDArray[] featureMasks,
      INDArray[] labelMasks, double clipNorm, INDArray target) {
    check(features, labels, featureMasks, labelMasks);
    return clipper.clippedSum(features[0], labels[0], only(featureMasks), only(labelMasks), clipNorm, target, false);
  }

  @Override
  public void requireViews(int views) {
    clipper.requireViews(views);
  }

  @Override
  public ClippedGradientSum clippedSumOfViews(INDArray features, INDArray labels, int views, double clipNorm,
      INDArray target, boolean accumulate) {
    return clipper.clippedSumOfViews(features, labels, views, clipNorm, target, accumulate);
  }

  private static void check(INDArray[] features, INDArray[] labels, INDArray[] featureMasks, INDArray[] labelMasks) {
    checkArgument(features.length == 1 && labels.length == 1,
        "a MultiLayerNetwork has one input and one output, got %s and %s arrays", features.length, labels.length);
    checkArgument((featureMasks == null || featureMasks.length == 1) && (labelMasks == null || labelMasks.length == 1),
        "a MultiLayerNetwork has one feature mask and one label mask at most, got %s and %s arrays",
        featureMasks == null ? 0 : featureMasks.length, labelMasks == null ? 0 : labelMasks.length);
  }

  private static INDArray only(INDArray[] masks) {
    return masks == null ? null : masks[0];
  }
}
