package org.dp4j.spark;

import static org.assertj.core.api.Assertions.assertThat;

import org.apache.spark.api.java.JavaRDD;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.junit.jupiter.api.Test;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.learning.config.Sgd;

/**
 * The batch the executors sample together is Poisson with rate q: on the counting network every sampled record adds
 * exactly C to the bias entry of the aggregated clipped sum, so the realised batch size of each step can be read off
 * the sum (nothing else leaves the executors). Over S steps its mean and variance must match Binomial(n, q).
 */
class PoissonBatchSizeTest {
  @Test
  void realisedBatchSizesAreBinomialWithRateQ() {
    int n = 2000;
    double clip = 1.0;
    double expected = 100;   // q = 0.05
    int steps = 150;
    MultiLayerNetwork net = TinyModels.counter(TinyModels.dp(clip, 1.0, expected, new Sgd(0.01)));
    JavaRDD<LabelledRecord> data = TinyModels.rdd(TinyModels.counterRecords(n), 4);
    DistributedClippedSum sums = new DistributedClippedSum(data, ModelSpec.of(net), expected / n, clip, 64, 2);
    double[] sizes = new double[steps];
    try {
      for (int t = 0; t < steps; t++) {
        INDArray sum = sums.compute(net.params());
        assertThat(sum.getDouble(0, 0)).isZero();             // the weight's gradient (feature 0)
        sizes[t] = sum.getDouble(0, 1) / clip;                // the bias: C per sampled record
        assertThat(Math.abs(sizes[t] - Math.rint(sizes[t]))).isLessThan(1e-6);
      }
    } finally {
      sums.close();
    }
    double q = expected / n;
    double mean = 0;
    for (double s : sizes) {
      mean += s / steps;
    }
    double variance = 0;
    for (double s : sizes) {
      variance += (s - mean) * (s - mean) / (steps - 1);
    }
    // Binomial(2000, 0.05): mean 100, variance npq = 95. Tolerances of 4.5 standard errors: the mean's is
    // sqrt(95/150) = 0.80; the sample variance's is about npq·sqrt(2/(S-1)) = 11.0 (normal approximation; the
    // binomial's excess kurtosis adds < 1%). A fixed batch (variance 0) or sampling without replacement of a fixed
    // size would fail; so would a rate off by 4%.
    double npq = n * q * (1 - q);
    assertThat(mean).isCloseTo(n * q, org.assertj.core.data.Offset.offset(4.5 * Math.sqrt(npq / steps)));
    assertThat(variance).isCloseTo(npq, org.assertj.core.data.Offset.offset(4.5 * npq * Math.sqrt(2.0 / (steps - 1))));
  }
}
