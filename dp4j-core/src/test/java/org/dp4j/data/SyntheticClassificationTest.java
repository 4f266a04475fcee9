package org.dp4j.data;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.dataset.DataSet;

/** Properties of the make_classification-style generator (no reference numbers exist for our seed). */
class SyntheticClassificationTest {
  private static final LabelledVectors MADELON = SyntheticClassification.madelonLike().build().generate();

  /** Test accuracy of a nearest-class-mean classifier on columns [from, to), trained on the first 80%. */
  static double nearestCentroidAccuracy(LabelledVectors data, int from, int to) {
    int split = data.size() * 4 / 5;
    double[][] mean = new double[data.classes()][to - from];
    int[] count = new int[data.classes()];
    for (int i = 0; i < split; i++) {
      double[] x = data.features(i);
      count[data.label(i)]++;
      for (int c = from; c < to; c++) {
        mean[data.label(i)][c - from] += x[c];
      }
    }
    for (int k = 0; k < mean.length; k++) {
      for (int c = 0; c < mean[k].length; c++) {
        mean[k][c] /= Math.max(1, count[k]);
      }
    }
    int correct = 0;
    for (int i = split; i < data.size(); i++) {
      double[] x = data.features(i);
      int best = -1;
      double bestDistance = Double.POSITIVE_INFINITY;
      for (int k = 0; k < mean.length; k++) {
        double d = 0;
        for (int c = from; c < to; c++) {
          d += (x[c] - mean[k][c - from]) * (x[c] - mean[k][c - from]);
        }
        if (d < bestDistance) {
          bestDistance = d;
          best = k;
        }
      }
      correct += best == data.label(i) ? 1 : 0;
    }
    return correct / (double) (data.size() - split);
  }

  @Test
  void madelonShapeIsThePapers() {
    assertThat(MADELON.size()).isEqualTo(6000);
    assertThat(MADELON.dimension()).isEqualTo(20);
    assertThat(MADELON.classes()).isEqualTo(5);
    DataSet ds = MADELON.rows(0, 4800).toDataSet(DataType.FLOAT);
    assertThat(ds.getFeatures().shape()).containsExactly(4800, 20);
    assertThat(ds.getLabels().shape()).containsExactly(4800, 5);
    assertThat(ds.getLabels().sum(1).toDoubleVector()).containsOnly(1.0);
    assertThat(ds.getLabels().argMax(1).getInt(7)).isEqualTo(MADELON.label(7));
  }

  @Test
  void classesAreBalancedUpToLabelNoise() {
    // 1200 per class before noise; 1% of labels redrawn moves a class by a few dozen at most
    for (int c = 0; c < 5; c++) {
      assertThat(MADELON.count(c)).isBetween(1150, 1250);
    }
    LabelledVectors exact = SyntheticClassification.madelonLike().labelNoise(0).samples(6003).build().generate();
    // 6003 = 10 clusters of 600, the first 3 (classes 0, 1, 2) get one more
    assertThat(new int[] {exact.count(0), exact.count(1), exact.count(2), exact.count(3), exact.count(4)})
        .containsExactly(1201, 1201, 1201, 1200, 1200);
  }

  @Test
  void sameSeedSameDataOtherSeedOtherData() {
    LabelledVectors again = SyntheticClassification.madelonLike().build().generate();
    LabelledVectors other = SyntheticClassification.madelonLike().seed(7).build().generate();
    for (int i : new int[] {0, 1, 2999, 5999}) {
      assertThat(again.features(i)).containsExactly(MADELON.features(i));
      assertThat(again.label(i)).isEqualTo(MADELON.label(i));
    }
    assertThat(other.features(0)).isNotEqualTo(MADELON.features(0));
  }

  @Test
  void informativeFeaturesSeparateClassesAndNoiseFeaturesDoNot() {
    // chance is 0.2 with 5 balanced classes; 1200 test examples give a binomial std of about 0.012
    assertThat(nearestCentroidAccuracy(MADELON, 0, 10)).isGreaterThan(0.35);
    assertThat(nearestCentroidAccuracy(MADELON, 15, 20)).isBetween(0.14, 0.26);
    LabelledVectors separated = SyntheticClassification.builder().samples(2000).features(6).informative(4)
        .classes(4).clustersPerClass(1).classSeparation(6.0).labelNoise(0).seed(3).build().generate();
    assertThat(nearestCentroidAccuracy(separated, 0, 4)).isGreaterThan(0.95);
  }

  @Test
  void labelNoiseRedrawsTheRequestedFraction() {
    SyntheticClassification.Builder sep = SyntheticClassification.builder().samples(4000).features(4).informative(4)
        .classes(4).clustersPerClass(1).classSeparation(8.0).seed(11);
    double clean = nearestCentroidAccuracy(sep.labelNoise(0).build().generate(), 0, 4);
    double noisy = nearestCentroidAccuracy(sep.labelNoise(0.4).build().generate(), 0, 4);
    // a redrawn label is wrong with probability 3/4: accuracy 1 - 0.4 * 0.75 = 0.7 (binomial std 0.016 on 800)
    assertThat(clean).isGreaterThan(0.99);
    assertThat(noisy).isCloseTo(0.7, within(0.06));
  }

  @Test
  void redundantFeaturesAreLinearCombinationsOfInformativeOnes() {
    // least squares of each redundant column on the informative ones leaves no residual
    int n = 200;
    int inf = 10;
    double[][] gram = new double[inf][inf];
    double[][] rhs = new double[inf][5];
    for (int i = 0; i < n; i++) {
      double[] x = MADELON.features(i);
      for (int a = 0; a < inf; a++) {
        for (int b = 0; b < inf; b++) {
          gram[a][b] += x[a] * x[b];
        }
        for (int r = 0; r < 5; r++) {
          rhs[a][r] += x[a] * x[inf + r];
        }
      }
    }
    var solver = new org.apache.commons.math3.linear.LUDecomposition(
        new org.apache.commons.math3.linear.Array2DRowRealMatrix(gram)).getSolver();
    double[][] coef = solver.solve(new org.apache.commons.math3.linear.Array2DRowRealMatrix(rhs)).getData();
    for (int i = n; i < n + 50; i++) {
      double[] x = MADELON.features(i);
      for (int r = 0; r < 5; r++) {
        double fit = 0;
        for (int a = 0; a < inf; a++) {
          fit += x[a] * coef[a][r];
        }
        assertThat(x[inf + r]).isCloseTo(fit, within(1e-9 * (1 + Math.abs(fit))));
      }
    }
  }

  @Test
  void rejectsImpossibleShapes() {
    assertThatThrownBy(() -> SyntheticClassification.builder().samples(100).features(5).informative(2).classes(5)
        .build()).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("2^informative = 4");
    assertThatThrownBy(() -> SyntheticClassification.builder().samples(100).features(5).informative(4).redundant(2)
        .classes(2).build()).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("<= features = 5");
    assertThatThrownBy(() -> SyntheticClassification.madelonLike().labelNoise(1.5).build())
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("labelNoise must be in [0, 1], was 1.5");
  }
}
