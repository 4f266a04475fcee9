package org.dp4j.updater;

import java.util.OptionalDouble;
import org.deeplearning4j.nn.api.Trainable;
import org.deeplearning4j.nn.gradient.Gradient;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.deeplearning4j.nn.updater.MultiLayerUpdater;
import org.deeplearning4j.nn.workspace.LayerWorkspaceMgr;

/**
 * DL4J's {@link MultiLayerUpdater} for a network whose {@code fit} takes private steps: with plain SGD (one
 * learning rate, no regularisation) it applies the update in place, as {@link DpSgdStep} does, dividing by the
 * batch size DL4J hands it (the expected batch size) and multiplying by η — DL4J's own arithmetic without its
 * per-block bookkeeping; otherwise it is DL4J's updater (momentum, Adam, schedules, L1/L2). The gradient it receives
 * must already be private (clipped per example and noised): install it only on such a network.
 */
public final class PrivateFitUpdater extends MultiLayerUpdater {
  private static final long serialVersionUID = 1L;

  private final transient InPlaceSgd inPlace;

  public PrivateFitUpdater(MultiLayerNetwork net) {
    super(net);
    this.inPlace = new InPlaceSgd(net, DpSgdStep.configOf(net));
  }

  @Override
  public void update(Trainable layer, Gradient gradient, int iteration, int epoch, int batchSize,
      LayerWorkspaceMgr workspaceMgr) {
    OptionalDouble rate = inPlace.rate(iteration, epoch);
    if (rate.isPresent()) {
      gradient.gradient().divi(batchSize).muli(rate.getAsDouble());
    } else {
      super.update(layer, gradient, iteration, epoch, batchSize, workspaceMgr);
    }
  }
}
