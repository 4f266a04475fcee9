package org.dp4j.accounting;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.withinPercentage;

import java.util.OptionalDouble;
import org.dp4j.accounting.SampledGaussianRdp.Evaluation;
import org.dp4j.accounting.SampledGaussianRdp.Method;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvFileSource;

/**
 * Sampled-Gaussian RDP at every sampling rate against independent 40/50-digit mpmath quadrature of the
 * defining expectation ({@code src/test/python/sgm_rdp_reference.py}, which writes the CSV files), plus
 * the closed form at α = 2 and the monotonicity properties.
 */
class SampledGaussianRdpReferenceTest {
  /** Relative tolerance against the mpmath values: 1e-9, as a percentage for AssertJ. */
  private static final double REL_1E9 = 1e-7;

  private static final double[] QS = {1e-4, 256.0 / 60000, 0.01, 0.1, 0.2, 0.341, 0.5, 0.6, 0.9, 0.999, 1};
  private static final double[] ZS = {0.3, 0.5, 0.8, 1, 2, 4, 10, 100};

  @ParameterizedTest(name = "q={0}, z={1}, alpha={2}")
  @CsvFileSource(resources = {"sgm_rdp_reference.csv", "sgm_rdp_reference_extra.csv"}, numLinesToSkip = 1)
  void matchesMpmathQuadrature(double q, double z, double alpha, double expected) {
    Evaluation e = SampledGaussianRdp.evaluate(q, z, alpha);
    assertThat(e.isExact()).as("method %s", e.method()).isTrue();
    assertThat(e.value()).isCloseTo(expected, withinPercentage(REL_1E9));
  }

  /** MTZ19 §3.2 at α = 2: A₂ = 1 + q²(e^{1/z²} − 1), a closed form independent of both methods. */
  @Test
  void orderTwoHasItsClosedForm() {
    for (double q : QS) {
      for (double z : ZS) {
        double expected = Math.log1p(q * q * Math.expm1(1 / (z * z)));
        assertThat(SampledGaussianRdp.rdp(q, z, 2)).as("q=%s z=%s", q, z)
            .isCloseTo(expected, withinPercentage(1e-10));
        // The quadrature has no special case for integers: it must find the same log(A₂ − 1).
        OptionalDouble quad = SgmQuadrature.logAMinusOne(q, z, 2);
        if (q < 1) {
          assertThat(quad).as("q=%s z=%s", q, z).isPresent();
          assertThat(quad.getAsDouble()).as("q=%s z=%s", q, z)
              .isCloseTo(Math.log(q * q * Math.expm1(1 / (z * z))), withinPercentage(1e-10));
        }
      }
    }
  }

  @Test
  void nonDecreasingInOrder() {
    for (double q : new double[] {256.0 / 60000, 0.341, 0.5, 0.9}) {
      for (double z : new double[] {0.5, 1, 4}) {
        double previous = 0;
        for (double a = 1.01; a < 70; a += 0.07) {
          double r = SampledGaussianRdp.rdp(q, z, a);
          assertThat(r).as("q=%s z=%s alpha=%s", q, z, a).isGreaterThanOrEqualTo(previous * (1 - 1e-10));
          previous = r;
        }
      }
    }
  }

  @Test
  void nonDecreasingInSamplingRateAndNonIncreasingInNoise() {
    for (double a : new double[] {1.1, 1.5, 2, 3.5, 10.5, 32}) {
      for (double z : ZS) {
        double previous = 0;
        for (double q = 0.01; q <= 1; q += 0.01) {
          double r = SampledGaussianRdp.rdp(q, z, a);
          assertThat(r).as("alpha=%s z=%s q=%s", a, z, q).isGreaterThanOrEqualTo(previous * (1 - 1e-10));
          previous = r;
        }
      }
      for (double q : QS) {
        double previous = Double.POSITIVE_INFINITY;
        for (double z = 0.3; z < 20; z *= 1.1) {
          double r = SampledGaussianRdp.rdp(q, z, a);
          assertThat(r).as("alpha=%s q=%s z=%s", a, q, z).isLessThanOrEqualTo(previous * (1 + 1e-10));
          previous = r;
        }
      }
    }
  }

  /** Where both the MTZ19 series and the quadrature settle they must agree, so switching is seamless. */
  @Test
  void seriesAndQuadratureAgreeWhereBothSettle() {
    int both = 0;
    for (double q : new double[] {1e-3, 256.0 / 60000, 0.01, 0.05, 0.1, 0.2, 0.3}) {
      for (double z : new double[] {0.5, 0.8, 1.1, 2, 4}) {
        for (double a : new double[] {1.1, 1.5, 2.5, 5.5, 10.5, 20.5, 40.5}) {
          OptionalDouble series = SgmSeries.logA(q, z, a);
          OptionalDouble quad = SgmQuadrature.logAMinusOne(q, z, a);
          if (series.isPresent() && quad.isPresent()) {
            both++;
            double fromQuad = Math.log1p(Math.exp(quad.getAsDouble()));
            assertThat(series.getAsDouble()).as("q=%s z=%s alpha=%s", q, z, a)
                .isCloseTo(fromQuad, withinPercentage(REL_1E9));
          }
        }
      }
    }
    assertThat(both).as("points where both methods settle").isGreaterThan(100);
  }

  /** Fractional orders next to an integer (quadrature or series) meet the binomial sum there. */
  @Test
  void continuousAcrossIntegerOrders() {
    for (double q : new double[] {256.0 / 60000, 0.1, 0.5, 0.9}) {
      for (double z : new double[] {0.5, 1.1, 4}) {
        for (int a : new int[] {2, 3, 8, 20}) {
          double atInteger = SampledGaussianRdp.rdp(q, z, a);
          for (double d : new double[] {-1e-7, 1e-7}) {
            double r = SampledGaussianRdp.rdp(q, z, a + d);
            // dRDP/dα ≤ 1/(2z²) + RDP/(α − 1): a step of 1e-7 moves the value by far less than 1e-5.
            assertThat(r).as("q=%s z=%s alpha=%s", q, z, a + d).isCloseTo(atInteger, withinPercentage(1e-3));
            assertThat(d < 0 ? r <= atInteger * (1 + 1e-9) : r >= atInteger * (1 - 1e-9)).isTrue();
          }
        }
      }
    }
  }

  /** The fallback bounds are above the exact value (log-convexity in α, Jensen) and not absurdly loose. */
  @Test
  void fallbackBoundsAreUpperBounds() {
    for (double q : new double[] {0.01, 0.341, 0.5, 0.9}) {
      for (double z : new double[] {0.5, 1, 4}) {
        for (double a : new double[] {1.1, 1.5, 3.5, 10.5, 32.5}) {
          double exact = SampledGaussianRdp.rdp(q, z, a);
          double interpolated = SampledGaussianRdp.integerOrderInterpolation(q, z, a);
          double jensen = SampledGaussianRdp.jensenBound(q, z, a);
          assertThat(interpolated).as("q=%s z=%s alpha=%s", q, z, a)
              .isGreaterThanOrEqualTo(exact * (1 - 1e-12))
              .isLessThanOrEqualTo(SampledGaussianRdp.rdp(q, z, Math.ceil(a)) * (1 + 1e-12));
          assertThat(jensen).as("q=%s z=%s alpha=%s", q, z, a).isGreaterThanOrEqualTo(exact * (1 - 1e-12))
              .isLessThanOrEqualTo(a / (2 * z * z) * (1 + 1e-12));
        }
      }
    }
  }

  @Test
  void ordersBeyondEveryMethodGiveAStatedUpperBound() {
    // α/z = 4e5 exceeds the quadrature budget and q = 1/2 defeats the series: interpolated integer orders.
    Evaluation mid = SampledGaussianRdp.evaluate(0.5, 0.5, 100_000.5);
    assertThat(mid.isExact()).isFalse();
    assertThat(mid.value()).isGreaterThanOrEqualTo(SampledGaussianRdp.rdp(0.5, 0.5, 100_000) * (1 - 1e-12))
        .isLessThanOrEqualTo(100_000.5 / 0.5);
    // An integer beyond the binomial sums, with α/z small enough for the quadrature: still exact, and
    // between the last binomial order (monotonicity) and Jensen's bound.
    Evaluation big = SampledGaussianRdp.evaluate(0.5, 100, 70_000);
    assertThat(big.method()).isEqualTo(Method.QUADRATURE);
    assertThat(big.value()).isGreaterThanOrEqualTo(SampledGaussianRdp.rdp(0.5, 100, 65_536))
        .isLessThanOrEqualTo(SampledGaussianRdp.jensenBound(0.5, 100, 70_000));
    // Beyond every method: Jensen, within log(1/q)/(α/(2z²)) of the exact value.
    Evaluation huge = SampledGaussianRdp.evaluate(0.01, 1, 1e300);
    assertThat(huge.method()).isEqualTo(Method.JENSEN_BOUND);
    assertThat(huge.value()).isCloseTo(0.5e300, withinPercentage(1e-10));
  }

  @Test
  void extremeInputsGiveInfinityOrANumberNeverNaN() {
    assertThat(SampledGaussianRdp.rdp(0.5, 1e-308, 1.1)).isInfinite();
    assertThat(SampledGaussianRdp.rdp(0.5, 1e-308, 2)).isInfinite();
    assertThat(SampledGaussianRdp.rdp(1e-300, 1e-308, 1e300)).isInfinite();
    assertThat(SampledGaussianRdp.rdp(0.5, 1e-200, Double.MAX_VALUE)).isInfinite();
    double[] qs = {Double.MIN_VALUE, 1e-300, 1e-8, 0.5, 1 - 1e-16, 1};
    double[] zs = {1e-308, 1e-154, 1e-3, 0.1, 1e3, 1e154, Double.MAX_VALUE};
    double[] alphas = {1 + 1e-15, 1.1, 2, 2.5, 1024.5, 1e6 + 0.5, 1e300, Double.MAX_VALUE};
    for (double q : qs) {
      for (double z : zs) {
        for (double a : alphas) {
          double r = SampledGaussianRdp.rdp(q, z, a);
          assertThat(r).as("q=%s z=%s alpha=%s", q, z, a).isNotNaN().isGreaterThanOrEqualTo(0);
          // Never above the unsampled Gaussian (q = 1) beyond rounding (a/2/z/z: 2z² may overflow).
          assertThat(r).as("q=%s z=%s alpha=%s", q, z, a).isLessThanOrEqualTo(a / 2 / z / z * (1 + 1e-9));
        }
      }
    }
  }

  /** The class Javadoc's example; 0.2351580344825310 from sgm_rdp_reference.csv (q=0.5, z=1, α=1.5). */
  @Test
  void javadocExampleRuns() {
    double r = SampledGaussianRdp.rdp(0.5, 1.0, 1.5);
    Evaluation e = SampledGaussianRdp.evaluate(0.5, 1.0, 1.5);
    RdpCurve step = SampledGaussianRdp.curve(256.0 / 60000, 1.1, Orders.DEFAULT);
    assertThat(r).isCloseTo(0.23515803448253101908, withinPercentage(REL_1E9));
    assertThat(e.isExact()).isTrue();
    assertThat(e.method()).isEqualTo(Method.QUADRATURE);
    assertThat(step.size()).isEqualTo(Orders.DEFAULT.size());
  }

  @Test
  void rejectsNaNWithTheValue() {
    assertThatThrownBy(() -> SampledGaussianRdp.rdp(Double.NaN, 1, 2)).hasMessageContaining("NaN");
    assertThatThrownBy(() -> SampledGaussianRdp.rdp(0.5, Double.NaN, 2)).hasMessageContaining("NaN");
    assertThatThrownBy(() -> SampledGaussianRdp.rdp(0.5, 1, Double.NaN)).hasMessageContaining("NaN");
    assertThatThrownBy(() -> SampledGaussianRdp.rdp(0.5, Double.POSITIVE_INFINITY, 2))
        .hasMessageContaining("Infinity");
  }
}
