package org.dp4j.accounting.hiddenstate;

import static org.dp4j.InvalidSettingException.checkArgument;

import java.util.ArrayList;
import java.util.List;

/**
 * The strongly convex privacy dynamics shared by Ye &amp; Shokri's Thms 4.4 and 5.2 (Lemma 4.2 with the LSI
 * sequence of Lemma B.4; docs/accountants.md#ye-shokri), with r = (1 − ηλ)² and S(t) = (1 − r^t)/(1 − r)
 * evaluated through expm1/log1p. Validates the theorems' conditions λ &gt; 0, m ≥ 2, η &lt; 2/(λ + β).
 */
final class YeShokriDynamics {
  /** The batch assumption of Thms 4.3 and 4.4, whose bound is for the worst batch position. */
  static final String FIXED_BATCHES = "fixed batches B^0..B^{m-1} visited in the same order every epoch; bound"
      + " for the worst batch (the last), valid even if the partition is public";

  private final YeShokriConfig config;
  private final int m;
  private final int h;
  private final double logR;
  private final double oneMinusR;

  YeShokriDynamics(YeShokriConfig config, String theorem) {
    this.config = config;
    requireStronglyConvex(config, theorem);
    double eta = config.stepSize();
    double lambda = config.strongConvexity();
    this.m = config.stepsPerEpoch();
    checkArgument(m >= 2, "%s needs at least two batches per epoch: m = ⌊n/b⌋ = %s violates m >= 2", theorem, m);
    this.h = m / 2;
    this.logR = 2 * Math.log1p(-eta * lambda);
    this.oneMinusR = eta * lambda * (2 - eta * lambda);
  }

  /** Refuses λ = 0 and η ≥ 2/(λ+β), the conditions of Thms 4.4, 4.5, 5.2 and 5.3. */
  static void requireStronglyConvex(YeShokriConfig config, String theorem) {
    double lambda = config.strongConvexity();
    checkArgument(lambda > 0, "%s needs a strongly convex loss: λ = %s violates λ > 0", theorem, lambda);
    requireStepBelow(config.stepSize(), 2 / (lambda + config.smoothness()), "2/(λ+β)", theorem);
  }

  /** The loss conditions of the strongly convex theorems, as printed in a guarantee. */
  static String lossAssumption(YeShokriConfig config) {
    return String.format("loss λ-strongly convex and β-smooth with λ = %s, β = %s (%s); η < 2/(λ+β)",
        config.strongConvexity(), config.smoothness(), config.lossConstantsSource());
  }

  /** Refuses η ≥ limit with a message such as "η = 0.6 violates η < 2/(λ+β) = 0.4". */
  static void requireStepBelow(double eta, double limit, String limitName, String theorem) {
    checkArgument(eta < limit, "%s: η = %s violates η < %s = %s", theorem, eta, limitName, limit);
  }

  int stepsPerEpoch() {
    return m;
  }

  /** r = (1 − ηλ)², the squared Lipschitz constant of the gradient step. */
  double r() {
    return Math.exp(logR);
  }

  /** 1 − r^x, stable for r near 1. */
  private double oneMinusRPower(double x) {
    return -Math.expm1(x * logR);
  }

  /** ε_0^j(α) = G(α)·r^{j−1}/S(j), j ≥ 1: one epoch from a point start, record in the first batch (Eq. 12). */
  double firstEpochRdp(int j, double alpha) {
    return config.stepRdp(alpha) * Math.exp((j - 1) * logR) * oneMinusR / oneMinusRPower(j);
  }

  /**
   * T1(K) = ε_0^h·(1 − r^{(K−1)(m−h)})/(1 − r^{m−h}) (first term of Eqs. 11, 15), times r^{m−h} in the TIGHT
   * variant (Eq. 118; docs/errata.md#ye-shokri-first-term). 0 for K = 1.
   */
  double firstTerm(double alpha) {
    int k = config.epochs();
    double t1 = firstEpochRdp(h, alpha) * oneMinusRPower((k - 1.0) * (m - h)) / oneMinusRPower(m - h);
    return config.firstTerm() == YeShokriConfig.FirstTerm.TIGHT ? t1 * Math.exp((m - h) * logR) : t1;
  }

  /** The loss conditions and, if used, the TIGHT first term. */
  List<String> assumptions() {
    List<String> list = new ArrayList<>();
    list.add(lossAssumption(config));
    if (config.firstTerm() == YeShokriConfig.FirstTerm.TIGHT) {
      list.add("first term with the factor r^{m-h} of the proof's Eq. (118) (docs/errata.md#ye-shokri-first-term)");
    }
    return list;
  }
}
