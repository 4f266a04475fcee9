package org.dp4j.accounting.hiddenstate;

import static com.google.common.base.Preconditions.checkNotNull;
import static org.dp4j.InvalidSettingException.checkArgument;

import java.util.ArrayList;
import java.util.List;

/**
 * The skeleton every Ye &amp; Shokri 2022 theorem shares (docs/accountants.md#ye-shokri): a name, the theorem, the
 * configuration, the order check (+∞ at α = +∞), the optional normalisation term α/σ_bn² added to every bound
 * (docs/threat-models.md#combining-bounds), and the configuration's common assumptions followed by the theorem's own.
 * An implementation gives only {@link #boundAt(double)} and {@link #theoremAssumptions()}.
 */
abstract class YeShokriBound implements YeShokriAccountant {
  private final String name;
  private final String theorem;
  private final YeShokriConfig config;

  YeShokriBound(String name, String theorem, YeShokriConfig config) {
    this.name = name;
    this.theorem = theorem;
    this.config = checkNotNull(config, "config");
  }

  /** The theorem's RDP at a finite order α &gt; 1, without the normalisation term. */
  abstract double boundAt(double alpha);

  /** What the theorem assumes beyond the configuration's common assumptions. */
  abstract List<String> theoremAssumptions();

  @Override
  public final String name() {
    return name;
  }

  @Override
  public final String theorem() {
    return theorem;
  }

  @Override
  public final YeShokriConfig config() {
    return config;
  }

  @Override
  public final double rdp(double alpha) {
    checkOrder(alpha);
    return alpha == Double.POSITIVE_INFINITY ? Double.POSITIVE_INFINITY
        : boundAt(alpha) + config.normalisationRdp(alpha);
  }

  @Override
  public final List<String> assumptions() {
    List<String> list = new ArrayList<>(config.commonAssumptions());
    list.addAll(theoremAssumptions());
    return list;
  }

  static void checkOrder(double alpha) {
    checkArgument(alpha > 1, "Rényi order must be > 1, was %s", alpha);
  }

  /** Checks a batch position j0 ∈ [0, m) for the fixed-batch theorems, which bound each position separately. */
  static void checkBatchPosition(int j0, int m) {
    checkArgument(j0 >= 0 && j0 < m, "batch position j0 must be in [0, m = %s), was %s", m, j0);
  }
}
