package org.dp4j.mbcd;

import org.dp4j.noise.NoiseSource;
import org.dp4j.prox.ProximalOperator;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;

/**
 * The released-block update θ ← Prox_{η,r}(θ − η·(ḡ + μθ) + N(0, 2η·o(k,j)·I)) (Chen &amp; Liu Eq. 6 / 14;
 * digest 003 §2.1, §7), applied to a whole block (weights and bias as one vector). μθ is the gradient of
 * the optional data-independent term (μ/2)‖θ‖² (digest 003 P4), added after clipping.
 */
final class NoisyProximalStep {
  private NoisyProximalStep() {}

  static void apply(LinearBlock block, ClippedBlockGradient gradient, double eta, double mu,
      double temperature, ProximalOperator prox, NoiseSource noise) {
    INDArray theta = block.flat();
    INDArray g = Nd4j.toFlattened('f', gradient.weightGradient(), gradient.biasGradient())
        .reshape(theta.shape());
    if (mu > 0) {
      g.addi(theta.mul(mu));
    }
    theta.subi(g.muli(eta));
    noise.addGaussian(theta, Math.sqrt(2.0 * eta * temperature));
    block.setFlat(prox.apply(theta, eta));
  }
}
