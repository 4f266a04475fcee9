package org.dp4j.audit;

import static com.google.common.base.Preconditions.checkNotNull;
import static org.dp4j.InvalidSettingException.checkArgument;

import java.util.Locale;

/**
 * A measured lower bound on ε from one audited run: with probability at least {@code confidence}, the audited
 * algorithm is not (ε, δ)-DP for any ε below {@code epsilonLowerBound} (Steinke, Nasr &amp; Jagielski 2023; see
 * {@link OneRunAudit}). It says nothing about how private the algorithm is, only how private it is not.
 *
 * @param canaries m
 * @param guesses the guesses that attained the bound
 * @param delta the δ of the null hypothesis (the δ of the certified bound it is compared with)
 * @param confidence the overall confidence c
 * @param perTestConfidence the confidence used for this candidate (c, or 1 − (1 − c)/G after a sweep of G)
 * @param candidates G, the number of (k⁺, k⁻) tried
 * @param epsilonLowerBound the bound, ≥ 0
 */
public record AuditBound(int canaries, CanaryGuesses guesses, double delta, double confidence,
    double perTestConfidence, int candidates, double epsilonLowerBound) {
  public AuditBound {
    checkNotNull(guesses, "guesses");
    checkArgument(epsilonLowerBound >= 0 && Double.isFinite(epsilonLowerBound),
        "epsilonLowerBound must be finite and >= 0, was %s", epsilonLowerBound);
  }

  /**
   * The method's cap for these guesses: the bound that all r of them correct would give at the same m, δ and
   * per-candidate confidence ({@link OneRunAudit#maximumLowerBound}). A bound at its cap is limited by the one-run
   * method (its δ term grows with m), not by the mechanism under audit (docs/auditing.md#cap).
   */
  public double epsilonLowerBoundCap() {
    return OneRunAudit.maximumLowerBound(canaries, guesses.guesses(), delta, perTestConfidence);
  }

  /** One line: the bound, its δ and confidence, the guesses behind it and the method's cap for them. */
  public String summary() {
    return String.format(Locale.ROOT, "epsilon >= %.4f at delta %s with %.0f%% confidence (%d of %d guesses correct, "
            + "k+ = %d, k- = %d, %d canaries, %s; cap of the method for these guesses, all correct: %.4f)",
        epsilonLowerBound, delta, 100 * confidence, guesses.correct(), guesses.guesses(), guesses.guessedIn(),
        guesses.guessedOut(), canaries, candidates == 1 ? "one pre-registered guess count"
            : "best of " + candidates + " guess counts, Bonferroni-corrected", epsilonLowerBoundCap());
  }
}
