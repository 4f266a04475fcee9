package org.dp4j.mbcd;

import org.dp4j.noise.NoiseSource;
import org.dp4j.prox.ProximalOperator;
import org.nd4j.linalg.api.ndarray.INDArray;

/**
 * The released-block update θ ← Prox_{η,r}(θ − η·(ḡ + μθ) + N(0, 2η·o(k,j)·I)) (Chen &amp; Liu Eq. 6 / 14;
 * docs/errata.md#dp-mbcd-prox-formulas; docs/accountants.md#dp-mbcd), applied to a whole block (weights and bias as one vector, in the block's step
 * coordinates: DL4J's layout for dense blocks, the normalised θ̃ of {@link ConvolutionBlock}). μθ is the gradient of
 * the optional data-independent term (μ/2)‖θ‖² (docs/errata.md#dp-mbcd-lipschitz-f), added after clipping.
 */
final class NoisyProximalStep {
  private NoisyProximalStep() {}

  /** {@code gradient}: the clipped batch mean in the block's step coordinates (consumed). */
  static void apply(LiftedBlock block, INDArray gradient, double eta, double mu,
      double temperature, ProximalOperator prox, NoiseSource noise) {
    INDArray theta = block.stepCoordinates();
    INDArray g = gradient.reshape(theta.shape());
    if (mu > 0) {
      g.addi(theta.mul(mu));
    }
    theta.subi(g.muli(eta));
    noise.addGaussian(theta, Math.sqrt(2.0 * eta * temperature));
    block.setStepCoordinates(prox.apply(theta, eta));
  }
}
