package org.dp4j.mbcd;

import org.dp4j.noise.NoiseSource;
import org.dp4j.prox.ProximalOperator;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.indexing.NDArrayIndex;
import org.nd4j.linalg.ops.transforms.Transforms;

/**
 * The iterative proxes of a softmax cross-entropy output block ({@link OutputLoss#SOFTMAX_CROSS_ENTROPY};
 * Chen &amp; Liu Eq. 11 with R = CE, the option), by majorise–minimise: the cross-entropy's Hessian in
 * the logits is ⪯ ½·I (Böhning 1992), so a fixed quadratic majoriser, factorised once, gives monotone steps
 * z ← z − ∇Φ(z)·P⁻¹ that need no line search.
 * <ul>
 *   <li>x_D-update (hidden, per example): argmin_x CE(x·A + c, y) + (γ/2)‖x − σ(u_{D−1})‖², P = ½·A·Aᵀ + γI
 *       (applied through Woodbury's identity);</li>
 *   <li>proximal-point block step ({@link BlockStepRule#PROXIMAL_POINT}): Θ' = argmin (1/2η)‖Θ' − Θ̂‖² +
 *       (μ/2)‖Θ'‖² + mean_i CE(x̃_i·Θ', y_i) at the noisy point Θ̂ = Θ + N(0, 2η·o·I), as for the squared loss,
 *       P = (1/η + μ)I + ½·X̃ᵀX̃/b.</li>
 * </ul>
 * Both stop after {@link #MAX_ITERATIONS} steps or when a step moves less than {@link #TOLERANCE} relative.
 * Neither is certified by SAFE accounting (the first is a hidden auxiliary; the second is the unclipped
 * proximal-point variant, PAPER mode only).
 */
final class SoftmaxProx {
  static final int MAX_ITERATIONS = 50;
  static final double TOLERANCE = 1e-6;

  private SoftmaxProx() {}

  /** x_D for a batch: rows of {@code anchor} = σ(u_{D−1}), {@code labels} one-hot rows. */
  static INDArray auxiliary(LinearBlock out, INDArray labels, INDArray anchor, double gamma) {
    INDArray a = out.weights();
    // P = γI + ½·A·Aᵀ has rank-K structure (K outputs): by Woodbury, g·P⁻¹ = (g − (g·A)·M⁻¹·Aᵀ)/γ with
    // M = 2γI_K + Aᵀ·A, so a step costs O(b·n·K) instead of O(b·n²)
    INDArray m = a.transpose().mmul(a);
    m.addi(Nd4j.eye(m.rows()).castTo(m.dataType()).muli(2 * gamma));
    SymmetricEigen eigen = SymmetricEigen.of(m);
    INDArray x = anchor.dup();
    INDArray pull = anchor.mul(gamma);
    for (int it = 0; it < MAX_ITERATIONS; it++) {
      // ∇ = (softmax(x·A + c) − y)·Aᵀ + γx − γs; temporaries are closed at once (a batch of 60,000 wide rows
      // would otherwise pile up off-heap faster than the garbage collector frees it)
      INDArray residual = Transforms.softmax(out.apply(x), false).subi(labels);
      INDArray grad = residual.mmul(a.transpose());
      residual.close();
      Nd4j.getBlasWrapper().level1().axpy(grad.length(), gamma, x, grad);
      grad.subi(pull);
      INDArray low = solve(eigen, grad.mmul(a));
      INDArray step = grad.subi(low.mmul(a.transpose())).divi(gamma);
      low.close();
      x.subi(step);
      boolean done = converged(step, x);
      step.close();
      if (done) {
        break;
      }
    }
    pull.close();
    return x;
  }

  /** The proximal-point step of the output block on inputs x_D and labels y (see the class comment). */
  static void blockStep(LinearBlock block, INDArray inputs, INDArray labels, double eta, double mu,
      double temperature, ProximalOperator prox, NoiseSource noise) {
    long b = inputs.rows();
    int in = block.nIn();
    INDArray xt = Nd4j.hstack(inputs, Nd4j.ones(inputs.dataType(), b, 1));
    INDArray anchor = Nd4j.vstack(block.weights(), block.bias());
    noise.addGaussian(anchor, Math.sqrt(2.0 * eta * temperature));
    INDArray p = xt.transpose().mmul(xt).muli(0.5 / b);
    p.addi(Nd4j.eye(in + 1).castTo(p.dataType()).muli(1.0 / eta + mu));
    SymmetricEigen eigen = SymmetricEigen.of(p);
    INDArray z = anchor.dup();
    for (int it = 0; it < MAX_ITERATIONS; it++) {
      INDArray grad = xt.transpose().mmul(Transforms.softmax(xt.mmul(z), false).subi(labels)).divi(b)
          .addi(z.sub(anchor).divi(eta));
      if (mu > 0) {
        grad.addi(z.mul(mu));
      }
      // P is symmetric: P⁻¹·grad = (gradᵀ·P⁻¹)ᵀ
      INDArray step = solve(eigen, grad.transpose()).transpose();
      z.subi(step);
      if (converged(step, z)) {
        break;
      }
    }
    block.weights().assign(z.get(NDArrayIndex.interval(0, in), NDArrayIndex.all()));
    block.bias().assign(z.get(NDArrayIndex.interval(in, in + 1), NDArrayIndex.all()));
    block.setFlat(prox.apply(block.flat(), eta));
  }

  /** rows·P⁻¹ from P = Q·diag(λ)·Qᵀ. */
  private static INDArray solve(SymmetricEigen eigen, INDArray rows) {
    INDArray q = eigen.vectors();
    INDArray rotated = rows.mmul(q).muliRowVector(eigen.values().rdiv(1.0));
    INDArray result = rotated.mmul(q.transpose());
    rotated.close();
    return result;
  }

  private static boolean converged(INDArray step, INDArray point) {
    return step.norm2Number().doubleValue() <= TOLERANCE * (1e-12 + point.norm2Number().doubleValue());
  }
}
