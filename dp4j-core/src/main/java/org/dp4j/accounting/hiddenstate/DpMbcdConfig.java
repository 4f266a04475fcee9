package org.dp4j.accounting.hiddenstate;

import static com.google.common.base.Preconditions.checkNotNull;
import static com.google.common.base.Preconditions.checkState;
import static org.dp4j.InvalidSettingException.checkArgument;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.DoubleFunction;

/**
 * The DP-MBCD mechanism as its accountant sees it (Chen &amp; Liu, Alg. 1 and 4, Eq. 6): every released block
 * takes θ ← Prox_{η,r}(θ − η·ḡ + N(0, 2η·o(k,j)·I)) once per mini-batch, where ḡ is the batch mean of the
 * block gradient; the n examples are split once into N = ⌊n/b⌋ batches of b by a secret, data-independent
 * permutation and visited in the same order every epoch (Chen &amp; Liu 2025; docs/sampling.md#shuffle-once). Immutable.
 *
 * <pre>{@code
 * DpMbcdConfig config = DpMbcdConfig.builder()
 *     .datasetSize(4800).batchSize(960)               // n, b
 *     .stepSize(0.05)                                 // η
 *     .noiseTemperature(NoiseTemperatureSchedule.constant(0.005))   // o(k, j)
 *     .liftedBlock("W0", 1.0, 0.0, 0.5)               // β = γρ², μ, per-example clip C → L_F, L_T, S_g = 2C
 *     .block("W1", 0.95, 1.0, 1.0)                    // L_F, L_T, S_g asserted by the user
 *     .build();
 * }</pre>
 */
public final class DpMbcdConfig {
  private final double stepSize;
  private final long datasetSize;
  private final int batchSize;
  private final int batchesPerEpoch;
  private final NoiseTemperatureSchedule noiseTemperature;
  private final DpMbcdMode mode;
  private final boolean batchSums;
  private final List<DpMbcdBlock> blocks;
  private final String notCertifiedBecause;

  private DpMbcdConfig(Builder b, List<DpMbcdBlock> blocks) {
    this.stepSize = b.stepSize;
    this.datasetSize = b.datasetSize;
    this.batchSize = b.batchSize;
    this.batchesPerEpoch = (int) (b.datasetSize / b.batchSize);
    this.noiseTemperature = b.noiseTemperature;
    this.mode = b.mode;
    this.batchSums = b.batchSums;
    this.blocks = List.copyOf(blocks);
    this.notCertifiedBecause = b.notCertifiedBecause;
  }

  public static Builder builder() {
    return new Builder();
  }

  /** η. */
  public double stepSize() {
    return stepSize;
  }

  /** n. */
  public long datasetSize() {
    return datasetSize;
  }

  /** b. */
  public int batchSize() {
    return batchSize;
  }

  /** N = ⌊n/b⌋: the remainder of the permutation is dropped (docs/sampling.md#shuffle-once). */
  public int batchesPerEpoch() {
    return batchesPerEpoch;
  }

  public NoiseTemperatureSchedule noiseTemperature() {
    return noiseTemperature;
  }

  public DpMbcdMode mode() {
    return mode;
  }

  /**
   * True if the updates sum over the batch while η, o and S_g are taken as for a mean (PAPER mode only: the
   * paper's Eq. 15–17 as printed; docs/errata.md#dp-mbcd-batch-mean). The bound then understates the RDP.
   */
  public boolean batchSums() {
    return batchSums;
  }

  /** The released blocks, in the order given. */
  public List<DpMbcdBlock> blocks() {
    return blocks;
  }

  /**
   * Why a bound computed from this configuration is not a certified guarantee: PAPER mode (the paper's constants),
   * or a mechanism the theorem does not cover that is accounted only to reproduce a paper ({@link
   * Builder#notCertified}); empty for a SAFE configuration of a covered mechanism.
   */
  public Optional<String> notCertifiedBecause() {
    List<String> reasons = new ArrayList<>();
    if (mode == DpMbcdMode.PAPER) {
      reasons.add("PAPER mode reproduces Chen & Liu's accounting (contraction exponent −1/L_T²"
          + (batchSums ? ", batch sums accounted as means" : "") + ", the paper's constants), which is not a"
          + " proven bound (docs/errata.md#dp-mbcd-lipschitz-t, #dp-mbcd-sensitivity, #dp-mbcd-batch-mean)");
    }
    if (notCertifiedBecause != null) {
      reasons.add(notCertifiedBecause);
    }
    return reasons.isEmpty() ? Optional.empty() : Optional.of(String.join("; ", reasons));
  }

  /** Builder; the names follow the paper's symbols. */
  public static final class Builder extends ShuffleOnceDescentBuilder<Builder> {
    private NoiseTemperatureSchedule noiseTemperature;
    private DpMbcdMode mode = DpMbcdMode.SAFE;
    private boolean batchSums;
    private String notCertifiedBecause;
    private final List<DoubleFunction<DpMbcdBlock>> blockSpecs = new ArrayList<>();
    private final List<String> paperConstantBlocks = new ArrayList<>();

    private Builder() {}

    @Override
    Builder self() {
      return this;
    }

    /**
     * Marks the configuration as the accounting of a mechanism the theorem does not cover (e.g. DP-NMF's
     * curvature-scaled steps, DP-MBCD's proximal-point step), kept to reproduce a paper: its bound is reported as the
     * paper's claim, never as ε. The reason is added to PAPER mode's own.
     */
    public Builder notCertified(String reason) {
      checkArgument(reason != null && !reason.isBlank(), "a reason is required, was '%s'", reason);
      this.notCertifiedBecause = reason;
      return this;
    }

    /** o(k, j), fixed before training and independent of the data. */
    public Builder noiseTemperature(NoiseTemperatureSchedule o) {
      this.noiseTemperature = checkNotNull(o, "noise temperature schedule o(k, j)");
      return this;
    }

    /** SAFE (default) or PAPER contraction exponent, see {@link DpMbcdMode}. */
    public Builder mode(DpMbcdMode mode) {
      this.mode = checkNotNull(mode, "mode");
      return this;
    }

    /**
     * Declares that the block updates sum over the batch while this config's η, o and S_g are the paper's
     * (mean-based) ones: allowed in PAPER mode only, where the guarantee then says it understates the RDP
     * (docs/errata.md#dp-mbcd-batch-mean). SAFE accounting of a summed run uses the equivalent mean parameters instead.
     */
    public Builder batchSums(boolean sums) {
      this.batchSums = sums;
      return this;
    }

    /** A block whose L_F, L_T and S_g the user asserts (the guarantee says it is conditional on them). */
    public Builder block(String name, double lipschitzF, double lipschitzT, double gradientSensitivity) {
      return block(name, lipschitzF, lipschitzT, gradientSensitivity, String.format(
          "block %s: user asserts F = θ − η∇f is %s-Lipschitz (L_F), the prox T is %s-Lipschitz (L_T) and the"
              + " per-example gradient sensitivity is S_g = %s", name, lipschitzF, lipschitzT, gradientSensitivity));
    }

    /** As {@link #block(String, double, double, double)}, with the reason the constants hold (or do not). */
    public Builder block(String name, double lipschitzF, double lipschitzT, double gradientSensitivity,
        String assumption) {
      DpMbcdBlock block = new DpMbcdBlock(name, lipschitzF, lipschitzT, gradientSensitivity,
          List.of(checkNotNull(assumption, "assumption")));
      blockSpecs.add(eta -> block);
      return this;
    }

    /**
     * A block whose objective f has Hessian between μ·I and β·I (β: an a-priori smoothness bound such as
     * γρ² for a lifted dense layer with inputs clipped to ρ, mean over the batch; μ &gt; 0 only if an explicit
     * ℓ2 term μ/2‖θ‖² is part of f), per-example gradients bounded by C as gradients of convex per-example
     * losses (clipped residuals / Huber, or fixed weights), and no regulariser or a convex one
     * in the prox. Derived: L_F = max(|1 − ημ|, |1 − ηβ|) (the whole spectrum, not only its top:
     * docs/errata.md#dp-mbcd-lipschitz-f), L_T = 1, S_g = 2C (replace-one, docs/errata.md#dp-mbcd-sensitivity).
     */
    public Builder liftedBlock(String name, double smoothness, double strongConvexity, double clipNorm) {
      return liftedBlock(name, smoothness, strongConvexity, clipNorm, 1.0);
    }

    /**
     * As {@link #liftedBlock(String, double, double, double)} with a prox whose Lipschitz constant at η is
     * {@code proxLipschitz} = L_T ≤ 1 (e.g. 1/(1 + ηλ) for the ℓ2 prox; Chen &amp; Liu 2025; docs/errata.md#dp-mbcd-prox-formulas, #dp-mbcd-lipschitz-t).
     */
    public Builder liftedBlock(String name, double smoothness, double strongConvexity, double clipNorm,
        double proxLipschitz) {
      checkArgument(strongConvexity >= 0 && Double.isFinite(strongConvexity),
          "block %s: strong convexity μ must be finite and >= 0, was %s", name, strongConvexity);
      checkArgument(smoothness >= strongConvexity && Double.isFinite(smoothness),
          "block %s: smoothness β must be finite and >= μ = %s, was %s", name, strongConvexity, smoothness);
      checkArgument(clipNorm > 0 && Double.isFinite(clipNorm), "block %s: clip norm C must be finite and > 0, was %s",
          name, clipNorm);
      checkArgument(proxLipschitz > 0 && proxLipschitz <= 1, "block %s: prox Lipschitz constant L_T must be in"
          + " (0, 1], was %s", name, proxLipschitz);
      blockSpecs.add(eta -> new DpMbcdBlock(name,
          Math.max(Math.abs(1 - eta * strongConvexity), Math.abs(1 - eta * smoothness)), proxLipschitz,
          2 * clipNorm, List.of(String.format("block %s: %s·I ⪯ ∇²f ⪯ %s·I; the per-example gradients, bounded"
              + " by C = %s, must be gradients of convex per-example losses with the same curvature bound (a clipped"
              + " residual, i.e. a Huber loss, or a fixed per-example weight — not a clipped gradient, whose step"
              + " can expand), so L_F holds; S_g = 2C; prox of a convex regulariser, L_T = %s", name, strongConvexity,
              smoothness, clipNorm, proxLipschitz))));
      return this;
    }

    /**
     * A lifted-network block with the paper's constants L_F = |1 − γηρ²|, L_T = 1, S_g = γρ² (Chen &amp; Liu,
     * Lemma B.1). Not sound in general (zero Hessian eigenvalues give L_F = 1; γρ² is a smoothness, not a
     * sensitivity: docs/errata.md#dp-mbcd-lipschitz-f, #dp-mbcd-sensitivity); only for reproducing the paper, so only allowed in PAPER mode.
     */
    public Builder paperLiftedBlock(String name, double gamma, double rho) {
      checkArgument(gamma > 0 && Double.isFinite(gamma), "block %s: γ must be finite and > 0, was %s", name, gamma);
      checkArgument(rho > 0 && Double.isFinite(rho), "block %s: ρ must be finite and > 0, was %s", name, rho);
      paperConstantBlocks.add(name);
      blockSpecs.add(eta -> new DpMbcdBlock(name, Math.abs(1 - gamma * eta * rho * rho), 1.0, gamma * rho * rho,
          List.of(String.format("block %s: the paper's constants L_F = |1 − γηρ²|, S_g = γρ² (γ = %s, ρ = %s),"
              + " not sound in general (docs/errata.md#dp-mbcd-lipschitz-f, #dp-mbcd-sensitivity)", name, gamma, rho))));
      return this;
    }

    public DpMbcdConfig build() {
      checkState(stepSize > 0, "step size η is required");
      checkState(datasetSize >= 1, "dataset size n is required");
      checkState(batchSize >= 1, "batch size b is required");
      checkState(noiseTemperature != null, "noise temperature schedule o(k, j) is required");
      checkState(!blockSpecs.isEmpty(), "at least one released block is required");
      checkArgument(batchSize <= datasetSize, "batch size b = %s must be <= dataset size n = %s", batchSize,
          datasetSize);
      checkArgument(datasetSize / batchSize <= Integer.MAX_VALUE, "N = n/b = %s batches per epoch is too large",
          datasetSize / batchSize);
      checkArgument(mode == DpMbcdMode.PAPER || !batchSums,
          "batch sums with mean-based η, o, S_g are the paper's accounting, allowed in PAPER mode only; SAFE mode"
              + " needs the mean parameters η·b and o/b (docs/errata.md#dp-mbcd-batch-mean)");
      checkArgument(mode == DpMbcdMode.PAPER || paperConstantBlocks.isEmpty(),
          "blocks %s use the paper's constants L_F = |1 − γηρ²|, S_g = γρ², which are only allowed in PAPER mode"
              + " (docs/errata.md#dp-mbcd-lipschitz-f, #dp-mbcd-sensitivity)", paperConstantBlocks);
      List<DpMbcdBlock> blocks = new ArrayList<>();
      for (DoubleFunction<DpMbcdBlock> spec : blockSpecs) {
        DpMbcdBlock block = spec.apply(stepSize);
        checkArgument(blocks.stream().noneMatch(other -> other.name().equals(block.name())),
            "block names must be unique, %s appears twice", block.name());
        blocks.add(block);
      }
      return new DpMbcdConfig(this, blocks);
    }
  }
}
