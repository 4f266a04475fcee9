package org.dp4j.listeners;

import static com.google.common.base.Preconditions.checkNotNull;

import org.deeplearning4j.nn.api.Model;
import org.deeplearning4j.optimize.api.BaseTrainingListener;
import org.dp4j.training.ParameterAverage;

/**
 * Keeps a {@link ParameterAverage} of the iterates of a private {@code fit} (DL4J's loop): after every update,
 * {@code iterationDone} folds the new parameters into the average. As {@code DpSgdTrainer.Builder#averageParameters}
 * does for dp4j's own loop, but here no trainer sees the ledger, so the refusal becomes a mark: the average is a
 * function of every iterate, so {@link HiddenStateLeakDetector} lists this listener as releasing intermediate
 * parameters and a {@link PrivacyLedgerListener} on the same network voids its hidden-state (last-iterate) bounds;
 * the composition bounds, which already count every iterate as released, cover the average unchanged
 * (docs/threat-models.md#averaged-iterates).
 *
 * <pre>{@code
 * // given: PrivateMultiLayerNetwork net; SampledDataSetIterator train; DataSetIterator test
 * ParameterAverageListener averaging = new ParameterAverageListener(ParameterAverage.withWarmup(0.99, net.params()));
 * net.addListeners(PrivacyLedgerListener.forNetwork(net, train, 1e-5).build(), averaging);
 * net.fit(train, 20);
 * double accuracy = averaging.average().evaluate(net, () -> net.evaluate(test).accuracy());
 * }</pre>
 */
public final class ParameterAverageListener extends BaseTrainingListener {
  private final ParameterAverage average;

  public ParameterAverageListener(ParameterAverage average) {
    this.average = checkNotNull(average, "average");
  }

  /** The average, updated after every step of the network this listener is on. */
  public ParameterAverage average() {
    return average;
  }

  @Override
  public void iterationDone(Model model, int iteration, int epoch) {
    average.update(model.params());
  }
}
