package org.dp4j.mbcd;

import static com.google.common.base.Preconditions.checkNotNull;
import static org.dp4j.InvalidSettingException.checkArgument;

import java.util.Optional;
import org.dp4j.accounting.Orders;
import org.dp4j.accounting.RdpConversion;
import org.dp4j.accounting.ThreatModel;
import org.dp4j.accounting.hiddenstate.DpMbcdAccountant;
import org.dp4j.accounting.hiddenstate.DpMbcdConfig;
import org.dp4j.accounting.hiddenstate.DpMbcdMode;
import org.dp4j.accounting.hiddenstate.DpMbcdStepAccountant;
import org.dp4j.accounting.ledger.BlockGaussianCompositionStepAccountant;
import org.dp4j.accounting.ledger.PrivacyBudget;
import org.dp4j.accounting.ledger.PrivacyLedger;
import org.dp4j.sampling.SamplingCompatibility;
import org.dp4j.sampling.SamplingScheme;

/**
 * How a DP-MBCD run is accounted: turns the {@link DpMbcdMechanism} the trainer runs into the
 * hidden-state accountant's {@link DpMbcdConfig} (Chen &amp; Liu Thm 4.6 as the step recursion of
 * docs/errata.md#dp-mbcd-step-recursion; one block per released W_d, RDP summed: docs/errata.md#dp-mbcd-block-composition) and a {@link PrivacyLedger} for "only
 * the last iterate released", replace-one, with an optional budget on that threat model.
 *
 * <p>SAFE mode (default) derives every constant from what the code enforces (docs/errata.md#dp-mbcd-lipschitz-f, #dp-mbcd-lipschitz-t, #dp-mbcd-sensitivity): S_g = 2C
 * from per-example clipping, L_T from the prox at η, and L_F = max(|1 − ημ|, |1 − η(β_d + μ)|) with
 * β_d = w_d(ρ_d² + 1) the Hessian bound of the block's mean squared loss given ‖x_d‖ ≤ ρ_d (w_d = γ for
 * hidden blocks, 1 for the output; the +1 is the bias; a convolution block's bound in its normalised step
 * coordinates, docs/errata.md#dp-mbcd-lipschitz-f, see {@link ConvolutionBlock}) and μ the explicit ℓ2 term; μ = 0 gives L_F = 1.
 * PAPER mode uses the paper's L_F = |1 − w_dηρ_d²|, S_g = w_dρ_d², L_T = 1 and exponent −1/L_T²
 * (Lemma B.1), for reproduction only.
 *
 * <pre>{@code
 * // given: DpMbcdTrainer trainer
 * DpMbcdAccounting acc = DpMbcdAccounting.builder().delta(1e-5).budget(3.0).build();
 * PrivacyLedger ledger = acc.ledger(trainer.mechanism());   // the trainer does this itself
 * }</pre>
 */
public final class DpMbcdAccounting {
  private final DpMbcdMode mode;
  private final double delta;
  private final Optional<Double> budget;
  private final Orders orders;
  private final RdpConversion conversion;
  private final boolean budgetFromPaperClaim;
  private final boolean paperClaimAlongside;

  private DpMbcdAccounting(Builder b) {
    this.mode = b.mode;
    this.delta = b.delta;
    this.budget = Optional.ofNullable(b.budget);
    this.orders = b.orders;
    this.conversion = b.conversion;
    this.budgetFromPaperClaim = b.budgetFromPaperClaim;
    this.paperClaimAlongside = b.paperClaimAlongside;
  }

  public static Builder builder() {
    return new Builder();
  }

  /** SAFE mode, δ = 1e-5, no budget, default orders, improved conversion. */
  public static DpMbcdAccounting defaults() {
    return builder().build();
  }

  public DpMbcdMode mode() {
    return mode;
  }

  public double delta() {
    return delta;
  }

  /** ε budget for "only the last iterate released", if any. */
  public Optional<Double> budget() {
    return budget;
  }

  public Orders orders() {
    return orders;
  }

  public RdpConversion conversion() {
    return conversion;
  }

  /** Whether the budget stops on the paper's claim instead of a certified bound (only on request). */
  public boolean budgetFromPaperClaim() {
    return budgetFromPaperClaim;
  }

  /** Whether a SAFE ledger also holds the paper's claim for the same run ({@link Builder#paperClaimAlongside}). */
  public boolean paperClaimAlongside() {
    return paperClaimAlongside;
  }

  /** The same accounting in another mode (e.g. to show the paper's ε next to the safe one). */
  public DpMbcdAccounting withMode(DpMbcdMode other) {
    Builder b = builder().mode(other).delta(delta).orders(orders).conversion(conversion)
        .budgetFromPaperClaim(budgetFromPaperClaim && other == DpMbcdMode.PAPER)
        .paperClaimAlongside(paperClaimAlongside);
    budget.ifPresent(b::budget);
    return b.build();
  }

  /** The accountant's view of the mechanism: n = N·b used examples, one block W_d per released layer. */
  public DpMbcdConfig config(DpMbcdMechanism m) {
    checkNotNull(m, "mechanism");
    checkArgument(m.blockStepRule() == BlockStepRule.GRADIENT || mode == DpMbcdMode.PAPER,
        "the proximal-point block step applies a data-dependent map to unclipped updates, which SAFE accounting"
            + " cannot certify (docs/errata.md#dp-mbcd-sensitivity; docs/threat-models.md#dp-mbcd-auxiliaries); account it in PAPER mode (the paper's claim) or use"
            + " BlockStepRule.GRADIENT");
    // SAFE sees the map as it is (mean parameters); PAPER keeps the paper's η and o, as its numbers do
    boolean paper = mode == DpMbcdMode.PAPER;
    DpMbcdConfig.Builder b = DpMbcdConfig.builder().datasetSize(m.examplesUsed())
        .batchSize(m.batchSize()).stepSize(paper ? m.learningRate() : m.meanLearningRate())
        .noiseTemperature(paper ? m.noiseSchedule() : m.meanNoiseSchedule()).mode(mode)
        .batchSums(paper && m.batchReduction() == BatchReduction.SUM);
    if (m.blockStepRule() == BlockStepRule.PROXIMAL_POINT) {
      b.notCertified("the proximal-point block step applies a data-dependent map to unclipped sums, so it has no "
          + "certified sensitivity: neither SAFE hidden-state nor composition accounting covers it (docs/errata.md#dp-mbcd-sensitivity; docs/threat-models.md#dp-mbcd-auxiliaries)");
    }
    int last = m.numReleasedBlocks() - 1;
    for (int d = 0; d <= last; d++) {
      double rho = m.activationNormBound(d);
      checkArgument(Double.isFinite(rho),
          "block W%s: the norm of its input x_%s is not bounded (set inputNormBound), so neither its"
              + " smoothness nor L_F is certified", d, d);
      double weight = d == last ? 1.0 : m.gamma();
      if (mode == DpMbcdMode.PAPER) {
        b.paperLiftedBlock("W" + d, weight, rho);
      } else {
        double mu = m.strongConvexity();
        b.liftedBlock("W" + d, m.smoothnessBound(d) + mu, mu, m.clipNorm(), m.proxLipschitz());
      }
    }
    return b.build();
  }

  /**
   * The accountant's view of DP-NMF's shared item factors Y (Chen &amp; Liu Alg. 3, HFL;
   * docs/errata.md#dp-mbcd-nmf): one block, n = N·b users, S_g = 2C (per-user clipping), L_T = 1 (projection onto Y ≥ 0), and
   * L_F = 1 asserted: the projected gradient step on the convex Y-block is assumed non-expansive (it is if
   * the step times the curvature stays ≤ 2, which the code does not certify for FIXED steps). The user
   * factors X_i are each user's own rows and are not covered. Only SAFE mode.
   */
  public DpMbcdConfig itemFactors(DpNmfMechanism m) {
    checkNotNull(m, "mechanism");
    checkArgument(mode == DpMbcdMode.SAFE, "DP-NMF is accounted in SAFE mode only, was %s", mode);
    DpMbcdConfig.Builder b = DpMbcdConfig.builder().datasetSize((long) m.numBatchesPerEpoch() * m.batchSize())
        .batchSize(m.batchSize()).stepSize(m.learningRate()).noiseTemperature(m.noiseSchedule());
    if (m.stepRule() == NmfStepRule.CURVATURE_SCALED) {
      b.notCertified(CURVATURE_SCALED_NOT_COVERED);
    }
    return b.block("Y", 1.0, 1.0, m.gradientSensitivity(), m.stepRule() == NmfStepRule.FIXED
            ? "block Y: L_F = 1 asserted (the projected gradient step on the convex Y-block is non-expansive if"
                + " η·‖X_BᵀX_B/b‖₂ ≤ 2, not checked by the code), L_T = 1 (projection onto Y ≥ 0), S_g = 2C"
                + " (per-user clipping)"
            : "block Y: CURVATURE-SCALED steps η·min(1, κ/‖H‖₂) depend on the batch, which the theorem does not"
                + " cover (docs/errata.md#dp-mbcd-hessian-clipping): this ε is the paper's claim with L_F = 1, L_T = 1, S_g = 2C, not a bound")
        .build();
  }

  /** The SAFE accountant's configuration of the run, if SAFE accounting covers it (not the proximal-point step). */
  private Optional<DpMbcdConfig> safeConfig(DpMbcdMechanism m) {
    try {
      return Optional.of(withMode(DpMbcdMode.SAFE).config(m));
    } catch (IllegalArgumentException e) {
      return Optional.empty();
    }
  }

  /**
   * The composition bound of the run's released block steps (every iterate released, replace-one; {@link
   * BlockGaussianCompositionStepAccountant}): each block W_d takes a step η on the batch mean of per-example
   * gradients bounded by C (mean parameterisation), so one replaced record moves the update by at most η·2C/b,
   * under noise N(0, 2η·o(k, j)·I). Empty for the proximal-point step, whose data-dependent map of unclipped sums
   * has no certified sensitivity (docs/errata.md#dp-mbcd-sensitivity; docs/threat-models.md#dp-mbcd-auxiliaries).
   */
  public Optional<BlockGaussianCompositionStepAccountant> composition(DpMbcdMechanism m) {
    checkNotNull(m, "mechanism");
    if (m.blockStepRule() != BlockStepRule.GRADIENT) {
      return Optional.empty();
    }
    double eta = m.meanLearningRate();
    BlockGaussianCompositionStepAccountant.Builder b = BlockGaussianCompositionStepAccountant.builder()
        .partition(m.examplesUsed(), m.batchSize()).epochs(m.epochs()).stepSize(eta)
        .noiseSchedule(m.meanNoiseSchedule(), m.scheduleDescription()
            + (m.batchReduction() == BatchReduction.SUM ? " (divided by b: batch-mean parameterisation)" : ""))
        .orders(orders);
    String derivation = String.format("step η = %s on the batch mean of b = %d per-example gradients bounded by "
        + "C = %s: Δ = η·2C/b", eta, m.batchSize(), m.clipNorm());
    for (int d = 0; d < m.numReleasedBlocks(); d++) {
      b.block("W" + d, eta * m.gradientSensitivity() / m.batchSize(), derivation);
    }
    return Optional.of(b.build());
  }

  /**
   * The composition bound of DP-NMF's released item factors Y (every iterate of Y released, replace-one user; the
   * rows X_i stay with their users, as for {@link #itemFactors}): per batch Y moves by s·ḡ with ḡ the mean of
   * per-user gradients clipped to C and noise N(0, 2η·o·I). FIXED steps s = η: Δ = η·2C/b. CURVATURE_SCALED steps
   * s = η·min(1, κ/‖X_BᵀX_B/b‖₂) ≤ η depend on the batch, so only ‖s·ḡ − s'·ḡ'‖ ≤ 2ηC is certified: Δ = 2ηC.
   */
  public BlockGaussianCompositionStepAccountant composition(DpNmfMechanism m) {
    checkNotNull(m, "mechanism");
    boolean fixed = m.stepRule() == NmfStepRule.FIXED;
    double eta = m.learningRate();
    return BlockGaussianCompositionStepAccountant.builder()
        .partition(m.numBatchesPerEpoch() * m.batchSize(), m.batchSize()).epochs(m.epochs()).stepSize(eta)
        .noiseSchedule(m.noiseSchedule(), m.scheduleDescription()).orders(orders)
        .block("Y", fixed ? eta * m.gradientSensitivity() / m.batchSize() : eta * m.gradientSensitivity(), fixed
            ? String.format("step η = %s on the mean of b = %d per-user gradients clipped to C = %s: Δ = η·2C/b",
                eta, m.batchSize(), m.clipNorm())
            : String.format("curvature-scaled step s ≤ η = %s depends on the batch; ‖s·ḡ‖ ≤ ηC with ḡ the mean of "
                + "per-user gradients clipped to C = %s: Δ = 2ηC", eta, m.clipNorm()))
        .build();
  }

  /**
   * A ledger for a DP-NMF run: the hidden-state accountant of Y ({@link #itemFactors}; the paper's claim for
   * curvature-scaled steps) and the composition bound of Y ({@link #composition(DpNmfMechanism)}). Step it once per
   * batch.
   */
  public PrivacyLedger ledger(DpNmfMechanism m) {
    DpMbcdConfig config = itemFactors(m);
    PrivacyLedger.Builder b = PrivacyLedger.builder()
        .accountant(new DpMbcdStepAccountant(config, orders, m.scheduleDescription()))
        .accountant(composition(m))
        .delta(delta).conversion(conversion);
    budget.ifPresent(e -> b.budget(new PrivacyBudget(e, delta, ThreatModel.LAST_ITERATE_ONLY)));
    return b.budgetFromPaperClaim(budgetFromPaperClaim).build();
  }

  static final String CURVATURE_SCALED_NOT_COVERED = "DP-NMF's curvature-scaled steps η·min(1, κ/‖H‖₂) depend on "
      + "the batch, which the hidden-state theorem does not cover (docs/errata.md#dp-mbcd-hessian-clipping); use fixed steps for a certified "
      + "hidden-state bound";

  /**
   * Why the paper's accounting (PAPER mode) has no claim for {@code m}, if it has none: its constants do not exist
   * for every run (e.g. the paper's L_F = |1 − η·ρ²| is 0 at η·ρ² = 1). A SAFE ledger built with {@link
   * Builder#paperClaimAlongside} then simply holds no claim; this says why.
   */
  public Optional<String> noPaperClaimBecause(DpMbcdMechanism m) {
    try {
      withMode(DpMbcdMode.PAPER).config(m);
      return Optional.empty();
    } catch (IllegalArgumentException e) {
      return Optional.of(e.getMessage());
    }
  }

  private Optional<DpMbcdConfig> paperClaimConfig(DpMbcdMechanism m) {
    return noPaperClaimBecause(m).isEmpty() ? Optional.of(withMode(DpMbcdMode.PAPER).config(m)) : Optional.empty();
  }

  /** A one-shot accountant (e.g. for a side-by-side mode comparison); step it once per batch. */
  public DpMbcdAccountant accountant(DpMbcdMechanism m) {
    return new DpMbcdAccountant(config(m));
  }

  /**
   * A fresh ledger for the run, after checking that the trainer's batches are the shuffle-once fixed
   * partition the theorem assumes, with the accountant's b and n (Chen &amp; Liu 2025; docs/sampling.md#shuffle-once). Its accountants: the
   * hidden-state accountant in this mode; the composition bound of the clipped block steps ({@link
   * #composition(DpMbcdMechanism)}, if the step rule has one); in PAPER mode (the paper's claim, not certified) also
   * the SAFE hidden-state accountant where it covers the run, so that the ledger's ε is a guarantee; in SAFE mode
   * with {@link Builder#paperClaimAlongside}, also the PAPER accountant where the paper's constants exist, reported
   * as the ledger's paper's claim ({@link PrivacyLedger#paperClaim}), never as ε and never the budget's.
   */
  public PrivacyLedger ledger(DpMbcdMechanism m) {
    DpMbcdConfig config = config(m);
    SamplingCompatibility.requireFixedSize(DpMbcdAccountant.NAME, SamplingScheme.SHUFFLE_ONCE_FIXED_PARTITION,
        (int) config.datasetSize(), config.batchSize(), m.samplingPlan());
    PrivacyLedger.Builder b = PrivacyLedger.builder()
        .accountant(new DpMbcdStepAccountant(config, orders, m.scheduleDescription()))
        .delta(delta).conversion(conversion);
    composition(m).ifPresent(b::accountant);
    if (mode == DpMbcdMode.PAPER) {
      // the paper's claim is not a guarantee: SAFE accounting of the same run, where it exists, is
      safeConfig(m).ifPresent(safe -> b.accountant(new DpMbcdStepAccountant(safe, orders, m.scheduleDescription())));
    } else if (paperClaimAlongside) {
      // the paper's claim side by side (Chen & Liu 2025's own constants): uncertified, so never ε nor the budget's
      paperClaimConfig(m).ifPresent(p -> b.accountant(new DpMbcdStepAccountant(p, orders, m.scheduleDescription())));
    }
    budget.ifPresent(e -> b.budget(new PrivacyBudget(e, delta, ThreatModel.LAST_ITERATE_ONLY)));
    PrivacyLedger ledger = b.budgetFromPaperClaim(budgetFromPaperClaim).build();
    checkArgument(budget.isEmpty() || budgetFromPaperClaim || ledger.best(ThreatModel.LAST_ITERATE_ONLY, 0).isPresent(),
        "a budget needs a certified bound, and this run has none (%s); stop on the paper's claim explicitly "
            + "(budgetFromPaperClaim) or use the gradient block step", String.join("; ", ledger.notCertifiedBecause()));
    return ledger;
  }

  @Override
  public String toString() {
    return "DP-MBCD accounting: mode " + mode + ", delta " + delta
        + budget.map(e -> ", budget epsilon " + e).orElse("")
        + (budgetFromPaperClaim ? " (stops on the paper's claim, not on a certified bound)" : "") + ", "
        + conversion + " conversion";
  }

  /** Builder; every field has a default. */
  public static final class Builder {
    private DpMbcdMode mode = DpMbcdMode.SAFE;
    private double delta = 1e-5;
    private Double budget;
    private Orders orders = Orders.DEFAULT;
    private RdpConversion conversion = RdpConversion.IMPROVED;
    private boolean budgetFromPaperClaim;
    private boolean paperClaimAlongside;

    private Builder() {}

    /**
     * In SAFE mode, also account the run as the paper does (PAPER mode's constants, not certified) and hold it in
     * the ledger as its paper's claim, to compare the two side by side: each {@code LedgerRow.paperClaim()} is then
     * the paper's ε after that epoch. It is never reported as ε and never stops the budget (refused together with
     * {@link #budgetFromPaperClaim}: use PAPER mode to stop on the claim). No effect in PAPER mode, whose ledger
     * holds the claim anyway.
     */
    public Builder paperClaimAlongside(boolean alongside) {
      this.paperClaimAlongside = alongside;
      return this;
    }

    /**
     * Stop the budget on the paper's claim (PAPER mode's uncertified ε) instead of the best certified bound; only to
     * reproduce the paper's runs. Needs a budget; the report states it.
     */
    public Builder budgetFromPaperClaim(boolean fromPaperClaim) {
      this.budgetFromPaperClaim = fromPaperClaim;
      return this;
    }

    /** SAFE (default, constants certified from the code) or PAPER (the paper's constants). */
    public Builder mode(DpMbcdMode mode) {
      this.mode = checkNotNull(mode, "mode");
      return this;
    }

    public Builder delta(double delta) {
      checkArgument(delta > 0 && delta < 1, "delta must be in (0, 1), was %s", delta);
      this.delta = delta;
      return this;
    }

    /** Stop before the step that would take ε (only the last iterate released) above this. */
    public Builder budget(double epsilon) {
      checkArgument(epsilon > 0 && Double.isFinite(epsilon),
          "budget epsilon must be finite and > 0, was %s", epsilon);
      this.budget = epsilon;
      return this;
    }

    public Builder orders(Orders orders) {
      this.orders = checkNotNull(orders, "orders");
      return this;
    }

    public Builder conversion(RdpConversion conversion) {
      this.conversion = checkNotNull(conversion, "conversion");
      return this;
    }

    public DpMbcdAccounting build() {
      checkArgument(!(paperClaimAlongside && budgetFromPaperClaim && mode == DpMbcdMode.SAFE),
          "a SAFE budget stops on a certified bound: budgetFromPaperClaim would stop on the paper's claim held "
              + "alongside; use mode PAPER to stop on the paper's claim");
      return new DpMbcdAccounting(this);
    }
  }
}
