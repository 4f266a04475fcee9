package org.dp4j.accounting.hiddenstate;

import static com.google.common.base.Preconditions.checkNotNull;
import static org.dp4j.InvalidSettingException.checkArgument;

import java.util.ArrayList;
import java.util.List;
import org.dp4j.accounting.NeighbouringRelation;
import org.dp4j.accounting.Orders;
import org.dp4j.accounting.PrivacyGuarantee;
import org.dp4j.accounting.RdpConversion;
import org.dp4j.accounting.RdpCurve;

/**
 * Hidden-state accountant of DP-MBCD (Chen &amp; Liu 2025, Thm 4.6 with Cor. 4.5 and Lemma C.3, implemented as
 * the corrected step recursion of docs/errata.md#dp-mbcd-step-recursion; the printed Eq. 9 has index errors): one
 * {@link DpMbcdLedger} per released block, RDP summed over blocks at each order (Chen &amp; Liu 2025; docs/errata.md#dp-mbcd-block-composition),
 * converted once.
 *
 * <p>Neighbours: replace one example. Threat model: only the final released blocks are seen (auxiliaries
 * and intermediate iterates stay inside the trainer). Assumptions: see {@link #assumptions()}; the bound is
 * the paper's claim, conditional on the block constants (docs/threat-models.md#dp-mbcd-auxiliaries).
 *
 * <pre>{@code
 * DpMbcdAccountant acc = new DpMbcdAccountant(DpMbcdConfig.builder()
 *     .datasetSize(4).batchSize(2).stepSize(0.1)
 *     .noiseTemperature(NoiseTemperatureSchedule.constant(0.01))
 *     .block("W", 0.9, 1.0, 1.0).build());
 * acc.advanceEpochs(2);                                   // or acc.step() once per mini-batch
 * PrivacyGuarantee g = acc.guarantee(1e-5, Orders.DEFAULT, RdpConversion.IMPROVED);
 * }</pre>
 *
 * <p>Not thread-safe: one accountant per training run.
 */
public final class DpMbcdAccountant implements HiddenStateAccountant {
  public static final String NAME = "dp-mbcd-hidden-state";
  public static final String THEOREM =
      "Chen & Liu 2025, Thm 4.6 / Cor. 4.5 / Lemma C.3 (step recursion, docs/errata.md#dp-mbcd-step-recursion)";

  private final DpMbcdConfig config;
  private final List<DpMbcdLedger> ledgers;

  public DpMbcdAccountant(DpMbcdConfig config) {
    this.config = checkNotNull(config, "config");
    List<DpMbcdLedger> list = new ArrayList<>();
    for (DpMbcdBlock block : config.blocks()) {
      list.add(new DpMbcdLedger(config, block));
    }
    this.ledgers = List.copyOf(list);
  }

  /** An accountant that has already accounted for {@code epochs} whole epochs. */
  public static DpMbcdAccountant afterEpochs(DpMbcdConfig config, int epochs) {
    return new DpMbcdAccountant(config).advanceEpochs(epochs);
  }

  public DpMbcdConfig config() {
    return config;
  }

  /** The per-block ledgers, in the order of {@link DpMbcdConfig#blocks()}. */
  public List<DpMbcdLedger> ledgers() {
    return ledgers;
  }

  /** Accounts for one mini-batch: every released block takes one update. */
  public DpMbcdAccountant step() {
    ledgers.forEach(DpMbcdLedger::step);
    return this;
  }

  /** Steps to the end of the current epoch, then through {@code epochs − 1} more whole epochs. */
  public DpMbcdAccountant advanceEpochs(int epochs) {
    checkArgument(epochs >= 0, "epochs must be >= 0, was %s", epochs);
    ledgers.forEach(ledger -> ledger.advanceEpochs(epochs));
    return this;
  }

  public int epoch() {
    return ledgers.get(0).epoch();
  }

  public long steps() {
    return ledgers.get(0).steps();
  }

  /**
   * Each epoch's share of the current bound summed over blocks, averaged over the position j0 (Fig. 1b);
   * multiply by α for RDP. See {@link DpMbcdLedger#epochContributions()}.
   */
  public double[] epochContributions() {
    double[] total = ledgers.get(0).epochContributions();
    for (DpMbcdLedger ledger : ledgers.subList(1, ledgers.size())) {
      double[] c = ledger.epochContributions();
      for (int k = 0; k < c.length; k++) {
        total[k] += c[k];
      }
    }
    return total;
  }

  /** The RDP of everything released so far: the sum over blocks at each order. */
  @Override
  public RdpCurve rdp(Orders orders) {
    return rdpAfter(orders, 0);
  }

  /**
   * The RDP the run would have after {@code more} further steps, without changing this accountant: each
   * block's ledger is copied and stepped. O(P·(N + K + more)) plus the O(P·N) per order of the RDP itself.
   */
  public RdpCurve rdpAfter(Orders orders, long more) {
    checkArgument(more >= 0, "further steps must be >= 0, was %s", more);
    RdpCurve total = RdpCurve.zero(orders);
    for (DpMbcdLedger ledger : ledgers) {
      DpMbcdLedger future = more == 0 ? ledger : ledger.copy();
      for (long i = 0; i < more; i++) {
        future.step();
      }
      total = total.plus(future.rdp(orders));
    }
    return total;
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public NeighbouringRelation relation() {
    return NeighbouringRelation.REPLACE_ONE;
  }

  /** The (ε, δ) guarantee for releasing the current blocks, minimised over {@code orders}. */
  @Override
  public PrivacyGuarantee guarantee(double delta, Orders orders, RdpConversion conversion) {
    return rdpGuarantee(THEOREM, delta, orders, conversion);
  }

  /** Same as {@link #guarantee(double, Orders, RdpConversion)}, argument order of the Ye–Shokri accountants. */
  public PrivacyGuarantee guarantee(Orders orders, double delta, RdpConversion conversion) {
    return guarantee(delta, orders, conversion);
  }

  /** Everything the guarantee is conditional on, including each block's constants. */
  @Override
  public List<String> assumptions() {
    List<String> list = new ArrayList<>();
    list.add(String.format("one secret, data-independent permutation split into N = %d batches of b = %d"
        + " (remainder of n = %d dropped), visited in the same order every epoch (no reshuffling)",
        config.batchesPerEpoch(), config.batchSize(), config.datasetSize()));
    list.add("noise temperature schedule o(k, j) fixed before training, independent of the data");
    list.add("initial parameters independent of the private data (point-mass start, c_0 = ∞)");
    list.add(config.batchSums()
        ? "block updates SUM over the batch (Eq. 15–17 as printed) but η, o and S_g enter as for a batch mean, as"
            + " in the paper's numbers: this understates the RDP (by up to b² = " + (double) config.batchSize()
            * config.batchSize() + "; docs/errata.md#dp-mbcd-batch-mean), so it is the paper's claim, not a guarantee"
        : "block gradients are batch means");
    list.add("hidden auxiliaries are never released and, as the paper claims but does not prove, leak nothing"
        + " between blocks (docs/threat-models.md#dp-mbcd-auxiliaries)");
    list.add("only the final released blocks leave the trainer: no checkpoints or evaluation on private data");
    if (config.mode() == DpMbcdMode.PAPER) {
      list.add("PAPER mode: contraction exponent −1/L_T², as printed, unjustified for L_T < 1 (docs/errata.md#dp-mbcd-lipschitz-t)");
    }
    if (config.batchesPerEpoch() == 1) {
      list.add("N = 1 (full batch): no amplification by the secret batch position; ε grows linearly in epochs");
    }
    for (DpMbcdBlock block : config.blocks()) {
      list.addAll(block.assumptions());
    }
    return list;
  }
}
