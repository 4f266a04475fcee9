package org.dp4j.accounting.hiddenstate;

import static com.google.common.base.Preconditions.checkNotNull;
import static org.dp4j.InvalidSettingException.checkArgument;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;
import org.dp4j.InvalidSettingException;
import org.dp4j.accounting.NeighbouringRelation;
import org.dp4j.accounting.Orders;
import org.dp4j.accounting.RdpCurve;
import org.dp4j.accounting.ThreatModel;
import org.dp4j.accounting.ledger.RdpStepAccountant;
import org.dp4j.sampling.SamplingPlan;

/**
 * The DP-MBCD hidden-state accountant ({@link DpMbcdAccountant}, Chen &amp; Liu Thm 4.6 as the step recursion of
 * docs/errata.md#dp-mbcd-step-recursion) as a {@link RdpStepAccountant}: one step per mini-batch, i.e. one update of every released
 * block. The recursion covers every step, including mid-epoch ones (batches not yet visited this epoch are
 * only contracted), so a budget guard may stop at any step.
 *
 * <p>{@link #curveAfter(long)} copies the per-block ledgers and steps the copies: O(P·(N + K + more)) plus
 * the RDP evaluation itself, O(P·N) per order, which a step costs anyway (N batches per epoch, K epochs,
 * P blocks).
 *
 * <pre>{@code
 * // given: DpMbcdConfig config
 * RdpStepAccountant acc = new DpMbcdStepAccountant(config, Orders.DEFAULT, "constant o = 0.01");
 * PrivacyLedger ledger = PrivacyLedger.builder().accountant(acc).delta(1e-5)
 *     .budget(new PrivacyBudget(3.0, 1e-5, ThreatModel.LAST_ITERATE_ONLY)).build();
 * while (ledger.tryStep()) {
 *   // one DP-MBCD mini-batch update
 * }
 * }</pre>
 *
 * <p>Not thread-safe.
 */
public final class DpMbcdStepAccountant implements RdpStepAccountant {
  private final DpMbcdAccountant accountant;
  private final Orders orders;
  private final String scheduleDescription;

  /**
   * @param config the mechanism
   * @param orders the Rényi orders of every curve
   * @param scheduleDescription what identifies the noise schedule o(k, j) (a lambda cannot describe itself),
   *     e.g. "constant o = 0.01"; part of {@link #mechanismDescription()}, which refuses resuming a ledger
   *     under a different mechanism
   */
  public DpMbcdStepAccountant(DpMbcdConfig config, Orders orders, String scheduleDescription) {
    this.accountant = new DpMbcdAccountant(checkNotNull(config, "config"));
    this.orders = checkNotNull(orders, "orders");
    this.scheduleDescription = checkNotNull(scheduleDescription, "scheduleDescription");
  }

  /** {@value DpMbcdAccountant#NAME}, or {@value #PAPER_CLAIM_NAME} for an uncertified (PAPER-mode) configuration. */
  @Override
  public String name() {
    return notCertifiedBecause().isPresent() ? PAPER_CLAIM_NAME : DpMbcdAccountant.NAME;
  }

  /** The name of the accountant when it reproduces the paper's uncertified accounting. */
  public static final String PAPER_CLAIM_NAME = DpMbcdAccountant.NAME + "-paper-claim";

  @Override
  public String theorem() {
    return DpMbcdAccountant.THEOREM;
  }

  @Override
  public ThreatModel threatModel() {
    return accountant.threatModel();
  }

  @Override
  public NeighbouringRelation relation() {
    return accountant.relation();
  }

  @Override
  public List<String> assumptions() {
    return accountant.assumptions();
  }

  /** PAPER mode, or a configuration marked as the paper's accounting of an uncovered mechanism. */
  @Override
  public Optional<String> notCertifiedBecause() {
    return accountant.config().notCertifiedBecause();
  }

  @Override
  public Orders orders() {
    return orders;
  }

  @Override
  public long steps() {
    return accountant.steps();
  }

  @Override
  public RdpCurve curve() {
    return accountant.rdp(orders);
  }

  @Override
  public RdpCurve curveAfter(long more) {
    return accountant.rdpAfter(orders, more);
  }

  @Override
  public void advance(long count) {
    checkArgument(count >= 0, "steps must be >= 0, was %s", count);
    for (long i = 0; i < count; i++) {
      accountant.step();
    }
  }

  @Override
  public String mechanismDescription() {
    DpMbcdConfig c = accountant.config();
    String blocks = c.blocks().stream()
        .map(b -> b.name() + "(L_F=" + b.lipschitzF() + ", L_T=" + b.lipschitzT() + ", S_g=" + b.gradientSensitivity()
            + ")")
        .collect(Collectors.joining(", "));
    return "dp-mbcd(n=" + c.datasetSize() + ", b=" + c.batchSize() + ", eta=" + c.stepSize() + ", mode=" + c.mode()
        + ", o=" + scheduleDescription + ", blocks=[" + blocks + "])";
  }

  @Override
  public double[] epochContributions() {
    return accountant.epochContributions();
  }

  /**
   * The LSI constant c of each released block's current iterate, by block name (Lemma C.3); empty before
   * the first step, when the point-mass start has c = ∞.
   */
  @Override
  public Map<String, Double> lsiConstants() {
    if (steps() == 0) {
      return Map.of();
    }
    Map<String, Double> lsi = new LinkedHashMap<>();
    for (DpMbcdLedger ledger : accountant.ledgers()) {
      lsi.put(ledger.block().name(), 1 / ledger.inverseLsiConstant());
    }
    return lsi;
  }

  /** Always refused: this theorem covers DP-MBCD's noisy proximal block updates, not DP-SGD steps. */
  @Override
  public void requireCovers(SamplingPlan plan, double noiseMultiplier) {
    throw new InvalidSettingException("the " + name() + " accountant covers DP-MBCD block updates "
        + "(DpMbcdTrainer), not DP-SGD steps over " + plan.describe());
  }
}
