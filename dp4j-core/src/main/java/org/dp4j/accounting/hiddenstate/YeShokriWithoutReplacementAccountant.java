package org.dp4j.accounting.hiddenstate;


import java.util.List;
import org.dp4j.accounting.LogSpace;

/**
 * Ye &amp; Shokri 2022, Thm 5.3 (Eqs. 18–21 = 134–137; docs/accountants.md#ye-shokri): a fresh batch of b drawn without
 * replacement at every step (Alg. 2), m = ⌊n/b⌋ steps per epoch, λ-strongly convex and β-smooth loss,
 * η &lt; 2/(λ+β). With S_0^0 = 1 and q = b/n, K·m times
 * S ← q·e^{(α−1)·G(α)}·S + (1 − q)·S^r, r = (1 − ηλ)² (Eq. 144's exponent corrected to (1−ηλ)²,
 * docs/errata.md#ye-shokri-theorem-5-3-exponent), and ε = log(S)/(α−1). Run in the log domain; stops early once an epoch leaves log S unchanged (the
 * fixed point). Loose for large α (the paper says so).
 *
 * <pre>{@code
 * // given: YeShokriConfig config
 * double rdp10 = new YeShokriWithoutReplacementAccountant(config).rdp(10.0);
 * }</pre>
 */
public final class YeShokriWithoutReplacementAccountant extends YeShokriBound {
  public static final String NAME = "ye-shokri-without-replacement";
  public static final String THEOREM = "Ye & Shokri 2022, Thm 5.3, Eqs. (18)-(21) (docs/accountants.md#ye-shokri)";

  private final double r;

  public YeShokriWithoutReplacementAccountant(YeShokriConfig config) {
    super(NAME, THEOREM, config);
    YeShokriDynamics.requireStronglyConvex(config, "Ye & Shokri Thm 5.3");
    double contraction = 1 - config().stepSize() * config().strongConvexity();
    this.r = contraction * contraction;
  }

  @Override
  double boundAt(double alpha) {
    double q = (double) config().batchSize() / config().datasetSize();
    double logHit = Math.log(q) + (alpha - 1) * config().stepRdp(alpha);
    double logMiss = Math.log1p(-q); // -∞ when q = 1: every step touches the record
    int m = config().stepsPerEpoch();
    double logS = 0;
    for (int k = 0; k < config().epochs(); k++) {
      double start = logS;
      for (int j = 0; j < m; j++) {
        logS = LogSpace.add(logHit + logS, logMiss + r * logS);
      }
      if (logS == start) {
        break;
      }
    }
    return logS / (alpha - 1);
  }

  @Override
  List<String> theoremAssumptions() {
    return List.of(YeShokriDynamics.lossAssumption(config()),
        "every step draws a fresh batch of b examples uniformly without replacement from all n");
  }
}
