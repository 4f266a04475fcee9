package org.dp4j.mbcd;

import static org.dp4j.InvalidSettingException.checkArgument;

import org.dp4j.training.FeatureClippedData;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.ops.transforms.Transforms;

/**
 * Per-example norm clipping x ← x·min(1, ρ/‖x‖₂), one row per example (Chen &amp; Liu Eq. 12;
 * docs/errata.md#dp-mbcd-lifted-updates). It bounds the W-block Hessian by ρ² (Lemma B.1). The trainer clips its inputs to ρ_0
 * ({@link DpMbcdMechanism#activationNormBound(int) activationNormBound(0)}); clip test inputs the same
 * way before evaluating the released network.
 *
 * <pre>{@code
 * // given: DpMbcdTrainer trainer; INDArray testFeatures
 * RowNormClip.clipInPlace(testFeatures, trainer.mechanism().activationNormBound(0));
 * }</pre>
 */
public final class RowNormClip {
  private RowNormClip() {}

  /** Clips every row of {@code rows} in place to norm ≤ rho (+∞ = no clipping). */
  public static void clipInPlace(INDArray rows, double rho) {
    checkArgument(rho > 0, "clip bound rho must be > 0, was %s", rho);
    if (rho == Double.POSITIVE_INFINITY) {
      return;
    }
    // in float32 the rescaled norm can round above ρ, which the certified smoothness bound ρ² + 1 rests on: aim
    // FeatureClippedData.FLOAT_MARGIN below it, as the feature clip does (exact enough in float64)
    double target = rows.dataType() == DataType.DOUBLE ? rho : rho * (1 - FeatureClippedData.FLOAT_MARGIN);
    INDArray norms = rows.norm2(1).reshape(rows.rows(), 1);
    INDArray scale = Transforms.min(norms.rdivi(target), 1.0, false);
    rows.muliColumnVector(scale);
  }
}
