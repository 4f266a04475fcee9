package org.dp4j.listeners;

import static com.google.common.base.Preconditions.checkNotNull;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.deeplearning4j.nn.api.Model;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.deeplearning4j.optimize.api.BaseTrainingListener;
import org.dp4j.accounting.PrivacyGuarantee;
import org.dp4j.accounting.ledger.LedgerRow;
import org.dp4j.accounting.ledger.PrivacyLedger;
import org.dp4j.training.PlainSgdCheck;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A DL4J {@code TrainingListener} that keeps a {@link PrivacyLedger}: one accounted step per private
 * update, one ledger row per epoch, and a hard stop before the update that would exceed the budget.
 *
 * <pre>{@code
 * PrivacyLedger ledger = PrivacyLedger.builder()
 *     .accountant(new CompositionStepAccountant(new SampledGaussianMechanism(q, z), Orders.DEFAULT))
 *     .delta(1e-5).budget(new PrivacyBudget(3, 1e-5, ThreatModel.ALL_ITERATES_RELEASED)).build();
 * net.addListeners(new PrivacyLedgerListener(ledger).onEpoch(row -> System.out.println(row)));
 * try {
 *   for (int e = 0; e < epochs; e++) net.fit(trainIterator);
 * } catch (PrivacyBudgetExhaustedException stop) {
 *   // the network holds the last in-budget parameters
 * }
 * }</pre>
 *
 * <p>The step is accounted in {@code onGradientCalculation}, which DL4J calls after the backward pass
 * and before the updater changes the parameters; throwing there leaves the parameters untouched. The
 * listener also inspects the network once per epoch and voids hidden-state bounds when another
 * listener releases intermediate parameters or training metrics ({@link HiddenStateLeakDetector}) or
 * when the updater is not plain constant-step SGD ({@link PlainSgdCheck}).
 */
public final class PrivacyLedgerListener extends BaseTrainingListener {
  private static final Logger LOG = LoggerFactory.getLogger(PrivacyLedgerListener.class);

  private final PrivacyLedger ledger;
  private final List<Consumer<LedgerRow>> epochConsumers = new ArrayList<>();
  private int epoch;
  private boolean warnedUnknown;

  public PrivacyLedgerListener(PrivacyLedger ledger) {
    this.ledger = checkNotNull(ledger, "ledger");
    this.epoch = ledger.rows().isEmpty() ? 0 : ledger.rows().get(ledger.rows().size() - 1).epoch();
  }

  /** Called with each epoch's row as soon as the epoch ends (e.g. to print or write it). */
  public PrivacyLedgerListener onEpoch(Consumer<LedgerRow> consumer) {
    epochConsumers.add(checkNotNull(consumer, "consumer"));
    return this;
  }

  public PrivacyLedger ledger() {
    return ledger;
  }

  @Override
  public void onEpochStart(Model model) {
    inspectListeners(model);
  }

  @Override
  public void onGradientCalculation(Model model) {
    if (!ledger.tryStep()) {
      PrivacyGuarantee next = ledger.best(ledger.budget().orElseThrow().threatModel(), 1).orElseThrow();
      throw new PrivacyBudgetExhaustedException(ledger.budget().orElseThrow(), ledger.steps(), next.epsilon());
    }
  }

  @Override
  public void onEpochEnd(Model model) {
    inspectListeners(model);
    LedgerRow row = ledger.closeEpoch(++epoch);
    epochConsumers.forEach(c -> c.accept(row));
  }

  /** Closes a partial epoch (e.g. after a budget stop) if it accounted any step. */
  public void closePartialEpoch() {
    if (ledger.stepsSinceLastRow() > 0) {
      LedgerRow row = ledger.closeEpoch(++epoch);
      epochConsumers.forEach(c -> c.accept(row));
    }
  }

  private void inspectListeners(Model model) {
    if (!(model instanceof MultiLayerNetwork net)) {
      return;
    }
    PlainSgdCheck.whyNotPlainSgd(net).ifPresent(ledger::voidHiddenState);
    HiddenStateLeakDetector.Findings f = HiddenStateLeakDetector.inspect(net.getListeners());
    if (f.voidsHiddenState()) {
      ledger.voidHiddenState("listener(s) " + String.join(", ", f.leaking())
          + " release intermediate parameters or training metrics");
    }
    if (!f.unknown().isEmpty() && !warnedUnknown) {
      warnedUnknown = true;
      LOG.warn("dp4j cannot tell whether these listeners release intermediate parameters; hidden-state bounds "
          + "assume they do not: {}", f.unknown());
    }
  }

  @Override
  public void onForwardPass(Model model, Map<String, INDArray> activations) {}
}
