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

  /** n epochs of q = 0.2 over 10 records: 5 steps each. */
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
  void savesIntoAMissingFolderAndReadsTheBinding(@TempDir File dir) {
    PrivacyLedger l = ledger(1.2);
    MultiLayerNetwork net = net(1.2);
    net.setListeners(PrivacyLedgerListenerTest.listener(l));
    epochs(net, 2);
    File file = new File(dir, "new/sub/ckpt.zip");
    LedgerCheckpoint.save(net, l, file, true, java.util.Map.of("--model", "mlp"));
    LedgerCheckpoint.Contents c = LedgerCheckpoint.read(file);
    assertThat(c.iterationCount()).isEqualTo(10);
    assertThat(c.ledger().steps()).isEqualTo(10);
    assertThat(c.ledger().epochs()).containsExactly(1, 2);
    assertThat(c.settings()).containsExactly(java.util.Map.entry("--model", "mlp"));
    assertThat(c.sha256()).containsKeys("configuration.json", "coefficients.bin")
        .allSatisfy((entry, hex) -> assertThat(hex).matches("[0-9a-f]{64}"));
    assertThat(file.getParentFile().list()).containsExactly("ckpt.zip");
  }

  @Test
  void aPlainModelFileHasNoLedger(@TempDir File dir) throws Exception {
    File file = new File(dir, "plain.zip");
    org.deeplearning4j.util.ModelSerializer.writeModel(PrivacyLedgerListenerTest.smallNet(), file, false);
    assertThatThrownBy(() -> LedgerCheckpoint.readState(file)).hasMessageContaining("no");
  }

  @Test
  void aLedgerFromAnEarlierEpochIsRefused(@TempDir File dir) throws Exception {
    PrivacyLedger l = ledger(1.2);
    MultiLayerNetwork net = net(1.2);
    net.setListeners(PrivacyLedgerListenerTest.listener(l));
    epochs(net, 1);
    File early = new File(dir, "epoch1.zip");
    LedgerCheckpoint.save(net, l, early, false);
    epochs(net, 2);
    File late = new File(dir, "epoch3.zip");
    LedgerCheckpoint.save(net, l, late, false);
    assertThat(LedgerCheckpoint.readState(early).steps()).isEqualTo(5);
    assertThat(LedgerCheckpoint.readState(late).steps()).isEqualTo(15);

    File rolledBack = new File(dir, "rolled-back.zip");
    CheckpointSurgery.replaceEntry(late, early, LedgerCheckpoint.ENTRY, rolledBack);
    PrivacyLedger fresh = ledger(1.2);
    assertThatThrownBy(() -> LedgerCheckpoint.restore(rolledBack, fresh))
        .isInstanceOf(InvalidCheckpointException.class)
        .hasMessageContaining("accounts 5 private updates").hasMessageContaining("took 15")
        .hasMessageContaining("another point of the run");
    assertThat(fresh.steps()).isZero();
    // The untouched checkpoints still resume.
    assertThat(LedgerCheckpoint.restore(late, ledger(1.2)).getIterationCount()).isEqualTo(15);
  }

  @Test
  void aLedgerWithFewerStepsThanTheModelIsRefused(@TempDir File dir) throws Exception {
    PrivacyLedger zero = ledger(1.2);
    MultiLayerNetwork untrained = net(1.2);
    File empty = new File(dir, "empty.zip");
    LedgerCheckpoint.save(untrained, zero, empty, false);
    PrivacyLedger l = ledger(1.2);
    MultiLayerNetwork net = net(1.2);
    net.setListeners(PrivacyLedgerListenerTest.listener(l));
    epochs(net, 2);
    File trained = new File(dir, "trained.zip");
    LedgerCheckpoint.save(net, l, trained, false);
    File mixed = new File(dir, "mixed.zip");
    CheckpointSurgery.replaceEntry(trained, empty, LedgerCheckpoint.ENTRY, mixed);
    assertThatThrownBy(() -> LedgerCheckpoint.restore(mixed, ledger(1.2)))
        .isInstanceOf(InvalidCheckpointException.class).hasMessageContaining("accounts 0 private updates")
        .hasMessageContaining("took 10");
  }

  @Test
  void aLedgerFromAnotherRunAtTheSameStepIsRefused(@TempDir File dir) throws Exception {
    File[] runs = new File[2];
    for (int run = 0; run < 2; run++) {
      PrivacyLedger l = ledger(1.2);
      MultiLayerNetwork net = net(1.2);
      net.setListeners(PrivacyLedgerListenerTest.listener(l));
      epochs(net, 1 + run);
      if (run == 0) {
        epochs(net, 1);
      } else {
        net.params().muli(1.0 + 1e-9); // the same schedule, parameters that differ in the last bits
      }
      runs[run] = new File(dir, "run" + run + ".zip");
      LedgerCheckpoint.save(net, l, runs[run], false);
    }
    assertThat(LedgerCheckpoint.readState(runs[0]).steps()).isEqualTo(LedgerCheckpoint.readState(runs[1]).steps());
    File mixed = new File(dir, "mixed.zip");
    CheckpointSurgery.replaceEntry(runs[1], runs[0], LedgerCheckpoint.ENTRY, mixed);
    assertThatThrownBy(() -> LedgerCheckpoint.restore(mixed, ledger(1.2)))
        .isInstanceOf(InvalidCheckpointException.class).hasMessageContaining("another run");
  }

  @Test
  void aModelWhoseIterationCountDisagreesWithItsLedgerCannotBeSaved(@TempDir File dir) {
    MultiLayerNetwork net = net(1.2);
    epochs(net, 1); // trained without the ledger listener: 5 iterations, 0 accounted updates
    assertThatThrownBy(() -> LedgerCheckpoint.save(net, ledger(1.2), new File(dir, "x.zip"), true))
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("accounts 0 private updates")
        .hasMessageContaining("iteration count is 5");
    assertThat(dir.listFiles()).isEmpty();
  }

  /**
   * A checkpoint of an earlier dp4j kept the ledger as a Java-serialized object. Such an entry is refused
   * without being deserialized: a class named by the file is never instantiated.
   */
  @Test
  void aJavaSerializedLedgerIsRefusedWithoutDeserializingIt(@TempDir File dir) throws Exception {
    File plain = new File(dir, "plain.zip");
    org.deeplearning4j.util.ModelSerializer.writeModel(PrivacyLedgerListenerTest.smallNet(), plain, false);
    java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
    try (java.io.ObjectOutputStream out = new java.io.ObjectOutputStream(bytes)) {
      out.writeObject(new Tripwire());
    }
    Tripwire.instantiated = false;
    File legacy = new File(dir, "legacy.zip");
    CheckpointSurgery.addEntry(plain, LedgerCheckpoint.LEGACY_ENTRY, bytes.toByteArray(), legacy);
    assertThatThrownBy(() -> LedgerCheckpoint.restore(legacy, ledger(1.2)))
        .isInstanceOf(InvalidCheckpointException.class).hasMessageContaining("Java serialization");
    assertThatThrownBy(() -> LedgerCheckpoint.readState(legacy)).isInstanceOf(InvalidCheckpointException.class);
    assertThat(Tripwire.instantiated).isFalse();
    // The tripwire works: plain Java deserialization of the same bytes does instantiate it.
    try (java.io.ObjectInputStream in = new java.io.ObjectInputStream(
        new java.io.ByteArrayInputStream(bytes.toByteArray()))) {
      in.readObject();
    }
    assertThat(Tripwire.instantiated).isTrue();
  }

  /**
   * DL4J's loader reads a "preprocessor.bin" entry with unfiltered Java deserialization; a checkpoint holding one
   * is refused before DL4J sees it.
   */
  @Test
  void anEntryDl4jWouldDeserializeIsRefusedBeforeDl4jSeesIt(@TempDir File dir) throws Exception {
    PrivacyLedger l = ledger(1.2);
    MultiLayerNetwork net = net(1.2);
    net.setListeners(PrivacyLedgerListenerTest.listener(l));
    epochs(net, 1);
    File good = new File(dir, "good.zip");
    LedgerCheckpoint.save(net, l, good, true);
    java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
    try (java.io.ObjectOutputStream out = new java.io.ObjectOutputStream(bytes)) {
      out.writeObject(new Tripwire());
    }
    File planted = new File(dir, "planted.zip");
    CheckpointSurgery.addEntry(good, "preprocessor.bin", bytes.toByteArray(), planted);
    Tripwire.instantiated = false;
    assertThatThrownBy(() -> LedgerCheckpoint.restore(planted, ledger(1.2)))
        .isInstanceOf(InvalidCheckpointException.class).hasMessageContaining("'preprocessor.bin'");
    assertThat(Tripwire.instantiated).isFalse();
    // What the check prevents: DL4J's own loader instantiates the planted object.
    try {
      org.deeplearning4j.util.ModelSerializer.restoreMultiLayerNetwork(planted, true);
    } catch (RuntimeException e) {
      // DL4J may then fail to use it; the object was created all the same
    }
    assertThat(Tripwire.instantiated).isTrue();
  }

  @Test
  void aFileThatIsNoZipOrHasAMalformedLedgerIsRefused(@TempDir File dir) throws Exception {
    File junk = new File(dir, "junk.zip");
    java.nio.file.Files.writeString(junk.toPath(), "not a zip");
    assertThatThrownBy(() -> LedgerCheckpoint.restore(junk, ledger(1.2)))
        .isInstanceOf(InvalidCheckpointException.class).hasMessageContaining("not a zip file");

    PrivacyLedger l = ledger(1.2);
    MultiLayerNetwork net = net(1.2);
    File good = new File(dir, "good.zip");
    LedgerCheckpoint.save(net, l, good, true);
    File bad = new File(dir, "bad.zip");
    CheckpointSurgery.replaceEntryBytes(good, LedgerCheckpoint.ENTRY, "{\"format\": \"dp4j-checkpoint\", \"version\": 7}"
        .getBytes(java.nio.charset.StandardCharsets.UTF_8), bad);
    assertThatThrownBy(() -> LedgerCheckpoint.restore(bad, ledger(1.2)))
        .isInstanceOf(InvalidCheckpointException.class).hasMessageContaining("format version 7");
    CheckpointSurgery.replaceEntryBytes(good, LedgerCheckpoint.ENTRY, "{\"format\": ".getBytes(
        java.nio.charset.StandardCharsets.UTF_8), bad);
    assertThatThrownBy(() -> LedgerCheckpoint.restore(bad, ledger(1.2)))
        .isInstanceOf(InvalidCheckpointException.class).hasMessageContaining("not valid JSON");
  }

  /** A serializable class that records being instantiated by deserialization. */
  static final class Tripwire implements java.io.Serializable {
    private static final long serialVersionUID = 1L;
    static volatile boolean instantiated;

    private void readObject(java.io.ObjectInputStream in) throws java.io.IOException, ClassNotFoundException {
      in.defaultReadObject();
      instantiated = true;
    }
  }
}
