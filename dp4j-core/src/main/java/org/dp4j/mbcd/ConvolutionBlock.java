package org.dp4j.mbcd;

import static org.dp4j.InvalidSettingException.checkArgument;

import org.dp4j.noise.NoiseSource;
import org.dp4j.prox.ProximalOperator;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.indexing.NDArrayIndex;

/**
 * A released convolution block of a lifted CNN (Chen &amp; Liu B.2.2; docs/errata.md#dp-mbcd-lifted-updates, #dp-mbcd-lipschitz-f, #dp-mbcd-convolution): weights
 * W [c_out, K] (K = c_in·k_h·k_w, DL4J's [c_out, c_in, k_h, k_w] in 'c' order) and one bias per output
 * channel, acting on flat NCHW rows as u = W_mat·P(x) + b through im2col.
 *
 * <p><b>Step coordinates.</b> With inputs clipped to ‖x‖ ≤ ρ, the mean squared loss has weight curvature
 * ≤ γ·m·ρ² (docs/errata.md#dp-mbcd-lipschitz-f: no input element lies in more than m = ⌈k_h/s_h⌉⌈k_w/s_w⌉ patches) and bias curvature
 * exactly γ·L (the bias is added at all L = H_out·W_out positions). The block therefore takes its noisy step
 * in θ̃ = (√L·b, √m·W): there the Hessian is bounded by γ(ρ² + 1), the dense blocks' bound, so one η and the
 * dense safe L_F apply to every block. θ ↦ θ̃ is fixed and data-independent, so releasing θ = S⁻¹θ̃ is
 * post-processing; clip norm C, noise N(0, 2η·o·I), μ and the prox all act on θ̃.
 *
 * <pre>{@code
 * // given: ConvolutionGeometry geometry; INDArray layerParams; INDArray x
 * ConvolutionBlock conv = ConvolutionBlock.fromLayerParameters(layerParams, geometry, 6);
 * INDArray u = conv.apply(x);        // rows [b, 6·H_out·W_out]
 * }</pre>
 */
final class ConvolutionBlock implements LiftedBlock {
  private final ConvolutionGeometry geometry;
  private final INDArray weights;   // [c_out, K]
  private final INDArray bias;      // [1, c_out]

  private ConvolutionBlock(ConvolutionGeometry geometry, INDArray weights, INDArray bias) {
    this.geometry = geometry;
    this.weights = weights;
    this.bias = bias;
  }

  /** From a DL4J ConvolutionLayer's flat parameters [bias (c_out), weights (c_out·K)] (copied). */
  static ConvolutionBlock fromLayerParameters(INDArray flat, ConvolutionGeometry geometry,
      int outChannels) {
    long k = geometry.patchSize();
    checkArgument(flat.length() == outChannels * (k + 1),
        "a convolution with %s output channels and patch size %s has %s parameters, got %s",
        outChannels, k, outChannels * (k + 1), flat.length());
    INDArray row = flat.reshape(1, flat.length());
    INDArray b = row.get(NDArrayIndex.point(0), NDArrayIndex.interval(0, outChannels)).dup()
        .reshape(1, outChannels);
    INDArray w = row.get(NDArrayIndex.point(0), NDArrayIndex.interval(outChannels, flat.length()))
        .dup().reshape('c', outChannels, k);
    return new ConvolutionBlock(geometry, w, b);
  }

  ConvolutionGeometry geometry() {
    return geometry;
  }

  int outChannels() {
    return (int) weights.rows();
  }

  @Override
  public int nIn() {
    return geometry.inputSize();
  }

  @Override
  public int nOut() {
    return outChannels() * geometry.positions();
  }

  @Override
  public long parameterCount() {
    return weights.length() + bias.length();
  }

  @Override
  public LinearMap linearPart() {
    return new LinearMap() {
      @Override
      public INDArray apply(INDArray rows) {
        long b = rows.rows();
        INDArray z = patches(rows).reshape('c', b * geometry.positions(), geometry.patchSize())
            .mmul(weights.transpose());
        return positionsToRows(z, b);
      }

      @Override
      public INDArray adjoint(INDArray rows) {
        long b = rows.rows();
        INDArray cols = rowsToPositions(rows).mmul(weights);   // [b·L, K]
        return geometry.accumulate(cols.reshape('c', b, geometry.outHeight(), geometry.outWidth(),
            geometry.channels(), geometry.kernelHeight(), geometry.kernelWidth())
            .permute(0, 3, 4, 5, 1, 2));
      }
    };
  }

  @Override
  public INDArray biasRow() {
    INDArray ones = Nd4j.ones(bias.dataType(), 1, geometry.positions());
    return bias.reshape(outChannels(), 1).mmul(ones).reshape('c', 1, nOut());
  }

  @Override
  public INDArray clippedGradient(INDArray inputs, INDArray targets, double weight,
      double clipNorm) {
    return ConvolutionBlockGradient.compute(this, inputs, targets, weight, clipNorm).flat();
  }

  /**
   * Per output channel o the block is a least-squares problem in z_o = (√L·b_o, √m·W_o) with design rows
   * g = (1/√L, P_{i,p}/√m) over all examples i and positions p, so the proximal-point step solves, for all channels
   * at once, ((1/η + μ)I + (w/b)·GᵀG)·Z = Θ̂/η + (w/b)·GᵀT with the (K+1)² Gram matrix GᵀG.
   */
  @Override
  public void proximalPointStep(INDArray inputs, INDArray targets, double weight, double eta, double mu,
      double temperature, ProximalOperator prox, NoiseSource noise) {
    long b = inputs.rows();
    int k = geometry.patchSize();
    int c = outChannels();
    double sqrtL = biasScale();
    double sqrtM = weightScale();
    INDArray flatPatches = patches(inputs).reshape('c', b * geometry.positions(), k);
    INDArray t = rowsToPositions(targets);                                          // [b·L, c_out]
    INDArray gram = Nd4j.create(flatPatches.dataType(), k + 1, k + 1);
    INDArray colSums = flatPatches.sum(0).reshape(1, k).divi(sqrtL * sqrtM);
    gram.putScalar(0, 0, (double) b * geometry.positions() / (sqrtL * sqrtL));
    gram.get(NDArrayIndex.point(0), NDArrayIndex.interval(1, k + 1)).assign(colSums);
    gram.get(NDArrayIndex.interval(1, k + 1), NDArrayIndex.point(0)).assign(colSums);
    gram.get(NDArrayIndex.interval(1, k + 1), NDArrayIndex.interval(1, k + 1))
        .assign(flatPatches.transpose().mmul(flatPatches).divi(sqrtM * sqrtM));
    INDArray rhs = Nd4j.vstack(t.sum(0).reshape(1, c).divi(sqrtL), flatPatches.transpose().mmul(t).divi(sqrtM))
        .muli(weight / b);                                                              // [K+1, c_out]
    INDArray theta = stepCoordinates();                                                 // [bias c | weights c·K]
    noise.addGaussian(theta, Math.sqrt(2.0 * eta * temperature));
    INDArray anchor = Nd4j.vstack(theta.get(NDArrayIndex.point(0), NDArrayIndex.interval(0, c)).reshape(1, c),
        theta.get(NDArrayIndex.point(0), NDArrayIndex.interval(c, c + (long) c * k)).reshape('c', c, k)
            .transpose());
    rhs.addi(anchor.divi(eta));
    INDArray m = gram.muli(weight / b);
    m.addi(Nd4j.eye(k + 1).castTo(m.dataType()).muli(1.0 / eta + mu));
    SymmetricEigen eigen = SymmetricEigen.of(m);
    INDArray q = eigen.vectors();
    INDArray z = q.mmul(q.transpose().mmul(rhs).muliColumnVector(eigen.values().reshape(k + 1, 1).rdiv(1.0)));
    INDArray next = Nd4j.hstack(z.get(NDArrayIndex.point(0), NDArrayIndex.all()).reshape(1, c),
        z.get(NDArrayIndex.interval(1, k + 1), NDArrayIndex.all()).transpose().dup('c').reshape(1, (long) c * k));
    setStepCoordinates(prox.apply(next, eta));
  }

  /** S = diag(√L for the bias, √m for the weights): θ̃ = S·θ. */
  double biasScale() {
    return Math.sqrt(geometry.positions());
  }

  double weightScale() {
    return Math.sqrt(geometry.coverage());
  }

  @Override
  public INDArray stepCoordinates() {
    return Nd4j.hstack(bias.mul(biasScale()), weights.mul(weightScale()).reshape(1, weights.length()));
  }

  @Override
  public void setStepCoordinates(INDArray theta) {
    INDArray row = theta.reshape(1, parameterCount());
    long c = outChannels();
    bias.assign(row.get(NDArrayIndex.point(0), NDArrayIndex.interval(0, c)).reshape(1, c)
        .div(biasScale()));
    weights.assign(row.get(NDArrayIndex.point(0), NDArrayIndex.interval(c, parameterCount()))
        .reshape('c', c, geometry.patchSize()).div(weightScale()));
  }

  @Override
  public INDArray layerParameters() {
    return Nd4j.hstack(bias.dup(), weights.dup().reshape(1, weights.length()));
  }

  INDArray weights() {
    return weights;
  }

  INDArray bias() {
    return bias;
  }

  /** The patches of every row as [b, L, K] (positions-major, 'c'). */
  INDArray patches(INDArray rows) {
    return geometry.columns(rows).permute(0, 4, 5, 1, 2, 3).dup('c')
        .reshape('c', rows.rows(), geometry.positions(), geometry.patchSize());
  }

  /** [b·L, c_out] (position-major) to flat NCHW rows [b, c_out·L]. */
  INDArray positionsToRows(INDArray z, long b) {
    return z.reshape('c', b, geometry.positions(), outChannels()).permute(0, 2, 1).dup('c')
        .reshape('c', b, nOut());
  }

  /** Flat NCHW rows [b, c_out·L] to [b·L, c_out] (position-major). */
  INDArray rowsToPositions(INDArray rows) {
    long b = rows.rows();
    return rows.reshape('c', b, outChannels(), geometry.positions()).permute(0, 2, 1).dup('c')
        .reshape('c', b * geometry.positions(), outChannels());
  }
}
