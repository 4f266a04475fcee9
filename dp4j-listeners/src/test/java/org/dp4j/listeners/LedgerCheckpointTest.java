package org.dp4j.listeners;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.File;
import java.util.List;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.dp4j.accounting.Orders;
import org.dp4j.accounting.SampledGaussianMechanism;
import org.dp4j.accounting.ThreatModel;
import org.dp4j.accounting.ledger.CompositionStepAccountant;
import org.dp4j.accounting.ledger.LedgerRow;
import org.dp4j.accounting.ledger.PrivacyBudget;
import org.dp4j.accounting.ledger.PrivacyLedger;
import org.dp4j.training.PrivateMultiLayerNetwork;
import org.nd4j.linalg.learning.config.Sgd;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LedgerCheckpointTest {
  private static PrivacyLedger ledger(double z) {
    return PrivacyLedger.builder()
        .accountant(new CompositionStepAccountant(new SampledGaussianMechanism(0.2, z), Orders.DEFAULT))
        .accountant(new PrivacyLedgerTestSupport.ConstantHiddenState())
        .delta(1e-5).budget(new PrivacyBudget(50, 1e-5, ThreatModel.ALL_ITERATES_RELEASED)).build();
  }

  private static void epochs(MultiLayerNetwork net, int n) {
    net.fit(PrivacyLedgerListenerTest.train(10, 2), n);
  }

  private static PrivateMultiLayerNetwork net(double z) {
    return PrivacyLedgerListenerTest.smallNet(10, 2, z, new Sgd(0.1));
  }

  @Test
  void resumingContinuesTheLedgerExactly(@TempDir File dir) {
    PrivacyLedger uninterrupted = ledger(1.2);
    MultiLayerNetwork a = net(1.2);
    a.setListeners(PrivacyLedgerListenerTest.listener(uninterrupted));
    epochs(a, 4);

    PrivacyLedger first = ledger(1.2);
    MultiLayerNetwork b = net(1.2);
    b.setListeners(PrivacyLedgerListenerTest.listener(first));
    epochs(b, 2);
    File file = new File(dir, "ckpt.zip");
    LedgerCheckpoint.save(b, first, file, false);
    assertThat(first.hiddenStateVoidedBecause()).hasValueSatisfying(r -> assertThat(r).contains("ckpt.zip"));

    PrivacyLedger resumedLedger = ledger(1.2);
    MultiLayerNetwork resumed = PrivateMultiLayerNetwork.resume(LedgerCheckpoint.restore(file, resumedLedger));
    assertThat(resumed.getIterationCount()).isEqualTo(10);
    assertThat(resumed.params()).isEqualTo(b.params());
    resumed.setListeners(PrivacyLedgerListenerTest.listener(resumedLedger));
    epochs(resumed, 2);

    List<LedgerRow> expected = uninterrupted.rows();
    List<LedgerRow> actual = resumedLedger.rows();
    assertThat(actual).hasSize(4);
    for (int i = 0; i < 4; i++) {
      assertThat(actual.get(i).epoch()).isEqualTo(expected.get(i).epoch());
      assertThat(actual.get(i).steps()).isEqualTo(expected.get(i).steps());
      assertThat(actual.get(i).composition().orElseThrow().epsilon())
          .isEqualTo(expected.get(i).composition().orElseThrow().epsilon());
    }
    // The mid-training checkpoint voided hidden-state bounds from epoch 3 on, and resuming keeps that.
    assertThat(actual.get(1).hiddenState()).isPresent();
    assertThat(actual.get(2).hiddenState()).isEmpty();
    assertThat(resumedLedger.hiddenStateVoidedBecause()).isPresent();
  }

  @Test
  void resumingWithAnotherMechanismIsRefused(@TempDir File dir) {
    PrivacyLedger first = ledger(1.2);
    MultiLayerNetwork net = net(1.2);
    net.setListeners(PrivacyLedgerListenerTest.listener(first));
    epochs(net, 1);
    File file = new File(dir, "ckpt.zip");
    LedgerCheckpoint.save(net, first, file, true);
    assertThatThrownBy(() -> LedgerCheckpoint.restore(file, ledger(2.0)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("cannot resume").hasMessageContaining("z=2.0");
  }

  @Test
  void aPlainModelFileHasNoLedger(@TempDir File dir) throws Exception {
    File file = new File(dir, "plain.zip");
    org.deeplearning4j.util.ModelSerializer.writeModel(PrivacyLedgerListenerTest.smallNet(), file, false);
    assertThatThrownBy(() -> LedgerCheckpoint.readState(file)).hasMessageContaining("no");
  }
}
