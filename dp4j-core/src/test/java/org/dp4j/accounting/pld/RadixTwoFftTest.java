package org.dp4j.accounting.pld;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.Random;
import org.junit.jupiter.api.Test;

class RadixTwoFftTest {
  @Test
  void matchesTheDirectDftAndInvertsIt() {
    int n = 64;
    Random rnd = new Random(1);
    double[] re = new double[n];
    double[] im = new double[n];
    for (int i = 0; i < n; i++) {
      re[i] = rnd.nextGaussian();
      im[i] = rnd.nextGaussian();
    }
    double[] re0 = re.clone();
    double[] im0 = im.clone();
    new RadixTwoFft(n).forward(re, im);
    for (int k = 0; k < n; k++) {
      double sr = 0;
      double si = 0;
      for (int j = 0; j < n; j++) {
        double a = -2 * Math.PI * j * k / n;
        sr += re0[j] * Math.cos(a) - im0[j] * Math.sin(a);
        si += re0[j] * Math.sin(a) + im0[j] * Math.cos(a);
      }
      assertThat(re[k]).isCloseTo(sr, within(1e-12));
      assertThat(im[k]).isCloseTo(si, within(1e-12));
    }
    new RadixTwoFft(n).inverse(re, im);
    for (int i = 0; i < n; i++) {
      assertThat(re[i]).isCloseTo(re0[i], within(1e-14));
      assertThat(im[i]).isCloseTo(im0[i], within(1e-14));
    }
  }

  @Test
  void convolvesBinomials() {
    // (½, ½) convolved with itself 10 times is Binomial(10, ½): C(10, k)/1024 (exact, independent)
    int n = 16;
    double[] re = new double[n];
    double[] im = new double[n];
    re[0] = 0.5;
    re[1] = 0.5;
    RadixTwoFft fft = new RadixTwoFft(n);
    fft.forward(re, im);
    for (int k = 0; k < n; k++) {
      double r = 1;
      double i = 0;
      for (int t = 0; t < 10; t++) {
        double nr = r * re[k] - i * im[k];
        i = r * im[k] + i * re[k];
        r = nr;
      }
      re[k] = r;
      im[k] = i;
    }
    fft.inverse(re, im);
    long[] binom = {1, 10, 45, 120, 210, 252, 210, 120, 45, 10, 1};
    for (int k = 0; k <= 10; k++) {
      assertThat(re[k]).isCloseTo(binom[k] / 1024.0, within(1e-15));
    }
  }

  @Test
  void rejectsSizesThatAreNotPowersOfTwo() {
    assertThatThrownBy(() -> new RadixTwoFft(12)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("power of two").hasMessageContaining("12");
  }
}
