package org.dp4j.listeners;

import static org.assertj.core.api.Assertions.assertThat;

import org.deeplearning4j.nn.conf.MultiLayerConfiguration;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.layers.DenseLayer;
import org.deeplearning4j.nn.conf.layers.OutputLayer;
import org.deeplearning4j.optimize.listeners.ScoreIterationListener;
import org.dp4j.accounting.Orders;
import org.dp4j.accounting.ledger.PldStepAccountant;
import org.dp4j.accounting.RdpConversion;
import org.dp4j.accounting.SampledGaussianAccountant;
import org.dp4j.accounting.SampledGaussianMechanism;
import org.dp4j.accounting.SgmCalibration;
import org.dp4j.accounting.ThreatModel;
import org.dp4j.training.IndexedData;
import org.dp4j.training.PrivateMultiLayerNetwork;
import org.dp4j.training.SampledDataSetIterator;
import org.dp4j.updater.DpSgd;
import org.junit.jupiter.api.Test;
import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.dataset.DataSet;
import org.nd4j.linalg.learning.config.Sgd;
import org.nd4j.linalg.lossfunctions.LossFunctions.LossFunction;

/** The README's first Java example (NOTES-fit.md), on 1,000 records of 4 features instead of MNIST. */
class PrivateFitReadmeExampleTest {
  @Test
  void theDl4jIdiomTrainsPrivatelyAndReportsItsEpsilon() {
    DataSet trainSet = PrivacyLedgerListenerTest.records(3, 1000);
    int epochs = 3;
    // --- README example ---
    MultiLayerConfiguration conf = new NeuralNetConfiguration.Builder()
        .updater(DpSgd.builder().clipNorm(1.0).noiseMultiplier(1.1).expectedBatchSize(100)
            .baseUpdater(new Sgd(0.1)).build())
        .list()
        .layer(new DenseLayer.Builder().nIn(4).nOut(16).activation(Activation.RELU).build())
        .layer(new OutputLayer.Builder(LossFunction.MCXENT).nIn(16).nOut(3).activation(Activation.SOFTMAX).build())
        .build();
    PrivateMultiLayerNetwork net = new PrivateMultiLayerNetwork(conf);
    net.init();
    SampledDataSetIterator train = SampledDataSetIterator.poisson(IndexedData.of(trainSet), 100);
    PrivacyLedgerListener privacy = PrivacyLedgerListener.forNetwork(net, train, 1e-5)
        .budget(3.0, ThreatModel.ALL_ITERATES_RELEASED).build();
    net.setListeners(privacy, new ScoreIterationListener(100));
    try {
      net.fit(train, epochs);
    } catch (PrivacyBudgetExhaustedException stop) {
      privacy.closePartialEpoch();      // the network keeps the last in-budget parameters
    }
    System.out.println(privacy.epsilonSpent());
    // --- end ---
    // q = 0.1, z = 1.1: the budget ε = 3 allows fewer than the 30 planned steps; training stopped exactly there.
    // The listener's ledger holds the PLD and the RDP accountant and reports the smaller ε (CompositionAccounting),
    // so the limit is the last T whose smaller ε is ≤ 3, computed here from the accountants directly.
    SampledGaussianMechanism mechanism = new SampledGaussianMechanism(0.1, 1.1);
    PldStepAccountant pld = new PldStepAccountant(mechanism);
    java.util.function.LongToDoubleFunction epsilonAfter = t -> Math.min(
        pld.guaranteeAfter(t, 1e-5, RdpConversion.IMPROVED).epsilon(),
        new SampledGaussianAccountant(Orders.DEFAULT).compose(mechanism, t).guarantee(1e-5, RdpConversion.IMPROVED)
            .epsilon());
    long allowed = 0;
    while (epsilonAfter.applyAsDouble(allowed + 1) <= 3.0) {
      allowed++;
    }
    long rdpOnly = SgmCalibration.maxSteps(3.0, 1e-5, 0.1, 1.1, Orders.DEFAULT, RdpConversion.IMPROVED).steps();
    assertThat(allowed).isBetween(rdpOnly, 29L);   // PLD is at least as tight as RDP
    assertThat(privacy.ledger().steps()).isEqualTo(allowed);
    assertThat(net.getIterationCount()).isEqualTo((int) allowed);
    assertThat(privacy.epsilon(ThreatModel.ALL_ITERATES_RELEASED).orElseThrow())
        .isCloseTo(epsilonAfter.applyAsDouble(allowed), org.assertj.core.data.Offset.offset(1e-9))
        .isLessThanOrEqualTo(3.0);
  }
}
