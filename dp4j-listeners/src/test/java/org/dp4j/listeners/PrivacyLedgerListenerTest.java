package org.dp4j.listeners;

import static org.assertj.core.api.Assertions.assertThat;
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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.dataset.DataSet;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.learning.config.Sgd;
import org.nd4j.linalg.lossfunctions.LossFunctions;

class PrivacyLedgerListenerTest {
  private static final SampledGaussianMechanism SGM = new SampledGaussianMechanism(0.2, 2.0);

  static MultiLayerNetwork smallNet() {
    MultiLayerNetwork net = new MultiLayerNetwork(new NeuralNetConfiguration.Builder().seed(7)
        .dataType(DataType.DOUBLE).updater(new Sgd(0.1)).list()
        .layer(new DenseLayer.Builder().nIn(4).nOut(8).activation(Activation.RELU).build())
        .layer(new OutputLayer.Builder(LossFunctions.LossFunction.MCXENT).nIn(8).nOut(3)
            .activation(Activation.SOFTMAX).build())
        .build());
    net.init();
    return net;
  }

  static DataSet batch(int seed) {
    Nd4j.getRandom().setSeed(seed);
    INDArray x = Nd4j.rand(DataType.DOUBLE, 10, 4);
    INDArray y = Nd4j.zeros(DataType.DOUBLE, 10, 3);
    for (int i = 0; i < 10; i++) {
      y.putScalar(i, i % 3, 1.0);
    }
    return new DataSet(x, y);
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

  @Test
  void fitStopsBeforeTheExceedingUpdateAndKeepsTheLastInBudgetParameters() {
    long allowed = SgmCalibration.maxSteps(2.0, 1e-5, 0.2, 2.0, Orders.DEFAULT, RdpConversion.IMPROVED).steps();
    assertThat(allowed).isBetween(2L, 40L);
    MultiLayerNetwork net = smallNet();
    ParameterRecorder recorder = new ParameterRecorder();
    PrivacyLedgerListener listener = new PrivacyLedgerListener(ledger(2.0));
    net.setListeners(listener, recorder);
    PrivacyBudgetExhaustedException stop = catchThrowableOfType(() -> {
      for (int i = 0; i < 1000; i++) {
        net.fit(batch(i));
      }
    }, PrivacyBudgetExhaustedException.class);
    assertThat(stop).isNotNull();
    assertThat(stop.steps()).isEqualTo(allowed);
    assertThat(recorder.snapshots).hasSize((int) allowed);
    assertThat(net.params()).isEqualTo(recorder.snapshots.get(recorder.snapshots.size() - 1));
    listener.closePartialEpoch();
    LedgerRow last = listener.ledger().rows().get(0);
    assertThat(last.steps()).isEqualTo(allowed);
    assertThat(last.composition().orElseThrow().epsilon()).isLessThanOrEqualTo(2.0);
  }

  @Test
  void checkpointListenerVoidsHiddenStateAndIsNamed(@TempDir java.io.File dir) {
    MultiLayerNetwork net = smallNet();
    PrivacyLedger ledger = PrivacyLedger.builder().accountant(new CompositionStepAccountant(SGM, Orders.DEFAULT))
        .accountant(new PrivacyLedgerTestSupport.ConstantHiddenState()).delta(1e-5).build();
    PrivacyLedgerListener listener = new PrivacyLedgerListener(ledger);
    net.setListeners(listener, new CheckpointListener.Builder(dir).saveEveryNEpochs(1).build());
    net.fit(new org.deeplearning4j.datasets.iterator.utilty.ListDataSetIterator<>(List.of(batch(1), batch(2)), 1));
    assertThat(ledger.hiddenStateVoidedBecause()).hasValueSatisfying(r -> assertThat(r).contains("CheckpointListener"));
    assertThat(ledger.rows().get(0).hiddenState()).isEmpty();
    assertThat(ledger.rows().get(0).steps()).isEqualTo(2);
  }

  @Test
  void momentumVoidsHiddenStateBounds() {
    MultiLayerNetwork net = new MultiLayerNetwork(new NeuralNetConfiguration.Builder().seed(7)
        .dataType(DataType.DOUBLE).updater(new org.nd4j.linalg.learning.config.Nesterovs(0.1, 0.9)).list()
        .layer(new OutputLayer.Builder(LossFunctions.LossFunction.MCXENT).nIn(4).nOut(3)
            .activation(Activation.SOFTMAX).build())
        .build());
    net.init();
    PrivacyLedger ledger = PrivacyLedger.builder().accountant(new CompositionStepAccountant(SGM, Orders.DEFAULT))
        .accountant(new PrivacyLedgerTestSupport.ConstantHiddenState()).delta(1e-5).build();
    net.setListeners(new PrivacyLedgerListener(ledger));
    net.fit(new org.deeplearning4j.datasets.iterator.utilty.ListDataSetIterator<>(List.of(batch(1)), 1));
    assertThat(ledger.hiddenStateVoidedBecause()).hasValueSatisfying(r -> assertThat(r).contains("Nesterovs"));
    assertThat(ledger.rows().get(0).hiddenState()).isEmpty();
    assertThat(ledger.rows().get(0).composition()).isPresent();
  }

  @Test
  void epochRowsArePublishedWithoutLeakingListeners() {
    MultiLayerNetwork net = smallNet();
    PrivacyLedger ledger = PrivacyLedger.builder().accountant(new CompositionStepAccountant(SGM, Orders.DEFAULT))
        .accountant(new PrivacyLedgerTestSupport.ConstantHiddenState()).delta(1e-5).build();
    List<LedgerRow> seen = new ArrayList<>();
    net.setListeners(new PrivacyLedgerListener(ledger).onEpoch(seen::add));
    for (int e = 0; e < 2; e++) {
      net.fit(new org.deeplearning4j.datasets.iterator.utilty.ListDataSetIterator<>(
          List.of(batch(1), batch(2), batch(3)), 1));
    }
    assertThat(seen).extracting(LedgerRow::epoch).containsExactly(1, 2);
    assertThat(seen).extracting(LedgerRow::steps).containsExactly(3L, 6L);
    assertThat(seen.get(1).hiddenState()).isPresent();
    assertThat(ledger.hiddenStateVoidedBecause()).isEmpty();
  }
}
