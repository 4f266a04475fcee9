package org.dp4j.listeners;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.deeplearning4j.nn.conf.ComputationGraphConfiguration;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.graph.MergeVertex;
import org.deeplearning4j.nn.conf.layers.DenseLayer;
import org.deeplearning4j.nn.conf.layers.OutputLayer;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.dp4j.accounting.ThreatModel;
import org.dp4j.accounting.ledger.PrivacyLedger;
import org.dp4j.training.DpSgdSetup;
import org.dp4j.training.IndexedData;
import org.dp4j.training.PrivateComputationGraph;
import org.dp4j.training.SampledDataSetIterator;
import org.dp4j.training.TrainingResult;
import org.junit.jupiter.api.Test;
import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.learning.config.Nesterovs;
import org.nd4j.linalg.learning.config.Sgd;
import org.nd4j.linalg.lossfunctions.LossFunctions;

/** {@link PrivacyLedgerListener} on a {@link PrivateComputationGraph}: same ledger as for a network. */
class PrivacyLedgerListenerGraphTest {
  /** in → (a ‖ b) → merge → out. */
  static ComputationGraphConfiguration graph(org.nd4j.linalg.learning.config.IUpdater updater) {
    return new NeuralNetConfiguration.Builder().seed(7).dataType(DataType.DOUBLE).updater(updater).graphBuilder()
        .addInputs("in")
        .addLayer("a", new DenseLayer.Builder().nIn(4).nOut(5).activation(Activation.RELU).build(), "in")
        .addLayer("b", new DenseLayer.Builder().nIn(4).nOut(3).activation(Activation.TANH).build(), "in")
        .addVertex("merge", new MergeVertex(), "a", "b")
        .addLayer("out", new OutputLayer.Builder(LossFunctions.LossFunction.MCXENT).nIn(8).nOut(3)
            .activation(Activation.SOFTMAX).build(), "merge")
        .setOutputs("out").build();
  }

  static DpSgdSetup setup() {
    return DpSgdSetup.builder().datasetSize(10).expectedBatchSize(2).epochs(3).clipNorm(1.0).noiseMultiplier(2.0)
        .delta(1e-5).build();
  }

  @Test
  void graphLedgerCountsWhatDpSgdTrainerCountsForTheSameMechanism() {
    DpSgdSetup setup = setup();
    TrainingResult reference = setup.trainer(setup.privateNetwork(PrivacyLedgerListenerTest.layers(new Sgd(0.1))
        .build()), IndexedData.of(PrivacyLedgerListenerTest.records(1, 10))).build().train();
    PrivateComputationGraph graph = setup.privateGraph(graph(new Sgd(0.1)));
    SampledDataSetIterator train = PrivacyLedgerListenerTest.train(10, 2);
    PrivacyLedgerListener listener = PrivacyLedgerListener.forNetwork(graph, train, 1e-5).build();
    graph.setListeners(listener);
    graph.fit(train, 3);
    assertThat(graph.getIterationCount()).isEqualTo(15);
    assertThat(listener.ledger().steps()).isEqualTo(reference.steps()).isEqualTo(15);
    assertThat(listener.epsilon(ThreatModel.ALL_ITERATES_RELEASED).orElseThrow())
        .isEqualTo(reference.epsilon(ThreatModel.ALL_ITERATES_RELEASED).orElseThrow());
    assertThat(listener.ledger().rows()).hasSize(3);
  }

  @Test
  void aGraphThatIsNotPrivateIsRefusedBeforeAnyStepIsCounted() {
    ComputationGraph plain = new ComputationGraph(graph(new Sgd(0.1)));
    plain.init();
    PrivacyLedgerListener listener = PrivacyLedgerListener.forNetwork(setup().privateGraph(graph(new Sgd(0.1))),
        PrivacyLedgerListenerTest.train(10, 2), 1e-5).build();
    plain.setListeners(listener);
    INDArray before = plain.params().dup();
    assertThatThrownBy(() -> plain.fit(PrivacyLedgerListenerTest.batch(1))).hasMessageContaining(
        "takes non-private steps");
    assertThat(listener.ledger().steps()).isZero();
    assertThat(plain.params()).isEqualTo(before);
  }

  @Test
  void momentumOnAGraphVoidsHiddenStateBoundsAndASecondLedgerIsRefused() {
    PrivateComputationGraph graph = setup().privateGraph(graph(new Nesterovs(0.1, 0.9)));
    SampledDataSetIterator train = PrivacyLedgerListenerTest.train(10, 2);
    PrivacyLedger ledger = PrivacyLedgerListenerTest.withHiddenState();
    PrivacyLedgerListener listener = PrivacyLedgerListenerTest.listener(ledger);
    PrivacyLedgerListener second = PrivacyLedgerListener.forNetwork(graph, train, 1e-5).build();
    graph.setListeners(listener);
    graph.fit(train, 1);
    assertThat(ledger.steps()).isEqualTo(graph.getIterationCount()).isPositive();
    assertThat(ledger.hiddenStateVoidedBecause()).hasValueSatisfying(r -> assertThat(r).contains("Nesterovs"));
    graph.setListeners(listener, second);
    assertThatThrownBy(() -> graph.fit(train, 1)).hasMessageContaining("already counted");
  }
}
