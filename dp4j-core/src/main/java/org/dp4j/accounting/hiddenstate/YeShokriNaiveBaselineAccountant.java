package org.dp4j.accounting.hiddenstate;


import java.util.List;

/**
 * Ye &amp; Shokri 2022, Thm 4.5 (Eq. 13; docs/accountants.md#ye-shokri): the naive privacy-dynamics baseline of Chourasia et
 * al. for fixed batches, λ-strongly convex and β-smooth loss, η &lt; 2/(λ+β):
 * ε ≤ α·S_g²/(λσ²b²)·(1 − e^{−ληK/2}) for every record. K counts epochs here (docs/errata.md#ye-shokri-theorem-4-5-epochs: in Chourasia
 * et al. K counts iterations, which equal epochs only for full batches). A baseline to compare against.
 *
 * <pre>{@code
 * // given: YeShokriConfig config
 * double rdp10 = new YeShokriNaiveBaselineAccountant(config).rdp(10.0);
 * }</pre>
 */
public final class YeShokriNaiveBaselineAccountant extends YeShokriBound {
  public static final String NAME = "ye-shokri-naive-baseline";
  public static final String THEOREM = "Ye & Shokri 2022, Thm 4.5 (Chourasia et al. baseline), Eq. (13)"
      + " (docs/accountants.md#ye-shokri)";

  public YeShokriNaiveBaselineAccountant(YeShokriConfig config) {
    super(NAME, THEOREM, config);
    YeShokriDynamics.requireStronglyConvex(config, "Ye & Shokri Thm 4.5");
  }

  @Override
  double boundAt(double alpha) {
    double lambda = config().strongConvexity();
    double sg = config().gradientSensitivity();
    double b = config().batchSize();
    double limit = alpha * sg * sg / (lambda * config().sigmaSquared() * b * b);
    return limit * -Math.expm1(-lambda * config().stepSize() * config().epochs() / 2);
  }

  @Override
  List<String> theoremAssumptions() {
    return List.of(YeShokriDynamics.lossAssumption(config()),
        "fixed batches visited in the same order every epoch; K read as epochs (docs/errata.md#ye-shokri-theorem-4-5-epochs)");
  }
}
