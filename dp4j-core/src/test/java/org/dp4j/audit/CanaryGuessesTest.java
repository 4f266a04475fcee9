package org.dp4j.audit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.stream.IntStream;
import org.dp4j.noise.AesCtrRandom;
import org.junit.jupiter.api.Test;

class CanaryGuessesTest {

  @Test
  void guessesInForTheHighestAndOutForTheLowestScores() {
    double[] scores = {0.9, -1.0, 0.1, 2.0, -0.5, 0.0};
    boolean[] in = {true, false, false, true, true, false};
    // Order by score: 3 (in), 0 (in), 2, 5, 4 (in), 1 (out).
    CanaryGuesses g = CanaryGuesses.of(scores, in, 2, 2);
    assertThat(g.guesses()).isEqualTo(4);
    assertThat(g.correct()).isEqualTo(3);   // 3 in, 0 in, 1 out correct; 4 guessed out but in
    assertThat(CanaryGuesses.of(scores, in, 3, 0).correct()).isEqualTo(2);
  }

  @Test
  void tiesAreBrokenByIndexNotByTheCoins() {
    double[] scores = new double[4];
    assertThat(CanaryGuesses.of(scores, new boolean[] {true, true, false, false}, 2, 0).correct()).isEqualTo(2);
    assertThat(CanaryGuesses.of(scores, new boolean[] {false, false, true, true}, 2, 0).correct()).isZero();
  }

  /**
   * Bonferroni: a sweep of G candidates reports the largest bound at per-test confidence 1 − 0.05/G, so it never
   * exceeds the largest uncorrected one; on perfectly separated scores it still grows with the guesses.
   */
  @Test
  void sweepPaysForItsCandidates() {
    int m = 1000;
    CanaryCoins coins = CanaryCoins.draw(m, AesCtrRandom.insecureFixedSeed(7));
    double[] perfect = new double[m];
    for (int i = 0; i < m; i++) {
      perfect[i] = coins.included(i) ? 1 + i : -1 - i;
    }
    GuessPlan sweep = GuessPlan.symmetricSweep(m);
    assertThat(sweep.size()).isEqualTo(7);
    AuditBound b = sweep.bound(perfect, coins.included(), 1e-5, 0.95);
    assertThat(b.perTestConfidence()).isCloseTo(1 - 0.05 / 7, within(1e-15));
    double best = 0;
    for (int k : new int[] {10, 20, 50, 100, 200, 500, 1000}) {
      CanaryGuesses g = CanaryGuesses.of(perfect, coins.included(), k / 2, k - k / 2);
      double eps = OneRunAudit.epsilonLowerBound(m, g.guesses(), g.correct(), 1e-5, 1 - 0.05 / 7);
      best = Math.max(best, eps);
      assertThat(OneRunAudit.epsilonLowerBound(m, g.guesses(), g.correct(), 1e-5, 0.95)).isGreaterThan(eps);
    }
    assertThat(b.epsilonLowerBound()).isEqualTo(best);
    AuditBound single = GuessPlan.fixed(500, 500).bound(perfect, coins.included(), 1e-5, 0.95);
    assertThat(single.perTestConfidence()).isEqualTo(0.95);
    assertThat(single.candidates()).isEqualTo(1);
  }

  /**
   * The cap is the all-correct bound of the guesses actually made (mpmath: 4.533202 for 500 guesses of m = 1000 at
   * 1 − 0.05/7; 5.229319 for 1000); perfect scores reach it, two wrong guesses stay below it, and the sweep's cap
   * is its largest candidate's (one_run_audit_reference.py, cap rows).
   */
  @Test
  void capIsWhatAllCorrectGuessesWouldShow() {
    int m = 1000;
    CanaryCoins coins = CanaryCoins.draw(m, AesCtrRandom.insecureFixedSeed(11));
    double[] perfect = new double[m];
    for (int i = 0; i < m; i++) {
      perfect[i] = coins.included(i) ? 1 : 0;
    }
    int in = coins.includedCount();
    AuditBound all = GuessPlan.fixed(in, m - in).bound(perfect, coins.included(), 1e-5, 0.95);
    assertThat(all.guesses().correct()).isEqualTo(m);
    assertThat(all.epsilonLowerBound()).isEqualTo(all.epsilonLowerBoundCap()).isCloseTo(5.7822831, within(1e-6));
    assertThat(all.summary()).contains("one pre-registered guess count", "all correct: 5.7823");
    double[] twoWrong = perfect.clone();
    int firstIn = IntStream.range(0, m).filter(coins::included).findFirst().orElseThrow();
    twoWrong[firstIn] = -1;   // below every excluded canary: one wrong "out" and so one wrong "in"
    AuditBound below = GuessPlan.fixed(in, m - in).bound(twoWrong, coins.included(), 1e-5, 0.95);
    assertThat(below.epsilonLowerBound()).isLessThan(below.epsilonLowerBoundCap() - 0.1);
    GuessPlan sweep = GuessPlan.symmetricSweep(m);
    assertThat(sweep.cap(m, 1e-5, 0.95)).isCloseTo(5.2293193, within(1e-6));
    AuditBound swept = sweep.bound(perfect, coins.included(), 1e-5, 0.95);
    assertThat(swept.epsilonLowerBound()).isLessThanOrEqualTo(sweep.cap(m, 1e-5, 0.95));
    AuditBound half = GuessPlan.fixed(250, 250).bound(perfect, coins.included(), 1e-5, 1 - 0.05 / 7);
    assertThat(half.epsilonLowerBoundCap()).isCloseTo(4.5332024, within(1e-6));
  }

  @Test
  void coinsAreFairAndFlagTheirSource() {
    CanaryCoins coins = CanaryCoins.draw(100_000, AesCtrRandom.insecureFixedSeed(3));
    // Binomial(1e5, 1/2): 50000 ± 5·158 (two-sided false failure 5.7e-7).
    assertThat((double) coins.includedCount()).isCloseTo(50_000, within(5 * Math.sqrt(25_000.0)));
    assertThat(coins.isSecure()).isFalse();
    assertThat(CanaryCoins.draw(3, AesCtrRandom.secure()).isSecure()).isTrue();
  }

  @Test
  void rejectsBadInput() {
    assertThatThrownBy(() -> CanaryGuesses.of(new double[3], new boolean[3], 2, 2))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("k+ + k- <= canaries = 3");
    assertThatThrownBy(() -> CanaryGuesses.of(new double[] {1, Double.NaN}, new boolean[2], 1, 0))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("score of canary 1 is NaN");
  }
}
