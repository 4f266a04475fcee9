package org.dp4j.sampling;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.IntStream;
import org.dp4j.noise.AesCtrRandom;
import org.junit.jupiter.api.Test;

class ShuffleOncePartitionTest {

  @Test
  void samePartitionInTheSameOrderEveryEpochCoveringEachKeptRecordOnce() {
    int n = 103;
    int b = 10;
    ShuffleOncePartition sampler = new ShuffleOncePartition(n, b, AesCtrRandom.insecureFixedSeed(21));
    SamplingPlan plan = sampler.plan();
    assertThat(plan.stepsPerEpoch()).isEqualTo(10);
    assertThat(plan.droppedRecords()).isEqualTo(3);
    assertThat(plan.usableRecords()).isEqualTo(100);
    assertThat(plan.fixedBatchSize()).isEqualTo(10);
    assertThat(plan.describe()).contains("3 records dropped");
    int[] dropped = sampler.droppedIndices();
    assertThat(dropped).hasSize(3);

    List<int[]> firstEpoch = new ArrayList<>();
    for (int epoch = 0; epoch < 3; epoch++) {
      int[] seen = new int[n];
      for (int j = 0; j < plan.stepsPerEpoch(); j++) {
        assertThat(sampler.nextPosition()).isEqualTo(j);
        int[] batch = sampler.nextBatch();
        assertThat(batch).hasSize(b).isSorted();
        if (epoch == 0) {
          firstEpoch.add(batch);
        } else {
          assertThat(batch).isEqualTo(firstEpoch.get(j));
        }
        assertThat(batch).isEqualTo(sampler.batch(j));
        for (int i : batch) {
          seen[i]++;
        }
      }
      for (int i = 0; i < n; i++) {
        boolean isDropped = Arrays.binarySearch(dropped, i) >= 0;
        assertThat(seen[i]).as("record %s in epoch %s", i, epoch).isEqualTo(isDropped ? 0 : 1);
      }
    }
  }

  @Test
  void theSecretPermutationIsUniform() {
    // n = 6, b = 2, 5000 independent partitions from one stream. Record 0 lands in batch 0, 1, 2 with
    // probability 1/3 each: Pearson χ² with 2 df must be below 20 (p = 4.5e-5). Records 0 and 1 share
    // a batch with probability 1/5: 1000 ± 5·sqrt(5000·0.2·0.8) = ±141.
    AesCtrRandom random = AesCtrRandom.insecureFixedSeed(22);
    int trials = 5000;
    int[] where = new int[3];
    int together = 0;
    for (int t = 0; t < trials; t++) {
      ShuffleOncePartition p = new ShuffleOncePartition(6, 2, random);
      for (int j = 0; j < 3; j++) {
        int[] batch = p.batch(j);
        if (IntStream.of(batch).anyMatch(i -> i == 0)) {
          where[j]++;
          together += IntStream.of(batch).anyMatch(i -> i == 1) ? 1 : 0;
        }
      }
    }
    double e = trials / 3.0;
    double chi2 = 0;
    for (int count : where) {
      chi2 += (count - e) * (count - e) / e;
    }
    assertThat(chi2).isLessThan(20.0);
    assertThat((double) together).isCloseTo(1000.0, org.assertj.core.data.Offset.offset(5 * Math.sqrt(800.0)));
  }

  @Test
  void divisibleDatasetDropsNothingAndDifferentKeysGiveDifferentPartitions() {
    ShuffleOncePartition a = new ShuffleOncePartition(60, 6, AesCtrRandom.secure());
    ShuffleOncePartition b = new ShuffleOncePartition(60, 6, AesCtrRandom.secure());
    assertThat(a.droppedIndices()).isEmpty();
    assertThat(a.plan().describe()).doesNotContain("dropped");
    assertThat(a.plan().samplingRate()).isEqualTo(0.1);
    // Equal first batches from independent permutations: probability 1/C(60,6) ≈ 2e-8.
    assertThat(a.batch(0)).isNotEqualTo(b.batch(0));
  }

  @Test
  void rejectsInvalidSizes() {
    AesCtrRandom random = AesCtrRandom.insecureFixedSeed(1);
    assertThatThrownBy(() -> new ShuffleOncePartition(10, 11, random))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("batch size must be in [1, dataset size = 10], was 11");
    assertThatThrownBy(() -> new ShuffleOncePartition(10, 2, random).batch(5))
        .isInstanceOf(IndexOutOfBoundsException.class);
  }
}
