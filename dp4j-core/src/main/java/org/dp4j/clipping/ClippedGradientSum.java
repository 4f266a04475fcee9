package org.dp4j.clipping;

import static org.dp4j.InvalidSettingException.checkArgument;

import java.util.Arrays;
import org.nd4j.linalg.api.ndarray.INDArray;

/**
 * The sum of clipped per-example gradients of one batch, Σ_i clip_C(g_i), flattened in the layout of
 * {@code net.params()} (weights of dense layers column-major, as DL4J stores them), together with the
 * unclipped per-example norms ‖g_i‖ and how many examples were clipped. The sum carries no noise, and neither it
 * nor the norms, the clipped count or the batch size are differentially private: no accountant covers releasing
 * them, so do not log or publish them.
 *
 * <p>The sum array is the one the clipper wrote; it is not copied, so do not modify it while you still need it.
 */
public final class ClippedGradientSum {
  private final INDArray sum;
  private final double[] norms;
  private final int clippedCount;
  private final double clipNorm;
  private final ClippingMode mode;

  ClippedGradientSum(INDArray sum, double[] norms, int clippedCount, double clipNorm, ClippingMode mode) {
    checkArgument(clippedCount >= 0 && clippedCount <= norms.length,
        "clipped count must be in [0, %s], was %s", norms.length, clippedCount);
    this.sum = sum;
    this.norms = norms.clone();
    this.clippedCount = clippedCount;
    this.clipNorm = clipNorm;
    this.mode = mode;
  }

  /** Σ_i clip_C(g_i) as a row vector [1, numParams] in the layout of {@code net.params()}. */
  public INDArray sum() {
    return sum;
  }

  /** ‖g_i‖ before clipping, over all parameters of example i (in both modes). */
  public double[] perExampleNorms() {
    return norms.clone();
  }

  /** Examples whose gradient was scaled down (in {@link ClippingMode#PER_LAYER}: in at least one layer). */
  public int clippedCount() {
    return clippedCount;
  }

  /** Number of examples in the batch (the realised batch size, not the expected one). */
  public int batchSize() {
    return norms.length;
  }

  public double clipNorm() {
    return clipNorm;
  }

  public ClippingMode mode() {
    return mode;
  }

  @Override
  public String toString() {
    return "ClippedGradientSum{batch=" + norms.length + ", clipped=" + clippedCount + ", C=" + clipNorm
        + ", mode=" + mode + ", maxNorm=" + Arrays.stream(norms).max().orElse(0) + "}";
  }
}
