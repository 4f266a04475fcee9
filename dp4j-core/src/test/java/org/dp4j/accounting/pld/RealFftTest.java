package org.dp4j.accounting.pld;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.Random;
import org.junit.jupiter.api.Test;

class RealFftTest {
  @Test
  void matchesTheDirectDftOfARealSequenceAndInvertsIt() {
    for (int n : new int[] {2, 4, 64}) {
      Random rnd = new Random(n);
      double[] x = new double[n];
      for (int i = 0; i < n; i++) {
        x[i] = rnd.nextDouble();
      }
      double[] re = new double[n / 2 + 1];
      double[] im = new double[n / 2 + 1];
      RealFft fft = new RealFft(n);
      fft.forward(x, re, im);
      for (int k = 0; k <= n / 2; k++) {
        double sr = 0;
        double si = 0;
        for (int j = 0; j < n; j++) {
          sr += x[j] * Math.cos(2 * Math.PI * j * k / n);
          si -= x[j] * Math.sin(2 * Math.PI * j * k / n);
        }
        assertThat(re[k]).as("n=%s k=%s", n, k).isCloseTo(sr, within(1e-12));
        assertThat(im[k]).as("n=%s k=%s", n, k).isCloseTo(si, within(1e-12));
      }
      double[] back = new double[n];
      fft.inverse(re, im, back);
      for (int i = 0; i < n; i++) {
        assertThat(back[i]).isCloseTo(x[i], within(1e-14));
      }
    }
  }
}
