package org.dp4j.audit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;
import static org.assertj.core.api.Assertions.withinPercentage;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvFileSource;

/**
 * The one-run bound against an independent 50-digit mpmath computation of the exact p-value and of its bisection
 * ({@code src/test/python/one_run_audit_reference.py}, which writes the CSV; its "cap" rows are the all-correct
 * bounds of docs/auditing.md#cap up to m = 10⁵, to 1e-6), against the two values the paper prints, and its properties.
 */
class OneRunAuditReferenceTest {

  @ParameterizedTest(name = "{0} m={1} r={2} v={3} delta={4} x={5}")
  @CsvFileSource(resources = "one_run_audit_reference.csv", numLinesToSkip = 1)
  void matchesMpmath(String kind, int m, int r, int v, double delta, double x, double expected) {
    if (kind.equals("p")) {
      assertThat(OneRunAudit.pValue(m, r, v, x, delta)).isCloseTo(expected, withinPercentage(1e-7));
    } else if (kind.equals("cap")) {
      assertThat(OneRunAudit.maximumLowerBound(m, r, delta, x)).isCloseTo(expected, within(1e-6));
    } else {
      assertThat(OneRunAudit.epsilonLowerBound(m, r, v, delta, x)).isCloseTo(expected, within(1e-6));
    }
  }

  /** Steinke, Nasr & Jagielski 2023, App. D (0.673) and §7 (2.675), as printed (rounded to 3 decimals). */
  @Test
  void reproducesThePublishedValues() {
    assertThat(OneRunAudit.epsilonLowerBound(1000, 100, 75, 1e-4, 0.95)).isCloseTo(0.673, within(5e-4));
    assertThat(OneRunAudit.epsilonLowerBound(100_000, 1510, 1439, 1e-5, 0.95)).isCloseTo(2.6755, within(1e-3));
  }

  @Test
  void boundGrowsWithCorrectGuessesAndShrinksWithConfidenceAndDelta() {
    double previous = -1;
    for (int v = 50; v <= 100; v += 5) {
      double eps = OneRunAudit.epsilonLowerBound(1000, 100, v, 1e-5, 0.95);
      assertThat(eps).as("v=%s", v).isGreaterThanOrEqualTo(previous);
      previous = eps;
    }
    assertThat(OneRunAudit.epsilonLowerBound(1000, 100, 90, 1e-5, 0.99))
        .isLessThan(OneRunAudit.epsilonLowerBound(1000, 100, 90, 1e-5, 0.95));
    assertThat(OneRunAudit.epsilonLowerBound(1000, 100, 90, 1e-3, 0.95))
        .isLessThan(OneRunAudit.epsilonLowerBound(1000, 100, 90, 0, 0.95));
  }

  /** Coin-flip accuracy certifies nothing; the p-value at the returned bound is below the level, just above it not. */
  @Test
  void boundIsTheEdgeOfSignificance() {
    assertThat(OneRunAudit.epsilonLowerBound(1000, 1000, 500, 1e-5, 0.95)).isZero();
    double eps = OneRunAudit.epsilonLowerBound(1000, 500, 400, 1e-5, 0.95);
    assertThat(OneRunAudit.pValue(1000, 500, 400, eps, 1e-5)).isLessThan(0.05);
    assertThat(OneRunAudit.pValue(1000, 500, 400, eps + 1e-6, 1e-5)).isGreaterThanOrEqualTo(0.05);
  }

  /** With δ = 0 and all r guesses correct, p(ε) = q^r, so the bound solves r·log(1 + e^−ε) = log(1/0.05). */
  @Test
  void allCorrectWithoutDeltaHasAClosedForm() {
    for (int r : new int[] {10, 100, 1000}) {
      double expected = -Math.log(Math.expm1(Math.log(20) / r));
      assertThat(OneRunAudit.maximumLowerBound(1000, r, 0, 0.95)).as("r=%s", r).isCloseTo(expected, within(1e-6));
    }
  }

  @Test
  void rejectsImpossibleCounts() {
    assertThatThrownBy(() -> OneRunAudit.pValue(10, 11, 3, 1, 0)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("guesses must be in [0, canaries = 10], was 11");
    assertThatThrownBy(() -> OneRunAudit.epsilonLowerBound(10, 5, 6, 0, 0.95))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("was 6");
    assertThatThrownBy(() -> OneRunAudit.epsilonLowerBound(10, 5, 3, 0, 1.0))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("confidence must be in (0, 1), was 1.0");
  }
}
