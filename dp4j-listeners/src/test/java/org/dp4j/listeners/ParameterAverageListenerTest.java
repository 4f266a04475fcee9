package org.dp4j.listeners;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.dp4j.training.ParameterAverage;
import org.dp4j.training.PrivateMultiLayerNetwork;
import org.dp4j.training.SampledDataSetIterator;
import org.junit.jupiter.api.Test;
import org.nd4j.linalg.learning.config.Sgd;

class ParameterAverageListenerTest {
  @Test
  void averagesTheIteratesOfAPrivateFitAndIsListedAsReleasingThem() {
    PrivateMultiLayerNetwork net = PrivacyLedgerListenerTest.smallNet(100, 20, 1.5, new Sgd(0.1));
    SampledDataSetIterator train = PrivacyLedgerListenerTest.train(100, 20);
    double[] initial = net.params().toDoubleVector();
    ParameterAverageListener averaging = new ParameterAverageListener(ParameterAverage.exponential(0.7, net.params()));
    PrivacyLedgerListenerTest.ParameterRecorder recorder = new PrivacyLedgerListenerTest.ParameterRecorder();
    net.setListeners(PrivacyLedgerListener.forNetwork(net, train, 1e-5).build(), averaging, recorder);
    net.fit(train, 2);

    assertThat(recorder.snapshots).hasSize(10);
    assertThat(averaging.average().updates()).isEqualTo(10);
    // The recursion again, in double, from the recorded iterates (the network is double).
    double[] expected = initial.clone();
    for (var theta : recorder.snapshots) {
      double[] t = theta.toDoubleVector();
      for (int i = 0; i < expected.length; i++) {
        expected[i] = 0.7 * expected[i] + 0.3 * t[i];
      }
    }
    double[] got = averaging.average().average().toDoubleVector();
    for (int i = 0; i < expected.length; i++) {
      assertThat(got[i]).isCloseTo(expected[i], org.assertj.core.data.Offset.offset(1e-12));
    }
    // The average depends on every iterate: the detector lists it, so a hidden-state ledger would be voided.
    assertThat(HiddenStateLeakDetector.inspect(List.of(averaging)).leaking()).containsExactly(
        "ParameterAverageListener");
    assertThat(HiddenStateLeakDetector.inspect(List.of(averaging)).unknown()).isEmpty();
  }
}
