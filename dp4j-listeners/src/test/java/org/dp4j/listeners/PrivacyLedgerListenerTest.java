package org.dp4j.listeners;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.util.ArrayList;
import java.util.List;
import org.deeplearning4j.nn.api.Model;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.layers.DenseLayer;
import org.deeplearning4j.nn.conf.layers.OutputLayer;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.deeplearning4j.optimize.api.BaseTrainingListener;
import org.deeplearning4j.optimize.listeners.CheckpointListener;
import org.dp4j.accounting.Orders;
import org.dp4j.accounting.RdpConversion;
import org.dp4j.accounting.SampledGaussianMechanism;
import org.dp4j.accounting.SgmCalibration;
import org.dp4j.accounting.ThreatModel;
import org.dp4j.accounting.ledger.CompositionStepAccountant;
import org.dp4j.accounting.ledger.LedgerRow;
import org.dp4j.accounting.ledger.PrivacyBudget;
import org.dp4j.accounting.ledger.PrivacyLedger;
import org.dp4j.noise.GaussianNoise;
import org.dp4j.training.DpSgdSetup;
import org.dp4j.training.DpSgdTrainer;
import org.dp4j.training.IndexedData;
import org.dp4j.training.PrivateMultiLayerNetwork;
import org.dp4j.training.SampledDataSetIterator;
import org.dp4j.training.TrainingResult;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.dataset.DataSet;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.learning.config.IUpdater;
import org.nd4j.linalg.learning.config.Nesterovs;
import org.nd4j.linalg.learning.config.Sgd;
import org.nd4j.linalg.lossfunctions.LossFunctions;

class PrivacyLedgerListenerTest {
  private static final SampledGaussianMechanism SGM = new SampledGaussianMechanism(0.2, 2.0);

  static NeuralNetConfiguration.ListBuilder layers(IUpdater updater) {
    return new NeuralNetConfiguration.Builder().seed(7).dataType(DataType.DOUBLE).updater(updater).list()
        .layer(new DenseLayer.Builder().nIn(4).nOut(8).activation(Activation.RELU).build())
        .layer(new OutputLayer.Builder(LossFunctions.LossFunction.MCXENT).nIn(8).nOut(3)
            .activation(Activation.SOFTMAX).build());
  }

  static DpSgdSetup setup(int n, int expectedBatch, double z) {
    return DpSgdSetup.builder().datasetSize(n).expectedBatchSize(expectedBatch).epochs(1).clipNorm(1.0)
        .noiseMultiplier(z).delta(1e-5).build();
  }

  /** A private network: C = 1, noise z, expected batch b, over n records. */
  static PrivateMultiLayerNetwork smallNet(int n, int expectedBatch, double z, IUpdater base) {
    return setup(n, expectedBatch, z).privateNetwork(layers(base).build());
  }

  /** q = 2/10 = 0.2, z = 2: the mechanism of {@link #SGM}. */
  static PrivateMultiLayerNetwork smallNet() {
    return smallNet(10, 2, 2.0, new Sgd(0.1));
  }

  static DataSet batch(int seed) {
    return records(seed, 10);
  }

  static DataSet records(int seed, int n) {
    Nd4j.getRandom().setSeed(seed);
    INDArray x = Nd4j.rand(DataType.DOUBLE, n, 4);
    INDArray y = Nd4j.zeros(DataType.DOUBLE, n, 3);
    for (int i = 0; i < n; i++) {
      y.putScalar(i, i % 3, 1.0);
    }
    return new DataSet(x, y);
  }

  /** Poisson batches with expected size b over n records (secure randomness). */
  static SampledDataSetIterator train(int n, int expectedBatch) {
    return SampledDataSetIterator.poisson(IndexedData.of(records(1, n)), expectedBatch);
  }

  /** Keeps the parameters after every applied update. */
  static final class ParameterRecorder extends BaseTrainingListener {
    final List<INDArray> snapshots = new ArrayList<>();

    @Override
    public void iterationDone(Model model, int iteration, int epoch) {
      snapshots.add(model.params().dup());
    }
  }

  private static PrivacyLedger ledger(double budget) {
    return PrivacyLedger.builder().accountant(new CompositionStepAccountant(SGM, Orders.DEFAULT)).delta(1e-5)
        .budget(new PrivacyBudget(budget, 1e-5, ThreatModel.ALL_ITERATES_RELEASED)).build();
  }

  static PrivacyLedger withHiddenState() {
    return PrivacyLedger.builder().accountant(new CompositionStepAccountant(SGM, Orders.DEFAULT))
        .accountant(new PrivacyLedgerTestSupport.ConstantHiddenState()).delta(1e-5).build();
  }

  /** A listener on a ledger with the test double, whose coverage the test asserts. */
  static PrivacyLedgerListener listener(PrivacyLedger ledger) {
    PrivacyLedgerListener l = new PrivacyLedgerListener(ledger);
    ledger.accountants().stream().filter(a -> a instanceof PrivacyLedgerTestSupport.ConstantHiddenState)
        .forEach(a -> l.assumeCovers(a, "test double"));
    return l;
  }

  @Test
  void fitStopsBeforeTheExceedingUpdateAndKeepsTheLastInBudgetParameters() {
    long allowed = SgmCalibration.maxSteps(2.0, 1e-5, 0.2, 2.0, Orders.DEFAULT, RdpConversion.IMPROVED).steps();
    assertThat(allowed).isBetween(2L, 40L);
    PrivateMultiLayerNetwork net = smallNet();
    ParameterRecorder recorder = new ParameterRecorder();
    PrivacyLedgerListener listener = new PrivacyLedgerListener(ledger(2.0));
    net.setListeners(listener, recorder);
    PrivacyBudgetExhaustedException stop = catchThrowableOfType(() -> net.fit(train(10, 2), 1000),
        PrivacyBudgetExhaustedException.class);
    assertThat(stop).isNotNull();
    assertThat(stop.steps()).isEqualTo(allowed);
    assertThat(recorder.snapshots).hasSize((int) allowed);
    assertThat(net.params()).isEqualTo(recorder.snapshots.get(recorder.snapshots.size() - 1));
    listener.closePartialEpoch();
    LedgerRow last = listener.ledger().rows().get(listener.ledger().rows().size() - 1);
    assertThat(last.steps()).isEqualTo(allowed);
    assertThat(last.composition().orElseThrow().epsilon()).isLessThanOrEqualTo(2.0);
  }

  @Test
  void derivedLedgerCountsWhatDpSgdTrainerCounts() {
    DpSgdSetup setup = DpSgdSetup.builder().datasetSize(10).expectedBatchSize(2).epochs(3).clipNorm(1.0)
        .noiseMultiplier(2.0).delta(1e-5).build();
    TrainingResult reference = setup.trainer(setup.privateNetwork(layers(new Sgd(0.1)).build()),
        IndexedData.of(records(1, 10))).build().train();
    PrivateMultiLayerNetwork net = setup.privateNetwork(layers(new Sgd(0.1)).build());
    SampledDataSetIterator train = train(10, 2);
    PrivacyLedgerListener listener = PrivacyLedgerListener.forNetwork(net, train, 1e-5).build();
    net.setListeners(listener);
    net.fit(train, 3);
    assertThat(listener.ledger().steps()).isEqualTo(reference.steps()).isEqualTo(15);
    assertThat(listener.epsilon(ThreatModel.ALL_ITERATES_RELEASED).orElseThrow())
        .isEqualTo(reference.epsilon(ThreatModel.ALL_ITERATES_RELEASED).orElseThrow());
    assertThat(listener.epsilonSpent()).startsWith("after 15 steps: all iterates released: ε = ")
        .contains("δ = 1.0E-5");
  }

  @Test
  void aShuffleOncePartitionGetsTheFixedPartitionAccountant() {
    PrivateMultiLayerNetwork net = smallNet(10, 2, 2.0, new Sgd(0.1));
    SampledDataSetIterator partition = SampledDataSetIterator.shuffleOnce(IndexedData.of(records(1, 10)), 2);
    PrivacyLedgerListener listener = PrivacyLedgerListener.forNetwork(net, partition, 1e-5).build();
    net.setListeners(listener);
    net.fit(partition, 2);
    assertThat(listener.ledger().steps()).isEqualTo(10);
    assertThat(listener.ledger().accountants().get(0).name())
        .isEqualTo(org.dp4j.accounting.ledger.FixedPartitionCompositionStepAccountant.NAME);
    // A DpSgd that divides by another batch size than the partition draws is refused.
    PrivateMultiLayerNetwork other = smallNet(10, 2, 2.0, new Sgd(0.1));
    SampledDataSetIterator fives = SampledDataSetIterator.shuffleOnce(IndexedData.of(records(1, 10)), 5);
    assertThatThrownBy(() -> PrivacyLedgerListener.forNetwork(other, fives, 1e-5).build())
        .hasMessageContaining("divides by an expected batch of 2.0 but the sampler's is 5.0");
  }

  @Test
  void aNetworkThatIsNotPrivateIsRefusedBeforeAnyStepIsCounted() {
    MultiLayerNetwork plain = new MultiLayerNetwork(layers(new Sgd(0.1)).build());
    plain.init();
    PrivacyLedger ledger = ledger(10);
    plain.setListeners(new PrivacyLedgerListener(ledger));
    INDArray before = plain.params().dup();
    assertThatThrownBy(() -> plain.fit(batch(1))).hasMessageContaining("takes non-private steps");
    assertThat(ledger.steps()).isZero();
    assertThat(plain.params()).isEqualTo(before);
  }

  @Test
  void aLedgerForAnotherMechanismIsRefused() {
    PrivateMultiLayerNetwork net = smallNet(10, 2, 0.5, new Sgd(0.1));   // runs z = 0.5, the ledger says z = 2
    PrivacyLedger ledger = ledger(10);
    net.setListeners(new PrivacyLedgerListener(ledger));
    INDArray before = net.params().dup();
    assertThatThrownBy(() -> net.fit(train(10, 2))).hasMessageContaining("noise multiplier z = 2.0")
        .hasMessageContaining("the run adds noise with z = 0.5");
    assertThat(net.params()).isEqualTo(before);
    // The sampling rate is checked too: same z, but the data have 20 records (q = 0.1).
    PrivateMultiLayerNetwork other = smallNet(20, 2, 2.0, new Sgd(0.1));
    other.setListeners(new PrivacyLedgerListener(ledger(10)));
    assertThatThrownBy(() -> other.fit(train(20, 2))).hasMessageContaining("uses q = 0.2")
        .hasMessageContaining("draws with q = 0.1");
  }

  @Test
  void aSecondLedgerOrATrainerOnTheSameNetworkIsRefused() {
    PrivateMultiLayerNetwork net = smallNet();
    net.setListeners(new PrivacyLedgerListener(ledger(10)), new PrivacyLedgerListener(ledger(10)));
    assertThatThrownBy(() -> net.fit(train(10, 2))).hasMessageContaining("already counted");
    PrivateMultiLayerNetwork sameLedger = smallNet();
    PrivacyLedger one = ledger(10);
    sameLedger.setListeners(new PrivacyLedgerListener(one), new PrivacyLedgerListener(one));
    assertThatThrownBy(() -> sameLedger.fit(train(10, 2))).hasMessageContaining("already counted");
    assertThat(one.steps()).isZero();

    DpSgdSetup setup = setup(10, 2, 2.0);
    PrivateMultiLayerNetwork both = smallNet();
    PrivacyLedger shared = setup.ledger();
    both.setListeners(new PrivacyLedgerListener(shared));
    DpSgdTrainer trainer = setup.trainer(both, IndexedData.of(records(1, 10))).ledger(shared).build();
    INDArray before = both.params().dup();
    assertThatThrownBy(trainer::train).hasMessageContaining("already counted");
    assertThat(both.params()).isEqualTo(before);   // refused before the first update
  }

  @Test
  void aNetworkThatAlreadyTookStepsNeedsItsRestoredLedger() {
    PrivateMultiLayerNetwork net = smallNet();
    net.fit(train(10, 2));
    PrivateMultiLayerNetwork resumed = PrivateMultiLayerNetwork.resume(net);
    resumed.setListeners(new PrivacyLedgerListener(ledger(10)));
    assertThatThrownBy(() -> resumed.fit(train(10, 2))).hasMessageContaining("already taken 5 steps")
        .hasMessageContaining("LedgerCheckpoint");
  }

  @Test
  void insecureNoiseVoidsEveryGuarantee() {
    PrivateMultiLayerNetwork net = smallNet().insecureNoise(GaussianNoise.insecureFixedSeed(3));
    PrivacyLedgerListener listener = listener(withHiddenState());
    net.setListeners(listener);
    net.fit(train(10, 2));
    assertThat(listener.guaranteesVoidBecause()).hasValueSatisfying(r -> assertThat(r).contains("not "
        + "cryptographically secure"));
    assertThat(listener.epsilon(ThreatModel.ALL_ITERATES_RELEASED)).isEmpty();
    assertThat(listener.epsilon(ThreatModel.LAST_ITERATE_ONLY)).isEmpty();
    assertThat(listener.epsilonSpent()).contains("NO privacy guarantee");
    assertThat(listener.ledger().hiddenStateVoidedBecause()).isPresent();
    // The ledger and every report made from it say so too.
    assertThat(listener.ledger().guaranteesVoidedBecause()).isEqualTo(listener.guaranteesVoidBecause());
    java.util.Map<String, Object> report = LedgerReport.toMap(listener.ledger());
    assertThat(report.get("certified")).isEqualTo(false);
    assertThat(report.get("epsilon")).isNull();
    assertThat((String) report.get("notCertifiedBecause")).startsWith("NO privacy guarantee");
    String summary = LedgerReport.summary(listener.ledger());
    assertThat(summary).startsWith("NO privacy guarantee").contains("VOID, not a guarantee of this run: all iterates");
    assertThat(summary.lines().filter(l -> l.contains("ε =")).allMatch(l -> l.contains("VOID"))).isTrue();
  }

  @Test
  void parallelWrapperWorkersAreRefusedWithOneMessage() {
    // ParallelWrapper trains plain replicas built from the configuration (DpSgd updater, no private fit).
    MultiLayerNetwork replica = new MultiLayerNetwork(smallNet().getLayerWiseConfigurations().clone());
    replica.init();
    replica.setListeners(new PrivacyLedgerListener(ledger(10)));
    assertThatThrownBy(() -> org.deeplearning4j.parallelism.WorkerStandIn.run(() -> replica.fit(batch(1))))
        .isInstanceOf(UnsupportedOperationException.class).hasMessageStartingWith("ParallelWrapper is not supported");
    MultiLayerNetwork bare = new MultiLayerNetwork(smallNet().getLayerWiseConfigurations().clone());
    bare.init();
    assertThatThrownBy(() -> org.deeplearning4j.parallelism.WorkerStandIn.run(() -> bare.fit(batch(1))))
        .isInstanceOf(UnsupportedOperationException.class).hasMessageStartingWith("ParallelWrapper is not supported");
  }

  @Test
  void anAccountantThatDoesNotCoverTheRunIsRefusedUnlessAsserted() {
    // Every accountant now checks its own coverage (StepAccountant.requireCovers); assumeCovers skips that check.
    PrivateMultiLayerNetwork net = smallNet(10, 2, 0.5, new Sgd(0.1));   // the ledger's accountant says z = 2
    PrivacyLedger ledger = ledger(10);
    net.setListeners(new PrivacyLedgerListener(ledger));
    assertThatThrownBy(() -> net.fit(train(10, 2))).hasMessageContaining("z = 0.5");
    assertThat(ledger.steps()).isZero();
    PrivateMultiLayerNetwork vouched = smallNet(10, 2, 0.5, new Sgd(0.1));
    PrivacyLedger asserted = ledger(10);
    PrivacyLedgerListener listener = new PrivacyLedgerListener(asserted);
    asserted.accountants().forEach(a -> listener.assumeCovers(a, "test: the caller vouches for it"));
    vouched.setListeners(listener);
    vouched.fit(train(10, 2));
    assertThat(asserted.steps()).isEqualTo(vouched.getIterationCount()).isPositive();
  }

  @Test
  void checkpointListenerVoidsHiddenStateAndIsNamed(@TempDir java.io.File dir) {
    PrivateMultiLayerNetwork net = smallNet();
    PrivacyLedger ledger = withHiddenState();
    net.setListeners(listener(ledger), new CheckpointListener.Builder(dir).saveEveryNEpochs(1)
        .build());
    net.fit(train(10, 2));
    assertThat(ledger.hiddenStateVoidedBecause()).hasValueSatisfying(r -> assertThat(r).contains("CheckpointListener"));
    assertThat(ledger.rows().get(0).hiddenState()).isEmpty();
    assertThat(ledger.rows().get(0).steps()).isEqualTo(5);
  }

  @Test
  void momentumVoidsHiddenStateBounds() {
    PrivateMultiLayerNetwork net = smallNet(10, 2, 2.0, new Nesterovs(0.1, 0.9));
    PrivacyLedger ledger = withHiddenState();
    net.setListeners(listener(ledger));
    net.fit(train(10, 2));
    assertThat(ledger.hiddenStateVoidedBecause()).hasValueSatisfying(r -> assertThat(r).contains("Nesterovs"));
    assertThat(ledger.rows().get(0).hiddenState()).isEmpty();
    assertThat(ledger.rows().get(0).composition()).isPresent();
  }

  @Test
  void epochRowsArePublishedWithoutLeakingListeners() {
    PrivateMultiLayerNetwork net = smallNet();
    PrivacyLedger ledger = withHiddenState();
    List<LedgerRow> seen = new ArrayList<>();
    net.setListeners(listener(ledger).onEpoch(seen::add));
    net.fit(train(10, 2), 2);
    assertThat(seen).extracting(LedgerRow::epoch).containsExactly(1, 2);
    assertThat(seen).extracting(LedgerRow::steps).containsExactly(5L, 10L);
    assertThat(seen.get(1).hiddenState()).isPresent();
    assertThat(ledger.hiddenStateVoidedBecause()).isEmpty();
  }
}
