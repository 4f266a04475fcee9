package org.dp4j.listeners;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.deeplearning4j.datasets.iterator.utilty.ListDataSetIterator;
import org.deeplearning4j.earlystopping.EarlyStoppingConfiguration;
import org.deeplearning4j.earlystopping.EarlyStoppingResult;
import org.deeplearning4j.earlystopping.saver.InMemoryModelSaver;
import org.deeplearning4j.earlystopping.scorecalc.DataSetLossCalculator;
import org.deeplearning4j.earlystopping.trainer.EarlyStoppingTrainer;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.dp4j.accounting.Orders;
import org.dp4j.accounting.RdpConversion;
import org.dp4j.accounting.SampledGaussianMechanism;
import org.dp4j.accounting.SgmCalibration;
import org.dp4j.accounting.ThreatModel;
import org.dp4j.accounting.ledger.CompositionStepAccountant;
import org.dp4j.accounting.ledger.PrivacyBudget;
import org.dp4j.accounting.ledger.PrivacyLedger;
import org.junit.jupiter.api.Test;

class PrivacyBudgetTerminationTest {
  @Test
  void earlyStoppingRunsExactlyTheEpochsThatFit() {
    SampledGaussianMechanism sgm = new SampledGaussianMechanism(0.25, 2.0);
    PrivacyLedger ledger = PrivacyLedger.builder().accountant(new CompositionStepAccountant(sgm, Orders.DEFAULT))
        .delta(1e-5).budget(new PrivacyBudget(3.5, 1e-5, ThreatModel.ALL_ITERATES_RELEASED)).build();
    long allowedSteps = SgmCalibration.maxSteps(3.5, 1e-5, 0.25, 2.0, Orders.DEFAULT, RdpConversion.IMPROVED).steps();
    int stepsPerEpoch = 4;
    assertThat(allowedSteps).as("several epochs fit, the last one only partly").isBetween(9L, 60L).matches(s -> s % stepsPerEpoch != 0);
    MultiLayerNetwork net = PrivacyLedgerListenerTest.smallNet(8, 2, 2.0, new org.nd4j.linalg.learning.config.Sgd(0.1));
    net.setListeners(new PrivacyLedgerListener(ledger));
    org.dp4j.training.SampledDataSetIterator train = PrivacyLedgerListenerTest.train(8, 2);
    EarlyStoppingConfiguration<MultiLayerNetwork> es = new EarlyStoppingConfiguration.Builder<MultiLayerNetwork>()
        .epochTerminationConditions(new PrivacyBudgetTermination(ledger, stepsPerEpoch))
        .scoreCalculator(new DataSetLossCalculator(new ListDataSetIterator<>(
            List.of(PrivacyLedgerListenerTest.batch(9)), 1), true))
        .modelSaver(new InMemoryModelSaver<>()).build();
    EarlyStoppingResult<MultiLayerNetwork> result = new EarlyStoppingTrainer(es, net, train).fit();
    assertThat(result.getTerminationReason()).isEqualTo(EarlyStoppingResult.TerminationReason.EpochTerminationCondition);
    assertThat(ledger.steps()).isEqualTo(allowedSteps / stepsPerEpoch * stepsPerEpoch);
    assertThat(ledger.best(ThreatModel.ALL_ITERATES_RELEASED, 0).orElseThrow().epsilon()).isLessThanOrEqualTo(3.5);
    assertThat(ledger.wouldExceedBudget(stepsPerEpoch)).isTrue();
  }
}
