package org.dp4j.mbcd;

import org.dp4j.prox.ProximalOperator;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;

/**
 * The released-block update θ ← Prox_{η,r}(θ − η·ḡ + N(0, 2η·o(k,j)·I)) (Chen &amp; Liu Eq. 6 / 14;
 * digest 003 §2.1, §7), applied to a whole block (weights and bias as one vector).
 */
final class NoisyProximalStep {
  private NoisyProximalStep() {}

  static void apply(LinearBlock block, ClippedBlockGradient gradient, double eta,
      double temperature, ProximalOperator prox, GaussianNoise noise) {
    INDArray theta = block.flat();
    INDArray g = Nd4j.toFlattened('f', gradient.weightGradient(), gradient.biasGradient())
        .reshape(theta.shape());
    theta.subi(g.muli(eta));
    double std = Math.sqrt(2.0 * eta * temperature);
    theta.addi(noise.sample(theta.dataType(), theta.length(), std).reshape(theta.shape()));
    block.setFlat(prox.apply(theta, eta));
  }
}
