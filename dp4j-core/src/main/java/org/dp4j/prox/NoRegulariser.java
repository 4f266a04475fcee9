package org.dp4j.prox;

import org.nd4j.linalg.api.ndarray.INDArray;

/** r = 0: Prox_{η,0}(v) = v, L_T = 1 (Chen &amp; Liu §3.1 example; docs/errata.md#dp-mbcd-prox-formulas). */
final class NoRegulariser implements ProximalOperator {
  static final NoRegulariser INSTANCE = new NoRegulariser();

  private NoRegulariser() {}

  @Override
  public double[] apply(double[] v, double eta) {
    ProxArguments.checkStep(eta);
    return v.clone();
  }

  @Override
  public INDArray apply(INDArray v, double eta) {
    ProxArguments.checkStep(eta);
    return v.dup();
  }

  @Override
  public double lipschitzConstant(double eta) {
    return 1.0;
  }

  @Override
  public double penalty(double[] theta) {
    return 0.0;
  }

  @Override
  public String description() {
    return "none";
  }

  @Override
  public String toString() {
    return description();
  }
}
