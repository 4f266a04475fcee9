package org.dp4j.accounting.hiddenstate;

import static org.dp4j.InvalidSettingException.checkArgument;

/**
 * Parameter choice of Kong &amp; Ribero 2025 Cor. C.2 (no clipping, m &gt; 0): the stepsize λ̄ =
 * 1/(2(M+m)), the minimum number of batches per pass ℓ̄ = log 2 / log(1 + mλ̄), and the noise σ̄ that
 * makes the run (α, ε)-RDP by eq. (19) — with the <em>corrected</em> σ̄ of docs/errata.md#kong-ribero-corollary-c2 (erratum
 * E4: the printed σ̄ is 4α too small and only gives 16α²ε).
 *
 * <pre>{@code
 * var c2 = new KongRiberoCorollaryC2(2, 1, 1, 3, 1, 10, 5);   // α, ε, m, M, C, b, E
 * double sigma = c2.sigmaBar();           // 0.0866025403784 (parameter-space noise std)
 * double lambda = c2.lambdaBar();         // 0.125
 * long ell = c2.minBatchesPerEpoch();     // 6
 * }</pre>
 *
 * @param alpha Rényi order α &gt; 1
 * @param epsilon target RDP ε &gt; 0 at order α
 * @param m weak-convexity constant, &gt; 0 (Lemma C.1 needs L_λ &gt; 1)
 * @param M smoothness constant, ≥ 0
 * @param C a-priori gradient bound (no clipping happens), &gt; 0
 * @param b batch size ≥ 1
 * @param E number of passes ≥ 1
 */
public record KongRiberoCorollaryC2(double alpha, double epsilon, double m, double M, double C, long b, long E) {
  public KongRiberoCorollaryC2 {
    checkArgument(alpha > 1 && Double.isFinite(alpha), "α must be finite and > 1, was %s", alpha);
    checkArgument(epsilon > 0 && Double.isFinite(epsilon), "ε must be finite and > 0, was %s", epsilon);
    checkArgument(m > 0 && Double.isFinite(m),
        "m must be finite and > 0 (Cor. C.2 excludes m = 0: ℓ̄ = ∞), was %s", m);
    checkArgument(M >= 0 && Double.isFinite(M), "M must be finite and >= 0, was %s", M);
    checkArgument(C > 0 && Double.isFinite(C), "C must be finite and > 0, was %s", C);
    checkArgument(b >= 1, "b must be >= 1, was %s", b);
    checkArgument(E >= 1, "E must be >= 1, was %s", E);
  }

  /** λ̄(m) = 1/(2(M+m)). */
  public double lambdaBar() {
    return 1 / (2 * (M + m));
  }

  /** ℓ̄(m) = log 2 / log(1 + mλ̄(m)). */
  public double ellBar() {
    return Math.log(2) / Math.log1p(m * lambdaBar());
  }

  /** The smallest integer ℓ ≥ ℓ̄(m): the corollary needs at least this many batches per pass. */
  public long minBatchesPerEpoch() {
    return (long) Math.ceil(ellBar());
  }

  /** Corrected σ̄ = (2λ̄C/b)·√(α(1 + 4Em/(M+m))/ε) (Kong &amp; Ribero 2025; docs/errata.md#kong-ribero-corollary-c2). */
  public double sigmaBar() {
    return 2 * lambdaBar() * C / b * Math.sqrt(alpha * (1 + 4.0 * E * m / (M + m)) / epsilon);
  }

  /**
   * σ̄ as printed, (Cλ̄/(2b))·√((1 + ⌈4m/(M+m)⌉E)/(αε)). Does <em>not</em> achieve ε (it gives 16α²ε);
   * only for reproducing the paper.
   */
  public double sigmaBarAsPrinted() {
    return C * lambdaBar() / (2 * b) * Math.sqrt((1 + Math.ceil(4 * m / (M + m)) * E) / (alpha * epsilon));
  }
}
