package org.dp4j.listeners;

import static org.assertj.core.api.Assertions.assertThat;

import org.deeplearning4j.nn.conf.MultiLayerConfiguration;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.layers.DenseLayer;
import org.deeplearning4j.nn.conf.layers.OutputLayer;
import org.deeplearning4j.optimize.listeners.ScoreIterationListener;
import org.dp4j.accounting.Orders;
import org.dp4j.accounting.RdpConversion;
import org.dp4j.accounting.SgmCalibration;
import org.dp4j.accounting.event.DpEvent;
import org.dp4j.accounting.event.PrivacyUnit;
import org.dp4j.accounting.pld.PldAccountant;
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
    // q = 0.1, z = 1.1: the budget ε = 3 allows fewer than the 30 planned steps; training stopped exactly there,
    // on the PLD bound (the default), which allows more steps than the RDP bound.
    long taken = privacy.ledger().steps();
    assertThat(net.getIterationCount()).isEqualTo((int) taken);
    assertThat(taken).isBetween(5L, 29L);
    PldAccountant pld = PldAccountant.withDefaults();
    DpEvent step = DpEvent.sampledGaussian(0.1, 1.1);
    double atStop = pld.epsilon(step.times(taken), 1e-5, PrivacyUnit.RECORD);
    assertThat(atStop).isLessThanOrEqualTo(3.0);
    assertThat(pld.epsilon(step.times(taken + 1), 1e-5, PrivacyUnit.RECORD)).isGreaterThan(3.0);
    assertThat(privacy.epsilon(ThreatModel.ALL_ITERATES_RELEASED).orElseThrow()).isLessThanOrEqualTo(atStop)
        .isGreaterThan(atStop - 0.02);
    long rdpAllowed = SgmCalibration.maxSteps(3.0, 1e-5, 0.1, 1.1, Orders.DEFAULT, RdpConversion.IMPROVED).steps();
    assertThat(taken).isGreaterThanOrEqualTo(rdpAllowed);
  }
}
