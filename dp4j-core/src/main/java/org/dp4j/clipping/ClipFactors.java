package org.dp4j.clipping;

import java.util.ArrayList;
import java.util.List;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.ops.transforms.Transforms;

/**
 * The clip factors of one batch from the per-layer squared norms ‖g_i^(l)‖² of its examples, for both
 * {@link ClippingMode}s: c_i = min(1, C/‖g_i‖) (Abadi et al. 2016, Alg. 1), or per layer min(1, (C/√L)/‖g_i^(l)‖).
 * Shared by every clipper, whatever the network's topology.
 */
final class ClipFactors {
  private final List<INDArray> scales;
  private final double[] norms;
  private final int clippedCount;

  private ClipFactors(List<INDArray> scales, double[] norms, int clippedCount) {
    this.scales = scales;
    this.norms = norms;
    this.clippedCount = clippedCount;
  }

  /**
   * @param layerSquaredNorms one column [n, 1] per layer with parameters, in the order the scales are wanted
   * @throws IllegalStateException if a norm is NaN or infinite (the training diverged)
   */
  static ClipFactors compute(List<INDArray> layerSquaredNorms, int n, DataType type, ClippingMode mode,
      double clipNorm) {
    INDArray totalSq = Nd4j.zeros(type, n, 1);
    layerSquaredNorms.forEach(totalSq::addi);
    INDArray norms = Transforms.sqrt(totalSq, false);
    double normSum = norms.sumNumber().doubleValue();
    if (!Double.isFinite(normSum)) {
      throw new IllegalStateException("a per-example gradient norm is NaN or infinite (sum of norms " + normSum
          + "): the training diverged; lower the learning rate or check the inputs");
    }
    List<INDArray> scales = new ArrayList<>(layerSquaredNorms.size());
    int clipped;
    if (mode == ClippingMode.FLAT) {
      INDArray scale = of(norms, clipNorm);
      clipped = scale.lt(1.0).castTo(DataType.INT32).sumNumber().intValue();
      layerSquaredNorms.forEach(sq -> scales.add(scale));
    } else {
      double layerClipNorm = clipNorm / Math.sqrt(layerSquaredNorms.size());
      INDArray anyClipped = Nd4j.zeros(type, n, 1);
      for (INDArray sq : layerSquaredNorms) {
        INDArray scale = of(Transforms.sqrt(sq, true), layerClipNorm);
        anyClipped.addi(scale.lt(1.0).castTo(type));
        scales.add(scale);
      }
      clipped = anyClipped.gt(0).castTo(DataType.INT32).sumNumber().intValue();
    }
    return new ClipFactors(scales, norms.toDoubleVector(), clipped);
  }

  /** c_i = min(1, C/‖g_i‖), and 1 for a zero gradient. */
  static INDArray of(INDArray norms, double clipNorm) {
    return Transforms.max(norms, clipNorm, true).rdivi(clipNorm);
  }

  /** The factors of the l-th layer with parameters (the same column for every layer in FLAT mode). */
  INDArray scale(int layer) {
    return scales.get(layer);
  }

  ClippedGradientSum result(INDArray sum, double clipNorm, ClippingMode mode) {
    return new ClippedGradientSum(sum, norms, clippedCount, clipNorm, mode);
  }
}
