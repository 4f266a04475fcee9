package org.dp4j.accounting.ledger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.Arrays;
import java.util.List;
import org.dp4j.accounting.Orders;
import org.dp4j.accounting.hiddenstate.DpMbcdAccountant;
import org.dp4j.accounting.hiddenstate.DpMbcdConfig;
import org.dp4j.accounting.hiddenstate.DpMbcdLedger;
import org.dp4j.accounting.hiddenstate.DpMbcdStepAccountant;
import org.dp4j.accounting.hiddenstate.NoiseTemperatureSchedule;
import org.junit.jupiter.api.Test;

class LedgerEpochContributionsTest {
  @Test
  void rowsCarryEachEpochsShareOfTheDpMbcdBound() {
    // Chen & Liu 2025; docs/accountants.md#dp-mbcd two-block setting with a decreasing schedule.
    DpMbcdConfig config = DpMbcdConfig.builder().datasetSize(6).batchSize(2).stepSize(0.05)
        .noiseTemperature(NoiseTemperatureSchedule.linearInEpoch(0.02, -0.002))
        .block("W0", 0.95, 1, 1).block("W1", 0.9, 1, 1).build();
    PrivacyLedger ledger = PrivacyLedger.builder()
        .accountant(new DpMbcdStepAccountant(config, Orders.DEFAULT, "o = 0.02 - 0.002k")).delta(1e-5).build();
    for (int epoch = 1; epoch <= 4; epoch++) {
      for (int s = 0; s < config.batchesPerEpoch(); s++) {
        ledger.tryStep();
      }
      LedgerRow row = ledger.closeEpoch(epoch);
      List<Double> shares = row.epochContributions().get(DpMbcdAccountant.NAME);
      assertThat(shares).hasSize(epoch).allMatch(v -> v > 0);
      DpMbcdAccountant direct = DpMbcdAccountant.afterEpochs(config, epoch);
      assertThat(shares).containsExactly(Arrays.stream(direct.epochContributions()).boxed().toArray(Double[]::new));
      // The shares add up to the bound averaged over the differing record's batch position, summed over blocks.
      double meanBound = 0;
      for (DpMbcdLedger block : direct.ledgers()) {
        meanBound += Arrays.stream(block.bounds()).average().orElseThrow();
      }
      assertThat(shares.stream().mapToDouble(Double::doubleValue).sum()).isCloseTo(meanBound, within(1e-12));
    }
  }

  @Test
  void compositionAccountantsDoNotDecompose() {
    PrivacyLedger ledger = PrivacyLedger.builder().accountant(new CompositionStepAccountant(
        new org.dp4j.accounting.SampledGaussianMechanism(0.1, 1), Orders.DEFAULT)).delta(1e-5).build();
    ledger.tryStep();
    assertThat(ledger.closeEpoch(1).epochContributions()).isEmpty();
  }
}
