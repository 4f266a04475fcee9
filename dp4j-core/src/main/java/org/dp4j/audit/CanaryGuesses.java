package org.dp4j.audit;

import static com.google.common.base.Preconditions.checkNotNull;
import static org.dp4j.InvalidSettingException.checkArgument;

import java.util.Comparator;
import java.util.stream.IntStream;

/**
 * The auditor's guesses from canary scores (Steinke, Nasr &amp; Jagielski 2023): "in" for the k⁺
 * highest scores, "out" for the k⁻ lowest, abstain on the rest; then the number of correct guesses against the coins.
 * Ties are broken by canary index, which is independent of the coins, so the guesses stay a function of the
 * training output alone, as the theorem requires.
 *
 * <pre>{@code
 * // given: double[] scores; CanaryCoins coins
 * CanaryGuesses g = CanaryGuesses.of(scores, coins.included(), 50, 50);
 * double eps = OneRunAudit.epsilonLowerBound(scores.length, g.guesses(), g.correct(), 1e-5, 0.95);
 * }</pre>
 *
 * @param guessedIn k⁺
 * @param guessedOut k⁻
 * @param correct guesses that match the coins
 */
public record CanaryGuesses(int guessedIn, int guessedOut, int correct) {
  public CanaryGuesses {
    checkArgument(guessedIn >= 0 && guessedOut >= 0, "k+ and k- must be >= 0, were %s and %s", guessedIn,
        guessedOut);
    checkArgument(correct >= 0 && correct <= guessedIn + guessedOut, "correct must be in [0, k+ + k- = %s], was %s",
        guessedIn + guessedOut, correct);
  }

  /**
   * Guesses "in" for the {@code kPlus} highest scores and "out" for the {@code kMinus} lowest.
   *
   * @param scores one finite score per canary, higher meaning "more likely included"
   * @param included the coins: whether each canary was included in training
   */
  public static CanaryGuesses of(double[] scores, boolean[] included, int kPlus, int kMinus) {
    checkNotNull(scores, "scores");
    checkNotNull(included, "included");
    int m = scores.length;
    checkArgument(included.length == m, "%s scores but %s coins", m, included.length);
    checkArgument(kPlus >= 0 && kMinus >= 0 && kPlus + kMinus <= m,
        "k+ and k- must be >= 0 with k+ + k- <= canaries = %s, were %s and %s", m, kPlus, kMinus);
    for (int i = 0; i < m; i++) {
      checkArgument(Double.isFinite(scores[i]), "score of canary %s is %s; scores must be finite", i,
          (Object) scores[i]);
    }
    Integer[] order = IntStream.range(0, m).boxed().toArray(Integer[]::new);
    java.util.Arrays.sort(order, Comparator.<Integer>comparingDouble(i -> -scores[i]).thenComparingInt(i -> i));
    int correct = 0;
    for (int j = 0; j < kPlus; j++) {
      correct += included[order[j]] ? 1 : 0;
    }
    for (int j = m - kMinus; j < m; j++) {
      correct += included[order[j]] ? 0 : 1;
    }
    return new CanaryGuesses(kPlus, kMinus, correct);
  }

  /** r = k⁺ + k⁻. */
  public int guesses() {
    return guessedIn + guessedOut;
  }
}
