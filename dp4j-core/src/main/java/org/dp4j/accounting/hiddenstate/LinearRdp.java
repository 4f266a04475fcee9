package org.dp4j.accounting.hiddenstate;

import static org.dp4j.InvalidSettingException.checkArgument;

import org.dp4j.accounting.Orders;
import org.dp4j.accounting.RdpCurve;

/**
 * Rényi curves linear in the order, ε(α) = ρ·α: the shape of every Gaussian shift bound (Kong–Ribero,
 * PABI, Langevin, and μ-GDP with ρ = μ²/2).
 */
final class LinearRdp {
  private LinearRdp() {}

  /** ε(α) = ρα at every order (+∞ at α = +∞ unless ρ = 0). */
  static RdpCurve curve(double rho, Orders orders) {
    checkArgument(rho >= 0 && Double.isFinite(rho), "RDP slope ρ must be finite and >= 0, was %s", rho);
    return RdpCurve.tabulate(orders, a -> rho == 0 ? 0 : rho * a);
  }
}
