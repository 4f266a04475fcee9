package org.dp4j.accounting.ledger;

import static com.google.common.base.Preconditions.checkNotNull;
import static com.google.common.base.Preconditions.checkState;
import static org.dp4j.InvalidSettingException.checkArgument;

import java.util.ArrayList;
import java.util.List;
import org.dp4j.InvalidSettingException;
import org.dp4j.accounting.Orders;
import org.dp4j.accounting.RdpCurve;
import org.dp4j.accounting.hiddenstate.NoiseTemperatureSchedule;
import org.dp4j.sampling.SamplingPlan;

/**
 * The composition bound of noisy block updates over a shuffle-once fixed partition (DP-MBCD, DP-NMF), every iterate
 * of every released block released, replace-one neighbours: valid without any hidden-state assumption.
 *
 * <p>Per step (k, j) each released block d takes θ_d ← Post(θ_d − U_d + N(0, 2η·o(k, j)·I)), where the update U_d
 * of the batch changes by at most Δ_d in ℓ2 when one record is replaced (e.g. Δ_d = η·2C/b for a step η on the
 * batch mean of per-example gradients clipped to C) and Post (a proximal map, a projection) does not read the data.
 * Given everything released before, that step is a Gaussian mechanism of RDP α·Δ_d²/(2·2η·o(k, j)) (Mironov 2017,
 * Prop. 7), and the blocks and steps compose adaptively by adding RDP (Prop. 1). Fix the secret permutation: only
 * the batch j0 holding the differing record reads it, the same j0 in every epoch, and a step of another batch has
 * the same output distribution given the past (RDP 0). So after the steps taken the RDP is α·max over j0 of
 * Σ_{k: (k, j0) taken} Σ_d Δ_d²/(4η·o(k, j0)); the bound holds for every permutation, hence for the random one
 * (Rényi divergence is jointly quasi-convex, van Erven &amp; Harremoës 2014, Thm 13). Records the partition drops
 * cost 0. The same argument as {@link FixedPartitionCompositionStepAccountant}, with per-step noise and blocks.
 *
 * <p>Steps beyond the schedule's planned epochs are not covered: the curve there is +∞ (a budget guard stops).
 *
 * <pre>{@code
 * RdpStepAccountant acc = BlockGaussianCompositionStepAccountant.builder()
 *     .partition(60_000, 1000).epochs(10).stepSize(0.1)
 *     .noiseSchedule(NoiseTemperatureSchedule.constant(1e-3), "constant o=0.001")
 *     .block("W0", 0.1 * 2 * 1.0 / 1000, "step 0.1 on the mean of gradients clipped to C = 1")
 *     .orders(Orders.DEFAULT).build();
 * acc.advance(60);   // one epoch: RDP α·Δ²/(4η·o) = α·4e-8/4e-4 = 1e-4·α
 * }</pre>
 *
 * <p>Not thread-safe.
 */
public final class BlockGaussianCompositionStepAccountant extends FixedPartitionRdpAccountant {
  public static final String NAME = "fixed-partition-block-gaussian-rdp";
  public static final String THEOREM = "Gaussian RDP αΔ²/(2σ²) per released block step (Mironov 2017, Prop. 7), "
      + "composed over blocks and steps (Prop. 1); one batch per epoch reads a record (fixed partition)";

  private final int epochs;
  private final double stepSize;
  private final NoiseTemperatureSchedule schedule;
  private final String scheduleDescription;
  private final List<Block> blocks;
  private final double sensitivitySquaredSum;
  private final Orders orders;
  /** Σ over the steps taken at batch position j of Σ_d Δ_d²/(2σ²(k, j)): the RDP coefficient of α if j0 = j. */
  private final double[] coefficientByBatch;

  /**
   * One released block: its name, the ℓ2 replace-one sensitivity Δ of its update in the coordinates the noise is
   * added in, and where Δ comes from (certified from the code: clip norms, step sizes).
   */
  public record Block(String name, double sensitivity, String derivation) {
    public Block {
      checkNotNull(name, "name");
      checkNotNull(derivation, "derivation");
      checkArgument(sensitivity >= 0 && Double.isFinite(sensitivity),
          "block %s: sensitivity must be finite and >= 0, was %s", name, sensitivity);
    }
  }

  private BlockGaussianCompositionStepAccountant(Builder b) {
    super(NAME, THEOREM, b.usableRecords, b.batchSize);
    this.epochs = b.epochs;
    this.stepSize = b.stepSize;
    this.schedule = b.schedule;
    this.scheduleDescription = b.scheduleDescription;
    this.blocks = List.copyOf(b.blocks);
    this.sensitivitySquaredSum = blocks.stream().mapToDouble(x -> x.sensitivity() * x.sensitivity()).sum();
    this.orders = b.orders;
    this.coefficientByBatch = new double[stepsPerEpoch];
  }

  public static Builder builder() {
    return new Builder();
  }

  public List<Block> blocks() {
    return blocks;
  }

  @Override
  public List<String> assumptions() {
    List<String> list = new ArrayList<>();
    list.add(String.format("shuffle-once fixed partition: one secret permutation cut into N = %d batches of b = %d "
        + "(%d records used), the same batches in the same order every epoch", stepsPerEpoch, batchSize,
        usableRecords));
    list.add(String.format("every released block gets N(0, 2η·o(k, j)·I), η = %s, o: %s, fixed before training",
        stepSize, scheduleDescription));
    list.add("whatever a step reads besides its batch's records (other blocks, per-record auxiliaries) is a function"
        + " of those records and of released iterates only");
    for (Block block : blocks) {
      list.add("block " + block.name() + ": replace-one sensitivity Δ = " + block.sensitivity() + " ("
          + block.derivation() + ")");
    }
    return list;
  }

  @Override
  public Orders orders() {
    return orders;
  }

  /** α·max_j Σ (RDP coefficients of the steps at batch position j), or +∞ beyond the planned epochs. */
  @Override
  public RdpCurve curveAfter(long more) {
    long total = stepsAfter(more);
    if (total > (long) epochs * stepsPerEpoch) {
      return RdpCurve.tabulate(orders, a -> Double.POSITIVE_INFINITY);
    }
    double[] c = more == 0 ? coefficientByBatch : coefficientByBatch.clone();
    for (long s = steps(); s < total; s++) {
      int j = (int) (s % stepsPerEpoch);
      c[j] += coefficient((int) (s / stepsPerEpoch), j);
    }
    double max = 0;
    for (double v : c) {
      max = Math.max(max, v);
    }
    double perOrder = max;
    return RdpCurve.tabulate(orders, a -> perOrder == 0 ? 0 : a * perOrder);
  }

  /** Σ_d Δ_d²/(2σ²) with σ² = 2η·o(k, j). */
  private double coefficient(int epoch, int batch) {
    double o = schedule.temperature(epoch, batch);
    checkState(o > 0 && Double.isFinite(o), "o(%s, %s) must be finite and > 0, was %s", epoch, batch, o);
    return sensitivitySquaredSum / (4 * stepSize * o);
  }

  @Override
  void accountSteps(long count) {
    long steps = steps();
    checkArgument(steps + count <= (long) epochs * stepsPerEpoch,
        "the mechanism covers %s epochs of %s steps; cannot account %s more after %s", epochs, stepsPerEpoch, count,
        steps);
    for (long s = steps; s < steps + count; s++) {
      int j = (int) (s % stepsPerEpoch);
      coefficientByBatch[j] += coefficient((int) (s / stepsPerEpoch), j);
    }
  }

  @Override
  public String mechanismDescription() {
    StringBuilder sb = new StringBuilder("block-gaussian(n=").append(usableRecords).append(", b=").append(batchSize)
        .append(", K=").append(epochs).append(", eta=").append(stepSize).append(", o=").append(scheduleDescription)
        .append(", blocks=[");
    for (int i = 0; i < blocks.size(); i++) {
      sb.append(i > 0 ? ", " : "").append(blocks.get(i).name()).append("(Δ=").append(blocks.get(i).sensitivity())
          .append(')');
    }
    return sb.append("])").toString();
  }

  /** Always refused: this bound covers noisy block updates (DP-MBCD, DP-NMF), not DP-SGD steps. */
  @Override
  public void requireCovers(SamplingPlan plan, double noiseMultiplier) {
    throw new InvalidSettingException("the " + NAME + " accountant covers noisy block updates (DP-MBCD, DP-NMF), "
        + "not DP-SGD steps over " + plan.describe() + "; use FixedPartitionCompositionStepAccountant");
  }

  /** Builder; every field is required. */
  public static final class Builder {
    private int usableRecords;
    private int batchSize;
    private int epochs;
    private double stepSize = Double.NaN;
    private NoiseTemperatureSchedule schedule;
    private String scheduleDescription;
    private final List<Block> blocks = new ArrayList<>();
    private Orders orders = Orders.DEFAULT;

    private Builder() {}

    /** N·b records used, in batches of b (the shuffle-once remainder excluded). */
    public Builder partition(int usableRecords, int batchSize) {
      checkPartition(usableRecords, batchSize);
      this.usableRecords = usableRecords;
      this.batchSize = batchSize;
      return this;
    }

    /** K, the planned epochs: the schedule is read only there. */
    public Builder epochs(int epochs) {
      checkArgument(epochs >= 1, "epochs K must be >= 1, was %s", epochs);
      this.epochs = epochs;
      return this;
    }

    /** η in the noise N(0, 2η·o·I). */
    public Builder stepSize(double eta) {
      checkArgument(eta > 0 && Double.isFinite(eta), "step size η must be finite and > 0, was %s", eta);
      this.stepSize = eta;
      return this;
    }

    public Builder noiseSchedule(NoiseTemperatureSchedule schedule, String description) {
      this.schedule = checkNotNull(schedule, "schedule");
      this.scheduleDescription = checkNotNull(description, "description");
      return this;
    }

    /** A released block whose update has replace-one sensitivity {@code sensitivity}. */
    public Builder block(String name, double sensitivity, String derivation) {
      blocks.add(new Block(name, sensitivity, derivation));
      return this;
    }

    public Builder orders(Orders orders) {
      this.orders = checkNotNull(orders, "orders");
      return this;
    }

    public BlockGaussianCompositionStepAccountant build() {
      checkState(batchSize >= 1, "the partition is required");
      checkState(epochs >= 1, "epochs are required");
      checkState(!Double.isNaN(stepSize), "the step size is required");
      checkState(schedule != null, "the noise schedule is required");
      checkState(!blocks.isEmpty(), "at least one released block is required");
      return new BlockGaussianCompositionStepAccountant(this);
    }
  }
}
