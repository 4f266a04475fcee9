package org.dp4j.features;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.indexing.NDArrayIndex;

class ScatteringTransformTest {
  private static final ScatteringTransform S = ScatteringTransform.of(28, 2, 8);

  @Test
  void shapeIsKymatiosFor28By28WithJ2L8() {
    assertThat(S.channels()).isEqualTo(81);
    assertThat(S.outputSize()).isEqualTo(7);
    assertThat(S.featureCount()).isEqualTo(81 * 49);
    assertThat(ScatteringTransform.paddedSize(28, 2)).isEqualTo(36);
    assertThat(ScatteringTransform.of(32, 3, 6).channels()).isEqualTo(1 + 18 + 36 * 3);
  }

  @Test
  void matchesTheNumpyReferenceOnTwoImages() {
    INDArray images = Nd4j.create(new float[][] {ScatteringReference.blob(), ScatteringReference.lcg()});
    INDArray out = S.transform(images);
    assertThat(out.shape()).containsExactly(2, 81 * 49);
    String[] names = {"blob", "lcg"};
    for (int i = 0; i < 2; i++) {
      double[] expected = ScatteringReference.values("scattering " + names[i]);
      double[] actual = out.getRow(i).toDoubleVector();
      double scale = 0;
      for (double v : expected) {
        scale = Math.max(scale, Math.abs(v));
      }
      // float32 DFTs: absolute error within 2e-5 of the largest coefficient; the second order (~1e-2) too
      for (int k = 0; k < actual.length; k++) {
        assertThat(actual[k]).as("%s coefficient %s (channel %s)", names[i], k, k / 49)
            .isCloseTo(expected[k], within(2e-5 * scale));
      }
    }
  }

  @Test
  void anOrientedGratingExcitesTheMatchingAngle() {
    // a plane wave at the centre frequency of ψ_{0,θ}: ξ₀ = 3π/4 along angle t = (L/2 − 1 − θ)π/L (u = (row, col))
    float[][] gratings = new float[8][28 * 28];
    for (int theta = 0; theta < 8; theta++) {
      double t = (8 / 2 - 1 - theta) * Math.PI / 8;
      for (int r = 0; r < 28; r++) {
        for (int c = 0; c < 28; c++) {
          gratings[theta][r * 28 + c] =
              (float) (0.5 + 0.5 * Math.cos(0.75 * Math.PI * (r * Math.cos(t) + c * Math.sin(t))));
        }
      }
    }
    INDArray s = S.transform(Nd4j.create(gratings));
    for (int theta = 0; theta < 8; theta++) {
      int best = -1;
      double bestEnergy = -1;
      for (int k = 0; k < 8; k++) { // first-order channels of scale j1 = 0 are 1..8
        double e = s.get(NDArrayIndex.point(theta), NDArrayIndex.interval((1 + k) * 49, (2 + k) * 49))
            .sumNumber().doubleValue();
        if (e > bestEnergy) {
          bestEnergy = e;
          best = k;
        }
      }
      assertThat(best).as("grating at angle index %s", theta).isEqualTo(theta);
    }
  }

  @Test
  void aConstantImageHasOnlyTheLowPassCoefficient() {
    INDArray ones = Nd4j.ones(DataType.FLOAT, 1, 784);
    INDArray out = S.transform(ones);
    // S₀ = φ̂(0)·1 = π/3.1415 (Kymatio's normalisation); wavelets have zero mean, so S₁ = S₂ = 0
    for (int k = 0; k < 49; k++) {
      assertThat(out.getDouble(0, k)).isCloseTo(Math.PI / 3.1415, within(1e-5));
    }
    assertThat(out.get(NDArrayIndex.point(0),
        NDArrayIndex.interval(49, 81 * 49)).amaxNumber().doubleValue()).isLessThan(1e-4);
  }

  @Test
  void isLinearInTheScaleOfTheImage() {
    // every stage is positively homogeneous: S(a·x) = a·S(x) for a > 0
    INDArray x = Nd4j.create(ScatteringReference.lcg(), new long[] {1, 784}, DataType.FLOAT);
    INDArray sx = S.transform(x);
    INDArray s3x = S.transform(x.mul(3));
    assertThat(s3x.sub(sx.mul(3)).amaxNumber().doubleValue()).isLessThan(1e-4 * sx.amaxNumber().doubleValue() * 3);
  }

  @Test
  void isNonExpansiveUpToTheSamplingAndPadding() {
    // Mallat 2012, Prop. 2.5: with A(ω) ≤ 1 (here ≤ 1.0001) the scattering is non-expansive, ‖Sx − Sy‖ ≤ ‖x − y‖,
    // for undecimated signals; sampling at 2^J divides the energy of the low-passed signals by 4^J, and the
    // transform sees the reflection-padded image.
    java.util.Random random = new java.util.Random(7);
    float[][] pixels = new float[4][784];
    for (float[] p : pixels) {
      for (int i = 0; i < p.length; i++) {
        p[i] = random.nextFloat();
      }
    }
    INDArray s = S.transform(Nd4j.create(pixels));
    for (int a = 0; a < 4; a++) {
      for (int b = a + 1; b < 4; b++) {
        double lhs = 16 * s.getRow(a).squaredDistance(s.getRow(b));
        double rhs = 1.0001 * paddedEnergy(pixels[a], pixels[b]);
        assertThat(lhs).as("pair %s, %s", a, b).isLessThanOrEqualTo(rhs).isPositive();
      }
    }
  }

  private static double paddedEnergy(float[] x, float[] y) {
    double sum = 0;
    for (int r = -4; r < 32; r++) {
      for (int c = -4; c < 32; c++) {
        int i = reflect(r) * 28 + reflect(c);
        sum += (x[i] - y[i]) * (double) (x[i] - y[i]);
      }
    }
    return sum;
  }

  private static int reflect(int i) {
    return i < 0 ? -i : i > 27 ? 54 - i : i;
  }
}
