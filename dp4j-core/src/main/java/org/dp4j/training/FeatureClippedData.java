package org.dp4j.training;

import static com.google.common.base.Preconditions.checkNotNull;
import static org.dp4j.InvalidSettingException.checkArgument;

import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.dataset.DataSet;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.ops.transforms.Transforms;

/**
 * Training data whose feature vectors are clipped to ℓ2 norm at most L as they are read: x ← x·min(1, L/‖x‖)
 * (Ye &amp; Shokri Alg. 3 feature clipping; docs/accountants.md#ye-shokri, #ye-shokri-certified). The map is fixed before training and applied
 * to each record on its own, so it needs no privacy accounting; it is what makes L a certified constant
 * (β = (L²+1)/2 for softmax regression, Prop. 6.1) rather than an asserted one. The clip factor carries a
 * relative margin of {@value #FLOAT_MARGIN} so that the clipped norm, computed in float32, stays ≤ L.
 *
 * <pre>{@code
 * // given: LabelledImages images; INDArray testFeatures
 * FeatureClippedData data = FeatureClippedData.of(IndexedData.of(images, DataType.FLOAT), 1.0);
 * DataSet batch = data.rows(new int[] {0, 5, 9});   // every feature row has norm <= 1
 * INDArray test = FeatureClippedData.clip(testFeatures, 1.0); // same transform for evaluation
 * }</pre>
 */
public final class FeatureClippedData implements IndexedData {
  /** Relative safety margin of the clip factor against float32 rounding of the norm. */
  public static final double FLOAT_MARGIN = 1e-6;

  private final IndexedData data;
  private final double maxNorm;

  private FeatureClippedData(IndexedData data, double maxNorm) {
    this.data = data;
    this.maxNorm = maxNorm;
  }

  /** {@code data} with every feature vector clipped to ℓ2 norm {@code maxNorm} = L &gt; 0. */
  public static FeatureClippedData of(IndexedData data, double maxNorm) {
    checkNotNull(data, "data");
    checkArgument(maxNorm > 0 && Double.isFinite(maxNorm), "feature clip norm L must be finite and > 0, was %s",
        maxNorm);
    checkArgument(!(data instanceof FeatureClippedData),
        "data is already feature-clipped (L = %s)", data instanceof FeatureClippedData f ? f.maxNorm : 0);
    return new FeatureClippedData(data, maxNorm);
  }

  /** L, the certified bound on every feature vector's ℓ2 norm. */
  public double maxNorm() {
    return maxNorm;
  }

  @Override
  public int size() {
    return data.size();
  }

  @Override
  public DataSet rows(int[] indices) {
    DataSet d = data.rows(indices);
    return new DataSet(clip(d.getFeatures(), maxNorm), d.getLabels());
  }

  /**
   * A copy of {@code features} ([k, ...], one example per row) with each example's vector (all non-batch
   * dimensions together) scaled to ℓ2 norm at most {@code maxNorm}.
   */
  public static INDArray clip(INDArray features, double maxNorm) {
    checkArgument(maxNorm > 0 && Double.isFinite(maxNorm), "feature clip norm L must be finite and > 0, was %s",
        maxNorm);
    long k = features.size(0);
    if (k == 0) {
      return features.dup();
    }
    INDArray flat = features.reshape('c', k, features.length() / k);
    INDArray norms = flat.norm2(1).reshape(k, 1);
    // min(1, L(1 − margin)/‖x‖); a zero row stays zero (L/0 = ∞ → factor 1).
    INDArray factors = Transforms.min(Nd4j.ones(norms.dataType(), k, 1)
        .muli(maxNorm * (1 - FLOAT_MARGIN)).divi(norms), 1.0, false);
    return flat.mulColumnVector(factors).reshape('c', features.shape());
  }
}
