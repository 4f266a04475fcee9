package org.dp4j.accounting.ledger;

import org.dp4j.sampling.SamplingScheme;
import org.dp4j.sampling.SamplingPlan;
import org.dp4j.sampling.SamplingCompatibility;
import static com.google.common.base.Preconditions.checkNotNull;
import static org.dp4j.InvalidSettingException.checkArgument;

import java.util.List;
import org.dp4j.accounting.GaussianRdp;
import org.dp4j.accounting.Orders;
import org.dp4j.accounting.RdpCurve;

/**
 * DP-SGD's composition bound when batches are a shuffle-once fixed partition (every record in exactly one batch
 * of b per epoch, same batches every epoch; remainder dropped), every iterate released, replace-one neighbours.
 *
 * <p>Why one Gaussian per epoch: fix the secret permutation. The clipped sum of a batch changes by at most 2C when
 * one record is replaced (docs/errata.md#ye-shokri-sensitivity), and only in the one batch j0 that holds it; a step whose batch does not
 * hold it has the same output distribution given the past on both datasets (RDP 0). So each epoch is one Gaussian
 * mechanism of sensitivity 2C under noise zC, RDP α(2C)²/(2(zC)²) = 2α/z² (Mironov 2017, Prop. 7; Ye &amp; Shokri 2022; docs/accountants.md#ye-shokri,
 * G(α) in Algorithm 3 units), and K epochs compose adaptively to 2Kα/z² (Mironov 2017, Prop. 1). A dropped record
 * costs 0. The bound holds for every permutation, hence for the random one (RDP is jointly quasi-convex;
 * docs/accountants.md#fixed-partition-composition; Ye &amp; Shokri 2022, Lemma 5.1).
 *
 * <p>Mid-epoch the differing record may sit in batch 0, which has already run: after s steps the accountant
 * reports ⌈s/m⌉ epochs, the worst case over positions (so a run stopped anywhere is covered).
 *
 * <pre>{@code
 * StepAccountant acc = new FixedPartitionCompositionStepAccountant(59_392, 2048, 3.08, Orders.DEFAULT);
 * acc.advance(29);                 // m = 29: one epoch, RDP 2α/3.08²
 * }</pre>
 */
public final class FixedPartitionCompositionStepAccountant extends FixedPartitionRdpAccountant {
  public static final String NAME = "fixed-partition-gaussian-rdp";
  public static final String THEOREM = "Gaussian RDP (Mironov 2017, Prop. 7) with replace-one sensitivity 2C, "
      + "one release per epoch (disjoint batches), composed over epochs (Prop. 1); Ye & Shokri 2022; docs/accountants.md#ye-shokri; docs/errata.md#ye-shokri-sensitivity";

  private final double noiseMultiplier;
  private final RdpCurve perEpoch;

  /**
   * @param usableRecords records the partition uses, m·b (the shuffle-once remainder excluded)
   * @param batchSize b; must divide {@code usableRecords}, with m = usableRecords / b steps per epoch
   * @param noiseMultiplier z: noise N(0, (zC)²I) on each step's clipped sum
   */
  public FixedPartitionCompositionStepAccountant(int usableRecords, int batchSize, double noiseMultiplier,
      Orders orders) {
    super(NAME, THEOREM, usableRecords, batchSize);
    checkArgument(noiseMultiplier > 0 && Double.isFinite(noiseMultiplier),
        "noise multiplier must be finite and > 0, was %s", noiseMultiplier);
    this.noiseMultiplier = noiseMultiplier;
    // Sensitivity 2C over noise zC: in units of C, Δ = 2 and s = z.
    this.perEpoch = GaussianRdp.curve(2.0, noiseMultiplier, checkNotNull(orders, "orders"));
  }

  /** m·b, the records the partition uses. */
  public int usableRecords() {
    return usableRecords;
  }

  /** b. */
  public int batchSize() {
    return batchSize;
  }

  /** z. */
  public double noiseMultiplier() {
    return noiseMultiplier;
  }

  @Override
  public List<String> assumptions() {
    return List.of(
        String.format("shuffle-once fixed partition: one secret permutation cut into m = %d batches of b = %d, "
            + "the same batches every epoch; each record in at most one batch per epoch", stepsPerEpoch, batchSize),
        String.format("each step adds N(0, (zC)²I), z = %s, to the sum of per-example gradients clipped to C",
            noiseMultiplier),
        "the batch partition and the noise are independent of the data; every iterate may be released");
  }

  @Override
  public Orders orders() {
    return perEpoch.orders();
  }

  /** 2α/z² times the number of epochs begun after {@code steps + more} steps. */
  @Override
  public RdpCurve curveAfter(long more) {
    long total = stepsAfter(more);
    return perEpoch.times((total + stepsPerEpoch - 1) / stepsPerEpoch);
  }

  @Override
  void accountSteps(long count) {
    // the curve depends on the step count only
  }

  @Override
  public String mechanismDescription() {
    return "fixed-partition-gaussian(n=" + usableRecords + ", b=" + batchSize + ", z=" + noiseMultiplier + ")";
  }

  /** A shuffle-once fixed partition with this b and n, and noise multiplier z. */
  @Override
  public void requireCovers(SamplingPlan plan, double noiseMultiplier) {
    checkArgument(noiseMultiplier == this.noiseMultiplier,
        "the ledger accounts noise multiplier %s but the run adds noise with multiplier %s", this.noiseMultiplier,
        noiseMultiplier);
    SamplingCompatibility.requireFixedSize(NAME, SamplingScheme.SHUFFLE_ONCE_FIXED_PARTITION, usableRecords,
        batchSize, plan);
  }
}
