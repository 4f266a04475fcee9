package org.dp4j.accounting.hiddenstate;

import java.util.List;
import org.dp4j.accounting.NeighbouringRelation;
import org.dp4j.accounting.Orders;
import org.dp4j.accounting.PrivacyGuarantee;
import org.dp4j.accounting.RdpConversion;
import org.dp4j.accounting.RdpCurve;

/**
 * A last-iterate RDP bound of Ye &amp; Shokri 2022 for noisy mini-batch gradient descent (docs/accountants.md#ye-shokri). Every
 * implementation is one theorem; neighbours are replace-one, only the last iterate is released, and the RDP
 * includes the optional normalisation term α/σ_bn² (composed additively, docs/threat-models.md#combining-bounds).
 *
 * <pre>{@code
 * // given: YeShokriConfig config
 * YeShokriAccountant acc = new YeShokriShuffleAccountant(config);
 * PrivacyGuarantee g = acc.guarantee(Orders.DEFAULT, 1e-5, RdpConversion.CLASSIC);
 * }</pre>
 */
public interface YeShokriAccountant extends HiddenStateAccountant {
  /** Short accountant name, e.g. "ye-shokri-shuffle". */
  @Override
  String name();

  /** The theorem, paper equation and `docs/` note the bound rests on. */
  String theorem();

  YeShokriConfig config();

  /** The RDP bound at order α &gt; 1 for every record (+∞ at α = +∞). */
  double rdp(double alpha);

  /** Everything the bound is conditional on. */
  @Override
  List<String> assumptions();

  @Override
  default NeighbouringRelation relation() {
    return NeighbouringRelation.REPLACE_ONE;
  }

  @Override
  default RdpCurve rdp(Orders orders) {
    return RdpCurve.tabulate(orders, this::rdp);
  }

  @Override
  default PrivacyGuarantee guarantee(double delta, Orders orders, RdpConversion conversion) {
    return rdpGuarantee(theorem(), delta, orders, conversion);
  }

  /** Same as {@link #guarantee(double, Orders, RdpConversion)}, with the orders first. */
  default PrivacyGuarantee guarantee(Orders orders, double delta, RdpConversion conversion) {
    return guarantee(delta, orders, conversion);
  }
}
