package org.dp4j.training;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.dp4j.updater.DpSgd;
import org.junit.jupiter.api.Test;
import org.nd4j.linalg.learning.config.Adam;
import org.nd4j.linalg.learning.config.Nesterovs;
import org.nd4j.linalg.learning.config.Sgd;
import org.nd4j.linalg.schedule.MapSchedule;
import org.nd4j.linalg.schedule.ScheduleType;

class PlainSgdCheckTest {
  private static DpSgd dp(org.nd4j.linalg.learning.config.IUpdater base) {
    return DpSgd.builder().clipNorm(1).noiseMultiplier(1).expectedBatchSize(10).baseUpdater(base).build();
  }

  @Test
  void onlyConstantStepSgdKeepsHiddenStateTheorems() {
    assertThat(PlainSgdCheck.whyNotPlainSgd(new Sgd(0.1))).isEmpty();
    assertThat(PlainSgdCheck.whyNotPlainSgd(dp(new Sgd(0.1)))).isEmpty();
    assertThat(PlainSgdCheck.whyNotPlainSgd(dp(new Nesterovs(0.1, 0.9)))).hasValueSatisfying(
        r -> assertThat(r).contains("Nesterovs", "not plain SGD"));
    assertThat(PlainSgdCheck.whyNotPlainSgd(new Adam(1e-3))).hasValueSatisfying(r -> assertThat(r).contains("Adam"));
    Sgd scheduled = new Sgd(new MapSchedule(ScheduleType.EPOCH, Map.of(0, 0.1, 5, 0.01)));
    assertThat(PlainSgdCheck.whyNotPlainSgd(scheduled)).hasValueSatisfying(r -> assertThat(r).contains("schedule"));
  }

  @Test
  void aMomentumNetworkIsDetected() {
    DpSgdSetup setup = DpSgdSetup.builder().datasetSize(100).expectedBatchSize(10).epochs(1).clipNorm(1)
        .noiseMultiplier(1).delta(1e-5).build();
    var conf = DpSgdTrainerTest.mlp(10, 4, 2);
    assertThat(PlainSgdCheck.whyNotPlainSgd(setup.privateNetwork(conf))).isEmpty();
    var momentum = new org.deeplearning4j.nn.conf.NeuralNetConfiguration.Builder().updater(new Nesterovs(0.1, 0.9))
        .list().layer(new org.deeplearning4j.nn.conf.layers.OutputLayer.Builder().nIn(3).nOut(2).build()).build();
    assertThat(PlainSgdCheck.whyNotPlainSgd(setup.privateNetwork(momentum))).isPresent();
  }
}
