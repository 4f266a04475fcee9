package org.dp4j.mbcd;

import static org.dp4j.InvalidSettingException.checkArgument;

import org.dp4j.noise.NoiseSource;
import org.dp4j.prox.ProximalOperator;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.indexing.NDArrayIndex;

/**
 * One released block W_d of a lifted network: a dense layer's weights A [nIn, nOut] and bias c
 * [1, nOut] in DL4J's layout, acting on rows as x ↦ x·A + c (the paper's W_d x_d with W_d = Aᵀ and the
 * bias folded in). Its flat form is DL4J's parameter order: A flattened in 'f' order, then c.
 */
final class LinearBlock implements LiftedBlock {
  private final INDArray weights;
  private final INDArray bias;

  private LinearBlock(INDArray weights, INDArray bias) {
    this.weights = weights;
    this.bias = bias;
  }

  /** A block from DL4J's flat layer parameters [1, nIn·nOut + nOut] (copied). */
  static LinearBlock fromFlat(INDArray flat, int nIn, int nOut) {
    checkArgument(flat.length() == (long) nIn * nOut + nOut,
        "flat parameters must have nIn*nOut+nOut = %s entries, had %s", (long) nIn * nOut + nOut,
        flat.length());
    INDArray row = flat.reshape(1, flat.length());
    INDArray w = row.get(NDArrayIndex.point(0), NDArrayIndex.interval(0, (long) nIn * nOut))
        .dup().reshape('f', nIn, nOut).dup('c');
    INDArray b = row.get(NDArrayIndex.point(0),
        NDArrayIndex.interval((long) nIn * nOut, flat.length())).dup().reshape(1, nOut);
    return new LinearBlock(w, b);
  }

  @Override
  public int nIn() {
    return (int) weights.rows();
  }

  @Override
  public int nOut() {
    return (int) weights.columns();
  }

  @Override
  public long parameterCount() {
    return weights.length() + bias.length();
  }

  INDArray weights() {
    return weights;
  }

  INDArray bias() {
    return bias;
  }

  /** x·A + c for a batch of rows x [b, nIn]: the pre-activations W_d x_d. */
  @Override
  public INDArray apply(INDArray x) {
    return x.mmul(weights).addiRowVector(bias);
  }

  /** The block in DL4J's flat order [1, nIn·nOut + nOut] (a copy). */
  INDArray flat() {
    return Nd4j.toFlattened('f', weights, bias).reshape(1, parameterCount());
  }

  /** Overwrites the block from a flat array in DL4J's order. */
  void setFlat(INDArray flat) {
    LinearBlock b = fromFlat(flat, nIn(), nOut());
    weights.assign(b.weights);
    bias.assign(b.bias);
  }

  @Override
  public LinearMap linearPart() {
    return new LinearMap() {
      @Override
      public INDArray apply(INDArray rows) {
        return rows.mmul(weights);
      }

      @Override
      public INDArray adjoint(INDArray rows) {
        return rows.mmul(weights.transpose());
      }
    };
  }

  @Override
  public INDArray biasRow() {
    return bias;
  }

  /** Eq. 11 in closed form: one factorisation for the whole batch ({@link PostActivationUpdate}). */
  @Override
  public INDArray solveInput(INDArray u, INDArray activatedPrev) {
    return PostActivationUpdate.hidden(this, u, activatedPrev);
  }

  @Override
  public void proximalPointStep(INDArray inputs, INDArray targets, double weight, double eta, double mu,
      double temperature, ProximalOperator prox, NoiseSource noise) {
    ProximalPointStep.apply(this, inputs, targets, weight, eta, mu, temperature, prox, noise);
  }

  @Override
  public INDArray clippedGradient(INDArray inputs, INDArray targets, double weight,
      double clipNorm) {
    return ClippedBlockGradient.compute(this, inputs, targets, weight, clipNorm).flat();
  }

  /** DL4J's flat order: a dense block steps in its own coordinates. */
  @Override
  public INDArray stepCoordinates() {
    return flat();
  }

  @Override
  public void setStepCoordinates(INDArray theta) {
    setFlat(theta);
  }

  @Override
  public INDArray layerParameters() {
    return flat();
  }
}
