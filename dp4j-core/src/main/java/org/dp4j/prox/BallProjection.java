package org.dp4j.prox;

import static org.dp4j.InvalidSettingException.checkArgument;

/**
 * r = indicator of {‖θ‖₂ ≤ R}: the Euclidean projection v·min(1, R/‖v‖₂), L_T = 1 (projections onto
 * closed convex sets are non-expansive; Chen &amp; Liu 2025; docs/errata.md#dp-mbcd-lipschitz-t). Independent of η.
 */
final class BallProjection extends RadialScaling {
  private final double radius;

  BallProjection(double radius) {
    checkArgument(radius > 0 && Double.isFinite(radius),
        "ball radius must be finite and > 0, was %s", radius);
    this.radius = radius;
  }

  @Override
  double scale(double norm, double eta) {
    ProxArguments.checkStep(eta);
    return norm <= radius ? 1.0 : radius / norm;
  }

  @Override
  public double lipschitzConstant(double eta) {
    return 1.0;
  }

  @Override
  public double penalty(double[] theta) {
    return ProxArguments.norm2(theta) <= radius * (1 + 1e-12) ? 0.0 : Double.POSITIVE_INFINITY;
  }

  @Override
  public String description() {
    return "ball projection, radius=" + radius;
  }
}
