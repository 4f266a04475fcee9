package org.dp4j.accounting.hiddenstate;

import org.dp4j.accounting.EpsilonDelta;
import org.dp4j.accounting.GaussianDp;
import org.dp4j.accounting.Orders;
import org.dp4j.accounting.PrivacyGuarantee;
import org.dp4j.accounting.RdpConversion;
import org.dp4j.accounting.RdpCurve;

/**
 * A guarantee for a μ-GDP bound: ε from the exact Gaussian-DP conversion (Balle &amp; Wang 2018 Thm 8;
 * docs/accountants.md#shifted-interpolation; Bok, Su &amp; Altschuler 2024, Lemma A.3), never through RDP, which is lossy (docs/errata.md#shifted-interpolation-gdp-conversion); the RDP curve
 * αμ²/2 (Lemma A.4) is attached for composition with other curves.
 */
final class GaussianDpGuarantee {
  private GaussianDpGuarantee() {}

  static PrivacyGuarantee of(HiddenStateAccountant accountant, String theorem, double mu, double delta,
      Orders orders, RdpConversion conversion) {
    RdpCurve curve = GaussianDp.rdp(mu, orders);
    EpsilonDelta viaRdp = conversion.epsilon(curve, delta);
    double exact = GaussianDp.epsilon(delta, mu);
    // The exact conversion is never looser; the order reported is the RDP route's, for reference only.
    EpsilonDelta bound = new EpsilonDelta(Math.min(exact, viaRdp.epsilon()), delta, viaRdp.order(), false);
    String how = String.format("%s; μ = %.6g-GDP, ε by exact μ-GDP conversion (RDP route would give %.4f)",
        theorem, mu, viaRdp.epsilon());
    return new PrivacyGuarantee(accountant.name(), how, bound, curve, accountant.relation(),
        accountant.threatModel(), accountant.assumptions());
  }
}
