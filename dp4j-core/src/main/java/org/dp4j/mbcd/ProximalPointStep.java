package org.dp4j.mbcd;

import org.dp4j.noise.NoiseSource;
import org.dp4j.prox.ProximalOperator;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.indexing.NDArrayIndex;

/**
 * The proximal-point block step of {@link BlockStepRule#PROXIMAL_POINT} (Chen &amp; Liu Eq. 17 as corrected in
 * docs/errata.md#dp-mbcd-lifted-updates, mean over the batch: docs/errata.md#dp-mbcd-batch-mean): with X̃ = [X, 1] the block inputs plus a bias column, T the
 * targets, Θ = [A; c] the block in DL4J's layout and w the penalty weight,
 * Θ' = Prox((1 + ημ)I + ηw·X̃ᵀX̃/b)⁻¹(Θ + ηw·X̃ᵀT/b + N(0, 2η·o·I))).
 */
final class ProximalPointStep {
  private ProximalPointStep() {}

  static void apply(LinearBlock block, INDArray inputs, INDArray targets, double weight, double eta,
      double mu, double temperature, ProximalOperator prox, NoiseSource noise) {
    long b = inputs.rows();
    int in = block.nIn();
    INDArray xt = Nd4j.hstack(inputs, Nd4j.ones(inputs.dataType(), b, 1));
    INDArray theta = Nd4j.vstack(block.weights(), block.bias());
    INDArray rhs = theta.addi(xt.transpose().mmul(targets).muli(eta * weight / b));
    noise.addGaussian(rhs, Math.sqrt(2.0 * eta * temperature));
    INDArray m = xt.transpose().mmul(xt).muli(eta * weight / b);
    m.addi(Nd4j.eye(in + 1).castTo(m.dataType()).muli(1 + eta * mu));
    SymmetricEigen eigen = SymmetricEigen.of(m);
    INDArray q = eigen.vectors();
    INDArray next = q.mmul(q.transpose().mmul(rhs).muliColumnVector(eigen.values().reshape(in + 1, 1).rdiv(1.0)));
    block.weights().assign(next.get(NDArrayIndex.interval(0, in), NDArrayIndex.all()));
    block.bias().assign(next.get(NDArrayIndex.interval(in, in + 1), NDArrayIndex.all()));
    block.setFlat(prox.apply(block.flat(), eta));
  }
}
