package org.dp4j.accounting.hiddenstate;


import java.util.ArrayList;
import java.util.List;

/**
 * Ye &amp; Shokri 2022, Thm 5.2 (Eqs. 15–17 = 124–127; docs/accountants.md#ye-shokri): shuffle once and partition (Alg. 1),
 * λ-strongly convex and β-smooth loss, η &lt; 2/(λ+β), m ≥ 2, K ≥ 1. For every record,
 * ε(α, K) = T1(K) + T2(α) with T2(α) = (1/(α−1))·log((1/m)·Σ_{j=1..m} e^{(α−1)·ε_0^j(α)}), the average over
 * the secret batch position (Lemma 5.1), computed with a log-sum-exp (docs/accountants.md#ye-shokri).
 *
 * <pre>{@code
 * // given: YeShokriConfig config
 * double rdp10 = new YeShokriShuffleAccountant(config).rdp(10.0);
 * }</pre>
 */
public final class YeShokriShuffleAccountant extends YeShokriBound {
  public static final String NAME = "ye-shokri-shuffle";
  public static final String THEOREM = "Ye & Shokri 2022, Thm 5.2, Eqs. (15)-(17) (docs/accountants.md#ye-shokri)";

  private final YeShokriDynamics dynamics;

  public YeShokriShuffleAccountant(YeShokriConfig config) {
    super(NAME, THEOREM, config);
    this.dynamics = new YeShokriDynamics(config, "Ye & Shokri Thm 5.2");
  }

  @Override
  double boundAt(double alpha) {
    return dynamics.firstTerm(alpha) + secondTerm(alpha);
  }

  /** T2(α), independent of K; between ε_0^m and ε_0^1 = G(α). */
  double secondTerm(double alpha) {
    int m = dynamics.stepsPerEpoch();
    double[] x = new double[m];
    for (int j = 1; j <= m; j++) {
      x[j - 1] = (alpha - 1) * dynamics.firstEpochRdp(j, alpha);
    }
    return LogMeanExp.of(x) / (alpha - 1);
  }

  @Override
  List<String> theoremAssumptions() {
    List<String> list = new ArrayList<>(dynamics.assumptions());
    list.add("one secret, data-independent permutation drawn once and split into m batches visited in the same"
        + " order every epoch (no reshuffling)");
    return list;
  }
}
