package org.dp4j.features;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

class MorletFilterBankTest {
  private static final MorletFilterBank BANK = MorletFilterBank.of(36, 2, 8);

  @Test
  void filtersMatchTheNumpyReference() {
    // scattering_reference.py builds the filters with np.fft in double precision
    assertMatches(BANK.psi(0, 0), ScatteringReference.values("psi 0 0"));
    assertMatches(BANK.psi(1, 5), ScatteringReference.values("psi 1 5"));
    assertMatches(BANK.phi(), ScatteringReference.values("phi"));
  }

  @Test
  void everyWaveletHasZeroMeanAndPhiHasKymatiosDcGain() {
    for (int j = 0; j < 2; j++) {
      for (int t = 0; t < 8; t++) {
        assertThat(BANK.psi(j, t)[0]).as("psi_%s,%s(0)", j, t).isCloseTo(0.0, within(1e-12));
      }
    }
    // the periodised Gaussian integrates to 2πσ²/slant; Kymatio divides by 2·3.1415·σ², so φ̂(0) = π/3.1415
    assertThat(BANK.phi()[0]).isCloseTo(Math.PI / 3.1415, within(1e-9));
  }

  @Test
  void littlewoodPaleySumIsBoundedAsInTheReference() {
    double[] lp = BANK.littlewoodPaley();
    double min = Double.MAX_VALUE;
    double max = 0;
    for (double v : lp) {
      min = Math.min(min, v);
      max = Math.max(max, v);
    }
    assertThat(min).isCloseTo(ScatteringReference.values("lp_min")[0], within(1e-9));
    assertThat(max).isCloseTo(ScatteringReference.values("lp_max")[0], within(1e-9));
    // a frame, nearly non-expansive: A(ω) ≤ 1 up to Kymatio's 3.1415 for π
    assertThat(max).isLessThan(1.0 + 1e-4).isGreaterThan(0.99);
    assertThat(min).isGreaterThan(0.1);
  }

  @Test
  void waveletPeaksSitAtTheirCentreFrequencyAndAngle() {
    // ψ̂_{j,θ} peaks near ξ_j (cos t, sin t), ξ_j = 3π/4 / 2^j, t = (L/2 − 1 − θ)π/L, in cycles of 2π/36
    for (int j = 0; j < 2; j++) {
      for (int t = 0; t < 8; t++) {
        double[] f = BANK.psi(j, t);
        int best = 0;
        for (int i = 1; i < f.length; i++) {
          best = f[i] > f[best] ? i : best;
        }
        double angle = (8 / 2 - 1 - t) * Math.PI / 8;
        double radius = 0.75 * Math.PI / Math.pow(2, j) * 36 / (2 * Math.PI);
        int k = best / 36;
        int l = best % 36;
        double fk = k < 18 ? k : k - 36;
        double fl = l < 18 ? l : l - 36;
        assertThat(Math.hypot(fk - radius * Math.cos(angle), fl - radius * Math.sin(angle)))
            .as("peak of psi_%s,%s at (%s, %s)", j, t, fk, fl).isLessThan(1.5);
      }
    }
  }

  @Test
  void cropKeepsTheLowBand() {
    double[] f = new double[36 * 36];
    for (int i = 0; i < f.length; i++) {
      f[i] = i;
    }
    double[] c = MorletFilterBank.crop(f, 36, 1);
    assertThat(c).hasSize(18 * 18);
    assertThat(c[0]).isEqualTo(0);
    assertThat(c[8 * 18 + 8]).isEqualTo(8 * 36 + 8);           // frequency (8, 8)
    assertThat(c[9 * 18 + 17]).isEqualTo(27 * 36 + 35);        // frequency (−9, −1)
  }

  @Test
  void refusesASizeThatIsNotAMultipleOfTwoToTheJ() {
    assertThatThrownBy(() -> MorletFilterBank.of(30, 2, 8)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("was 30");
  }

  private static void assertMatches(double[] actual, double[] expected) {
    assertThat(actual).hasSameSizeAs(expected);
    for (int i = 0; i < actual.length; i++) {
      assertThat(actual[i]).as("coefficient %s", i).isCloseTo(expected[i], within(1e-9));
    }
  }
}
