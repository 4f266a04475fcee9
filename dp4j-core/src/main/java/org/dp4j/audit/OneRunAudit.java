package org.dp4j.audit;

import static org.dp4j.InvalidSettingException.checkArgument;

import org.apache.commons.math3.special.Gamma;

/**
 * The one-run lower bound on ε of Steinke, Nasr &amp; Jagielski, "Privacy Auditing with One (1) Training Run",
 * NeurIPS 2023 (arXiv 2305.08846). m canaries are each included in the training data independently with probability
 * ½; after training the auditor guesses "in" or "out" for r of them (abstaining on the rest) and v guesses are
 * correct. If the training algorithm is (ε, δ)-DP, v is at most Binomial(r, e^ε/(1+e^ε)) plus a δ term; the
 * p-value of the observed v is (their Cor. 5.4, as computed by the algorithm of their App. D)
 * <pre>
 *   p(ε) = P[Bin(r, q) ≥ v] + 2mδ · max_{1≤i≤v} P[v−i ≤ Bin(r, q) &lt; v] / i,   q = e^ε / (1 + e^ε),
 * </pre>
 * capped at 1. The lower bound at confidence c is the largest ε with p(ε) &lt; 1 − c: with probability at least c
 * over the coins and the training run, an algorithm that is (ε, δ)-DP for that ε does not produce as many correct
 * guesses, so the run is evidence that the algorithm is <i>not</i> (ε, δ)-DP for any smaller ε. It is a statement
 * about the algorithm under audit, never an upper bound; docs/auditing.md#what-it-means.
 *
 * <p>Accuracy: binomial probabilities from log-gamma in double precision; p(ε) within 1e-9 relative of an
 * independent 50-digit computation, the bound within 1e-6 absolute (tested against
 * {@code src/test/python/one_run_audit_reference.py} and the paper's two published values).
 *
 * <pre>{@code
 * double eps = OneRunAudit.epsilonLowerBound(1000, 100, 75, 1e-4, 0.95);   // 0.673 (Steinke et al., App. D)
 * }</pre>
 */
public final class OneRunAudit {
  /** Bisection stops when the bracket is this narrow (the returned value is its lower end, as in App. D). */
  static final double TOLERANCE = 1e-9;
  /** p(ε) at ε = 745 is 1 for every v ≤ r ≤ 2³¹: e^(−745) underflows, so no larger bound can be certified. */
  private static final double EPSILON_CAP = 745;

  private OneRunAudit() {}

  /**
   * p-value of v or more correct guesses out of r under the null hypothesis that the algorithm is (ε, δ)-DP.
   *
   * @param canaries m, the number of canaries (each included with probability ½)
   * @param guesses r ≤ m, guesses made (abstentions excluded)
   * @param correct v ≤ r, correct guesses
   */
  public static double pValue(int canaries, int guesses, int correct, double epsilon, double delta) {
    checkCounts(canaries, guesses, correct);
    checkArgument(epsilon >= 0 && Double.isFinite(epsilon), "epsilon must be finite and >= 0, was %s", epsilon);
    checkDelta(delta);
    return pValueUnchecked(canaries, guesses, correct, epsilon, delta);
  }

  /**
   * The largest ε (to within 1e-9) for which the observed count is significant at {@code confidence}, i.e.
   * p(ε) &lt; 1 − confidence; 0 when even p(0) is not (the guesses are no better than coin flips).
   */
  public static double epsilonLowerBound(int canaries, int guesses, int correct, double delta, double confidence) {
    checkCounts(canaries, guesses, correct);
    checkDelta(delta);
    checkArgument(confidence > 0 && confidence < 1, "confidence must be in (0, 1), was %s", confidence);
    double level = 1 - confidence;
    if (pValueUnchecked(canaries, guesses, correct, 0, delta) >= level) {
      return 0;
    }
    // Bracket [lo, hi] with p(lo) < level <= p(hi), doubling hi as App. D does, then bisect.
    double lo = 0;
    double hi = 1;
    while (hi < EPSILON_CAP && pValueUnchecked(canaries, guesses, correct, hi, delta) < level) {
      lo = hi;
      hi = Math.min(2 * hi, EPSILON_CAP);
    }
    while (hi - lo > TOLERANCE) {
      double mid = 0.5 * (lo + hi);
      if (pValueUnchecked(canaries, guesses, correct, mid, delta) < level) {
        lo = mid;
      } else {
        hi = mid;
      }
    }
    return lo;
  }

  /**
   * The largest bound any outcome of r guesses can give (all r correct): the audit cannot show more than this,
   * whatever the algorithm does (about ln(r / ln(1/(1−c))) for δ = 0; for δ &gt; 0 the 2mδ term keeps it below
   * about 8.25 at δ = 1e-5 and c = 0.95 for every m, docs/auditing.md#cap).
   */
  public static double maximumLowerBound(int canaries, int guesses, double delta, double confidence) {
    return epsilonLowerBound(canaries, guesses, guesses, delta, confidence);
  }

  private static double pValueUnchecked(int m, int r, int v, double epsilon, double delta) {
    // log q and log(1 − q) for q = e^ε/(1+e^ε), without cancellation at large ε.
    double logQ = -Math.log1p(Math.exp(-epsilon));
    double logNotQ = -epsilon + logQ;
    double beta = 0;
    for (int k = v; k <= r; k++) {
      beta += Math.exp(logPmf(k, r, logQ, logNotQ));
    }
    double alpha = 0;
    if (delta > 0) {
      double below = 0;   // P[v − i ≤ Bin(r, q) < v]
      for (int i = 1; i <= v; i++) {
        below += Math.exp(logPmf(v - i, r, logQ, logNotQ));
        alpha = Math.max(alpha, below / i);
      }
    }
    return Math.min(1.0, beta + alpha * delta * 2 * m);
  }

  private static double logPmf(int k, int n, double logQ, double logNotQ) {
    double logChoose = Gamma.logGamma(n + 1.0) - Gamma.logGamma(k + 1.0) - Gamma.logGamma(n - k + 1.0);
    return logChoose + (k == 0 ? 0 : k * logQ) + (k == n ? 0 : (n - k) * logNotQ);
  }

  static void checkCounts(int canaries, int guesses, int correct) {
    checkArgument(canaries > 0, "canaries must be > 0, was %s", canaries);
    checkArgument(guesses >= 0 && guesses <= canaries, "guesses must be in [0, canaries = %s], was %s", canaries,
        guesses);
    checkArgument(correct >= 0 && correct <= guesses, "correct guesses must be in [0, guesses = %s], was %s",
        guesses, correct);
  }

  private static void checkDelta(double delta) {
    checkArgument(delta >= 0 && delta < 1, "delta must be in [0, 1), was %s", delta);
  }
}
