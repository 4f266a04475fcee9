package org.dp4j.prox;

import org.nd4j.linalg.api.ndarray.INDArray;

/**
 * The proximal map Prox_{η,r}(v) = argmin_θ { ½‖θ − v‖₂² + η·r(θ) } of a closed convex regulariser r
 * (Chen &amp; Liu, Eq. 6; docs/errata.md#dp-mbcd-prox-formulas). The block is treated as one flat vector: for a matrix the
 * norms are Frobenius norms.
 *
 * <p>Every prox of a closed convex function is firmly non-expansive, hence 1-Lipschitz; so
 * {@code lipschitzConstant(η) ≤ 1} always and L_T = 1 is a valid constant for every operator here
 * (the paper's Lemma 4.2 bound L_T ≤ 2 is loose; Chen &amp; Liu 2025; docs/errata.md#dp-mbcd-lipschitz-t). {@link #lipschitzConstant}
 * returns the tightest constant, which is below 1 only for {@link #squaredL2}.
 *
 * <pre>{@code
 * ProximalOperator prox = ProximalOperator.l1(1.0);
 * double[] theta = prox.apply(new double[] {0.5, -0.05, -0.3}, 0.1);   // [0.4, 0, -0.2]
 * }</pre>
 */
public interface ProximalOperator {

  /** Prox_{η,r}(v) as a new array; {@code v} is not modified. η must be &gt; 0. */
  double[] apply(double[] v, double eta);

  /** Prox_{η,r}(v) as a new array of the same shape and data type; {@code v} is not modified. */
  INDArray apply(INDArray v, double eta);

  /** The Lipschitz constant L_T of θ ↦ Prox_{η,r}(θ); always in (0, 1]. */
  double lipschitzConstant(double eta);

  /** r(θ); +∞ outside the feasible set of a projection. */
  double penalty(double[] theta);

  /** A short human-readable description, e.g. "L1, lambda=0.01". */
  String description();

  /** r = 0: the identity map. */
  static ProximalOperator none() {
    return NoRegulariser.INSTANCE;
  }

  /** r(θ) = λ‖θ‖₁: soft thresholding at ηλ. */
  static ProximalOperator l1(double lambda) {
    return new L1Prox(lambda);
  }

  /** r(θ) = (λ/2)‖θ‖₂²: the scaling θ/(1 + ηλ) (the paper's η/(1+η) is a misprint; Chen &amp; Liu 2025; docs/errata.md#dp-mbcd-prox-formulas). */
  static ProximalOperator squaredL2(double lambda) {
    return new SquaredL2Prox(lambda);
  }

  /** r(θ) = λ‖θ‖₂ (unsquared): block soft thresholding θ·max(0, 1 − ηλ/‖θ‖₂). */
  static ProximalOperator l2Norm(double lambda) {
    return new L2NormProx(lambda);
  }

  /** r = indicator of the ball {‖θ‖₂ ≤ R}: the projection θ·min(1, R/‖θ‖₂), independent of η. */
  static ProximalOperator ball(double radius) {
    return new BallProjection(radius);
  }

  /** r = indicator of the box [lo, hi]^d: clamping, independent of η (bounds may be ±∞). */
  static ProximalOperator box(double lo, double hi) {
    return new BoxProjection(lo, hi);
  }
}
