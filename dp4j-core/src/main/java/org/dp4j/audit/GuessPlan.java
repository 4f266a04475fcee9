package org.dp4j.audit;

import static org.dp4j.InvalidSettingException.checkArgument;

import java.util.ArrayList;
import java.util.List;

/**
 * Which (k⁺, k⁻) the auditor tries, and how the confidence is paid for. Choosing the best of several guess counts
 * after seeing the scores is a multiple test: reporting the largest of G bounds each computed at confidence c would
 * overstate the lower bound. dp4j computes each of the G bounds at confidence 1 − (1 − c)/G (Bonferroni) and reports
 * the largest; by the union bound the reported value is a valid lower bound at confidence c (docs/auditing.md#guesses).
 * A single pre-registered (k⁺, k⁻) pays nothing.
 *
 * <pre>{@code
 * // given: double[] scores; boolean[] included
 * GuessPlan plan = GuessPlan.symmetricSweep(1000);   // k = 10, 20, 50, 100, 200, 500, 1000 guesses, half each side
 * AuditBound bound = plan.bound(scores, included, 1e-5, 0.95);
 * }</pre>
 */
public final class GuessPlan {
  private static final int[] SWEEP = {10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000, 20000, 50000, 100000};
  private final List<int[]> candidates;

  private GuessPlan(List<int[]> candidates) {
    checkArgument(!candidates.isEmpty(), "a guess plan needs at least one (k+, k-)");
    this.candidates = List.copyOf(candidates);
  }

  /** One pre-registered (k⁺, k⁻): no correction. */
  public static GuessPlan fixed(int kPlus, int kMinus) {
    checkArgument(kPlus >= 0 && kMinus >= 0 && kPlus + kMinus > 0,
        "k+ and k- must be >= 0 and not both 0, were %s and %s", kPlus, kMinus);
    return new GuessPlan(List.of(new int[] {kPlus, kMinus}));
  }

  /**
   * k = 10, 20, 50, 100, 200, 500, … guesses up to m (at most 13 candidates), split evenly between the highest
   * ("in") and lowest ("out") scores, Bonferroni-corrected.
   */
  public static GuessPlan symmetricSweep(int canaries) {
    checkArgument(canaries >= 2, "a symmetric sweep needs at least 2 canaries, was %s", canaries);
    List<int[]> c = new ArrayList<>();
    for (int k : SWEEP) {
      if (k <= canaries) {
        c.add(new int[] {k / 2, k - k / 2});
      }
    }
    if (c.isEmpty()) {
      c.add(new int[] {canaries / 2, canaries - canaries / 2});
    }
    return new GuessPlan(c);
  }

  /**
   * The largest bound this plan can report for m canaries, whatever the scores: the largest over its candidates of
   * the all-correct bound at confidence 1 − (1 − confidence)/G (docs/auditing.md#cap).
   */
  public double cap(int canaries, double delta, double confidence) {
    checkArgument(confidence > 0 && confidence < 1, "confidence must be in (0, 1), was %s", confidence);
    double perTest = 1 - (1 - confidence) / candidates.size();
    double cap = 0;
    for (int[] k : candidates) {
      checkArgument(k[0] + k[1] <= canaries, "k+ + k- = %s exceeds the %s canaries", k[0] + k[1], canaries);
      cap = Math.max(cap, OneRunAudit.maximumLowerBound(canaries, k[0] + k[1], delta, perTest));
    }
    return cap;
  }

  /** Number of candidates G (the Bonferroni divisor). */
  public int size() {
    return candidates.size();
  }

  /**
   * The largest bound over the candidates, each at confidence 1 − (1 − confidence)/G; the result names the
   * candidate that attained it and the confidence actually used for it.
   */
  public AuditBound bound(double[] scores, boolean[] included, double delta, double confidence) {
    checkArgument(confidence > 0 && confidence < 1, "confidence must be in (0, 1), was %s", confidence);
    double perTest = 1 - (1 - confidence) / candidates.size();
    AuditBound best = null;
    for (int[] k : candidates) {
      checkArgument(k[0] + k[1] <= scores.length, "k+ + k- = %s exceeds the %s canaries", k[0] + k[1],
          scores.length);
      CanaryGuesses g = CanaryGuesses.of(scores, included, k[0], k[1]);
      double eps = OneRunAudit.epsilonLowerBound(scores.length, g.guesses(), g.correct(), delta, perTest);
      if (best == null || eps > best.epsilonLowerBound()) {
        best = new AuditBound(scores.length, g, delta, confidence, perTest, candidates.size(), eps);
      }
    }
    return best;
  }
}
