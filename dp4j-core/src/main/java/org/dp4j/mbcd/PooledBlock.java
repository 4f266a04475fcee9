package org.dp4j.mbcd;

import org.dp4j.noise.NoiseSource;
import org.dp4j.prox.ProximalOperator;
import org.nd4j.linalg.api.ndarray.INDArray;

/**
 * A released block preceded by parameter-free average pooling: u = W_d·pool(x) + c_d (docs/errata.md#dp-mbcd-convolution: pooling
 * is linear, so it is folded into the next block's linear map). The x-update of x sees the composed map
 * W_d∘pool; the W-update sees the pooled inputs, whose norm is at most ‖x‖ ≤ ρ, so the block's smoothness
 * bound is unchanged.
 */
final class PooledBlock implements LiftedBlock {
  private final LinearMap pooling;
  private final int nIn;
  private final LiftedBlock inner;

  PooledBlock(LinearMap pooling, int nIn, LiftedBlock inner) {
    this.pooling = pooling;
    this.nIn = nIn;
    this.inner = inner;
  }

  @Override
  public int nIn() {
    return nIn;
  }

  @Override
  public int nOut() {
    return inner.nOut();
  }

  @Override
  public long parameterCount() {
    return inner.parameterCount();
  }

  @Override
  public LinearMap linearPart() {
    return pooling.then(inner.linearPart());
  }

  @Override
  public INDArray biasRow() {
    return inner.biasRow();
  }

  @Override
  public INDArray clippedGradient(INDArray inputs, INDArray targets, double weight,
      double clipNorm) {
    return inner.clippedGradient(pooling.apply(inputs), targets, weight, clipNorm);
  }

  @Override
  public void proximalPointStep(INDArray inputs, INDArray targets, double weight, double eta, double mu,
      double temperature, ProximalOperator prox, NoiseSource noise) {
    inner.proximalPointStep(pooling.apply(inputs), targets, weight, eta, mu, temperature, prox, noise);
  }

  @Override
  public INDArray stepCoordinates() {
    return inner.stepCoordinates();
  }

  @Override
  public void setStepCoordinates(INDArray theta) {
    inner.setStepCoordinates(theta);
  }

  @Override
  public INDArray layerParameters() {
    return inner.layerParameters();
  }
}
