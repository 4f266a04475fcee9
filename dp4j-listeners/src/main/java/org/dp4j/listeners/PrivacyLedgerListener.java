package org.dp4j.listeners;

import static com.google.common.base.Preconditions.checkNotNull;
import static org.dp4j.InvalidSettingException.checkArgument;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.function.Consumer;
import org.deeplearning4j.nn.api.Model;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.deeplearning4j.optimize.api.BaseTrainingListener;
import org.dp4j.accounting.Orders;
import org.dp4j.accounting.PrivacyGuarantee;
import org.dp4j.accounting.ThreatModel;
import org.dp4j.accounting.ledger.CompositionAccounting;
import org.dp4j.accounting.ledger.FixedPartitionCompositionStepAccountant;
import org.dp4j.accounting.ledger.LedgerRow;
import org.dp4j.accounting.ledger.PrivacyBudget;
import org.dp4j.accounting.ledger.PrivacyLedger;
import org.dp4j.accounting.ledger.StepAccountant;
import org.dp4j.sampling.SamplingPlan;
import org.dp4j.sampling.SamplingScheme;
import org.dp4j.training.AccountantCoverage;
import org.dp4j.training.EpsilonSpent;
import org.dp4j.training.PlainSgdCheck;
import org.dp4j.training.PrivateMultiLayerNetwork;
import org.dp4j.training.PrivateTraining;
import org.dp4j.training.SampledDataSetIterator;
import org.dp4j.training.SampledMultiDataSetIterator;
import org.dp4j.updater.DpSgd;
import org.dp4j.updater.ParallelWrapperRefusal;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A DL4J {@code TrainingListener} that keeps the {@link PrivacyLedger} of a {@link PrivateMultiLayerNetwork} (or a
 * {@link org.dp4j.training.PrivateComputationGraph}) trained with DL4J's own {@code fit}: one accounted step per
 * private update, one ledger row per epoch, and a hard stop
 * before the update that would exceed the budget.
 *
 * <pre>{@code
 * // given: PrivateMultiLayerNetwork net; org.nd4j.linalg.dataset.DataSet trainSet
 * SampledDataSetIterator train = SampledDataSetIterator.poisson(IndexedData.of(trainSet), 256);
 * PrivacyLedgerListener privacy = PrivacyLedgerListener.forNetwork(net, train.plan(), 1e-5)
 *     .budget(3.0, ThreatModel.ALL_ITERATES_RELEASED).build()
 *     .onEpoch(row -> System.out.println(row.composition().orElseThrow().summary()));
 * net.addListeners(privacy);
 * try {
 *   net.fit(train, 20);
 * } catch (PrivacyBudgetExhaustedException stop) {
 *   privacy.closePartialEpoch();    // the network holds the last in-budget parameters
 * }
 * System.out.println(privacy.epsilonSpent());
 * }</pre>
 *
 * <p>Honesty: the mechanism is read from the network, never taken on trust. Before the first step the listener
 * refuses a network that is not a {@link PrivateTraining} network (a plain {@code MultiLayerNetwork} takes
 * non-private steps, whatever its updater; {@code DpSgdTrainer} keeps its own ledger), a ledger whose accountant
 * does not cover the network's {@link DpSgd} (z, C, expected batch) with the sampler's plan (q, n, scheme), a second
 * ledger on the same network, and a network that has already taken steps unless the ledger was restored with it
 * ({@link LedgerCheckpoint}). {@code ParallelWrapper} is refused (its per-worker averaging is another mechanism). A
 * noise source that is not cryptographically secure makes every guarantee void: {@link #guaranteesVoidBecause()},
 * {@link #epsilon} is empty and {@link #epsilonSpent()} says so.
 *
 * <p>The step is accounted in {@code onGradientCalculation}, which DL4J calls after the private gradient is
 * computed and before the updater changes the parameters; throwing there leaves the parameters untouched. Once per
 * epoch the listener voids hidden-state bounds when another listener releases intermediate parameters or training
 * metrics ({@link HiddenStateLeakDetector}) or when the updater is not plain constant-step SGD
 * ({@link PlainSgdCheck}).
 */
public final class PrivacyLedgerListener extends BaseTrainingListener {
  private static final Logger LOG = LoggerFactory.getLogger(PrivacyLedgerListener.class);

  private final PrivacyLedger ledger;
  private final List<Consumer<LedgerRow>> epochConsumers = new ArrayList<>();
  private int epoch;
  private boolean warnedUnknown;
  private PrivateTraining network;
  private boolean coverageChecked;
  private String voidBecause;
  private final java.util.Set<StepAccountant> asserted =
      java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());

  public PrivacyLedgerListener(PrivacyLedger ledger) {
    this.ledger = checkNotNull(ledger, "ledger");
    this.epoch = ledger.rows().isEmpty() ? 0 : ledger.rows().get(ledger.rows().size() - 1).epoch();
  }

  /**
   * A listener whose ledger is derived from the network's {@link DpSgd} and the sampler's plan: the sampled-Gaussian
   * composition accountant for Poisson sampling, the fixed-partition one for a shuffle-once partition.
   */
  public static Builder forNetwork(PrivateTraining net, SamplingPlan plan, double delta) {
    return new Builder(net, plan, delta);
  }

  /** As {@link #forNetwork(PrivateTraining, SamplingPlan, double)} with the iterator's plan. */
  public static Builder forNetwork(PrivateTraining net, SampledDataSetIterator iterator, double delta) {
    return forNetwork(net, iterator.plan(), delta);
  }

  /** As {@link #forNetwork(PrivateTraining, SamplingPlan, double)} with the multi-input iterator's plan. */
  public static Builder forNetwork(PrivateTraining net, SampledMultiDataSetIterator iterator, double delta) {
    return forNetwork(net, iterator.plan(), delta);
  }

  /**
   * Accepts an accountant of the ledger whose coverage of this run dp4j cannot check (a custom accountant, a
   * hidden-state bound whose constants are asserted): the run's guarantee then rests on {@code why}, which is
   * logged. Every other accountant is checked against the network's mechanism before the first step.
   */
  public PrivacyLedgerListener assumeCovers(StepAccountant accountant, String why) {
    checkArgument(ledger.accountants().contains(accountant), "%s is not an accountant of this ledger",
        accountant.name());
    checkArgument(why != null && !why.isBlank(), "say why %s covers this run", accountant.name());
    LOG.warn("coverage of accountant {} is asserted by the user, not checked: {}", accountant.name(), why);
    asserted.add(accountant);
    return this;
  }

  /** Called with each epoch's row as soon as the epoch ends (e.g. to print or write it). */
  public PrivacyLedgerListener onEpoch(Consumer<LedgerRow> consumer) {
    epochConsumers.add(checkNotNull(consumer, "consumer"));
    return this;
  }

  public PrivacyLedger ledger() {
    return ledger;
  }

  /** Why no guarantee holds for this run (noise not secure); empty while they hold. */
  public Optional<String> guaranteesVoidBecause() {
    return Optional.ofNullable(voidBecause);
  }

  /** ε spent so far under the threat model at the ledger's δ; empty if void or no accountant covers it. */
  public OptionalDouble epsilon(ThreatModel threatModel) {
    return EpsilonSpent.epsilon(ledger, threatModel, guaranteesVoidBecause());
  }

  /** One line: ε spent so far per threat model, with δ, neighbours and accountant (like Opacus' get_epsilon). */
  public String epsilonSpent() {
    return EpsilonSpent.describe(ledger, guaranteesVoidBecause());
  }

  @Override
  public void onEpochStart(Model model) {
    attach(model);
    inspectListeners(model);
  }

  @Override
  public void onGradientCalculation(Model model) {
    attach(model);
    if (!coverageChecked) {
      requireCovers(network);
      coverageChecked = true;
    }
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

  /** The checks that need only the network, run once at its first event. */
  private void attach(Model model) {
    if (network == model) {
      return;
    }
    ParallelWrapperRefusal.refuseIfInside();
    if (!(model instanceof PrivateTraining net)) {
      throw new IllegalStateException(String.format("PrivacyLedgerListener accounts the steps of a private network "
          + "(PrivateMultiLayerNetwork or PrivateComputationGraph, built by DpSgdSetup.privateNetwork or "
          + "privateGraph); this %s takes non-private steps and would be reported with an epsilon it does not have. "
          + "DpSgdTrainer keeps its own ledger (use its onEpoch "
          + "callback instead of this listener)", model.getClass().getSimpleName()));
    }
    checkArgument(network == null, "this listener already accounts another network");
    net.claimAccounting(this);   // one listener per network: two (even on one ledger) would count each step twice
    if (net.iterationCount() != ledger.steps()) {
      throw new IllegalStateException(String.format("the network has already taken %s steps but the ledger has "
          + "accounted %s: the privacy spent so far would be missing. Restore the ledger saved with the network "
          + "(LedgerCheckpoint.restore) to continue training it", net.iterationCount(), ledger.steps()));
    }
    if (!net.secureNoise()) {
      voidBecause = "the network's noise source is not cryptographically secure (insecureNoise): whoever knows its "
          + "seed can remove the noise";
      ledger.voidGuarantees(voidBecause);
      LOG.warn("NO privacy guarantee for this run: {}", voidBecause);
    }
    network = net;
  }

  /** Each accountant must account the network's DpSgd under the sampler's plan (known from the first batch). */
  private void requireCovers(PrivateTraining net) {
    SamplingPlan plan = net.samplingPlan().orElseThrow(() -> new IllegalStateException(
        "the network has not been given sampled batches (SampledDataSetIterator or SampledMultiDataSetIterator)"));
    DpSgd dp = net.dpSgd();
    for (StepAccountant a : ledger.accountants()) {
      if (!asserted.contains(a)) {
        AccountantCoverage.requireCovers(a, dp, plan);
      }
    }
  }

  private void inspectListeners(Model model) {
    java.util.Collection<org.deeplearning4j.optimize.api.TrainingListener> listeners;
    if (model instanceof MultiLayerNetwork net) {
      PlainSgdCheck.whyNotPlainSgd(net).ifPresent(ledger::voidHiddenState);
      listeners = net.getListeners();
    } else if (model instanceof ComputationGraph graph && model instanceof PrivateTraining privateGraph) {
      PlainSgdCheck.whyNotPlainSgd(privateGraph.dpSgd()).ifPresent(ledger::voidHiddenState);
      listeners = graph.getListeners();
    } else {
      return;
    }
    HiddenStateLeakDetector.Findings f = HiddenStateLeakDetector.inspect(listeners);
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

  /** Builds the listener's ledger from the network's mechanism and the sampler's plan. */
  public static final class Builder {
    private final PrivateTraining net;
    private final SamplingPlan plan;
    private final double delta;
    private PrivacyBudget budget;
    private Orders orders = Orders.DEFAULT;
    private CompositionAccounting accounting = CompositionAccounting.PLD;

    private Builder(PrivateTraining net, SamplingPlan plan, double delta) {
      this.net = checkNotNull(net, "net");
      this.plan = checkNotNull(plan, "plan");
      checkArgument(delta > 0 && delta < 1, "delta must be in (0, 1), was %s", delta);
      this.delta = delta;
    }

    /** Stops training before the update that would take ε above {@code epsilon} at this δ. */
    public Builder budget(double epsilon, ThreatModel threatModel) {
      this.budget = new PrivacyBudget(epsilon, delta, threatModel);
      return this;
    }

    public Builder orders(Orders orders) {
      this.orders = checkNotNull(orders, "orders");
      return this;
    }

    /**
     * For Poisson sampling: the composition bound that calibrates nothing here but stops at the budget and is
     * reported first ({@link CompositionAccounting#PLD} by default, with the RDP bound beside it).
     */
    public Builder accounting(CompositionAccounting accounting) {
      this.accounting = checkNotNull(accounting, "accounting");
      return this;
    }

    public PrivacyLedgerListener build() {
      DpSgd dp = net.dpSgd();
      List<StepAccountant> accountants = plan.scheme() == SamplingScheme.POISSON
          ? accounting.ledgerAccountants(dp.mechanism(plan.datasetSize()), orders)
          : List.of(new FixedPartitionCompositionStepAccountant(plan.usableRecords(), plan.fixedBatchSize(),
              dp.noiseMultiplier(), orders));
      PrivacyLedger.Builder b = PrivacyLedger.builder().delta(delta);
      accountants.forEach(b::accountant);
      if (budget != null) {
        b.budget(budget);
      }
      PrivacyLedger ledger = b.build();
      // e.g. a DpSgd whose expected batch differs from the sampler's
      accountants.forEach(a -> AccountantCoverage.requireCovers(a, dp, plan));
      return new PrivacyLedgerListener(ledger);
    }
  }
}
