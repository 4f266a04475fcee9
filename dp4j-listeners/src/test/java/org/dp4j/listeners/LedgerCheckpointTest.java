package org.dp4j.listeners;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.File;
import java.util.List;
import org.deeplearning4j.datasets.iterator.utilty.ListDataSetIterator;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.dp4j.accounting.Orders;
import org.dp4j.accounting.SampledGaussianMechanism;
import org.dp4j.accounting.ThreatModel;
import org.dp4j.accounting.ledger.CompositionStepAccountant;
import org.dp4j.accounting.ledger.LedgerRow;
import org.dp4j.accounting.ledger.PrivacyBudget;
import org.dp4j.accounting.ledger.PrivacyLedger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LedgerCheckpointTest {
  private static PrivacyLedger ledger(double z) {
    return PrivacyLedger.builder()
        .accountant(new CompositionStepAccountant(new SampledGaussianMechanism(0.1, z), Orders.DEFAULT))
        .accountant(new PrivacyLedgerTestSupport.ConstantHiddenState())
        .delta(1e-5).budget(new PrivacyBudget(50, 1e-5, ThreatModel.ALL_ITERATES_RELEASED)).build();
  }

  private static void epochs(MultiLayerNetwork net, int n) {
    for (int e = 0; e < n; e++) {
      net.fit(new ListDataSetIterator<>(List.of(PrivacyLedgerListenerTest.batch(1),
          PrivacyLedgerListenerTest.batch(2), PrivacyLedgerListenerTest.batch(3)), 1));
    }
  }

  @Test
  void resumingContinuesTheLedgerExactly(@TempDir File dir) {
    PrivacyLedger uninterrupted = ledger(1.2);
    MultiLayerNetwork a = PrivacyLedgerListenerTest.smallNet();
    a.setListeners(new PrivacyLedgerListener(uninterrupted));
    epochs(a, 4);

    PrivacyLedger first = ledger(1.2);
    MultiLayerNetwork b = PrivacyLedgerListenerTest.smallNet();
    b.setListeners(new PrivacyLedgerListener(first));
    epochs(b, 2);
    File file = new File(dir, "ckpt.zip");
    LedgerCheckpoint.save(b, first, file, false);
    assertThat(first.hiddenStateVoidedBecause()).hasValueSatisfying(r -> assertThat(r).contains("ckpt.zip"));

    PrivacyLedger resumedLedger = ledger(1.2);
    MultiLayerNetwork resumed = LedgerCheckpoint.restore(file, resumedLedger);
    assertThat(resumed.params()).isEqualTo(b.params());
    resumed.setListeners(new PrivacyLedgerListener(resumedLedger));
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
    MultiLayerNetwork net = PrivacyLedgerListenerTest.smallNet();
    net.setListeners(new PrivacyLedgerListener(first));
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
