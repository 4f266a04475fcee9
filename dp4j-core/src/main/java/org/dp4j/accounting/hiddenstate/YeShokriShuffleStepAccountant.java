package org.dp4j.accounting.hiddenstate;

import org.dp4j.sampling.SamplingScheme;
import org.dp4j.sampling.SamplingCompatibility;
import static com.google.common.base.Preconditions.checkNotNull;
import static org.dp4j.InvalidSettingException.checkArgument;

import java.util.ArrayList;
import java.util.List;
import org.dp4j.accounting.NeighbouringRelation;
import org.dp4j.accounting.Orders;
import org.dp4j.accounting.RdpCurve;
import org.dp4j.accounting.ThreatModel;
import org.dp4j.accounting.ledger.RdpStepAccountant;
import org.dp4j.sampling.SamplingPlan;

/**
 * Ye &amp; Shokri Thm 5.2 (shuffle once and partition; {@link YeShokriShuffleAccountant}, docs/accountants.md#ye-shokri) as a
 * {@link RdpStepAccountant}. The theorem bounds the model after whole epochs only, so the accountant is
 * per-epoch and conservative: after s steps (m per epoch) it reports the bound for ⌈s/m⌉ epochs, the end
 * of the current epoch, which is never below an earlier epoch's bound (T1 grows with K). A budget guard
 * therefore refuses the first step of the epoch whose end would exceed the budget, and stops at an epoch
 * end, where the theorem applies; a run stopped mid-epoch for another reason is not covered (stated in
 * {@link #assumptions()}). The configuration's own epoch count is ignored.
 *
 * <pre>{@code
 * // given: YeShokriConfig config
 * RdpStepAccountant acc = new YeShokriShuffleStepAccountant(config, Orders.DEFAULT);
 * acc.advance(12);                       // m = 12: one epoch
 * RdpCurve oneEpoch = acc.curve();       // = new YeShokriShuffleAccountant(config.withEpochs(1)).rdp(orders)
 * }</pre>
 *
 * <p>Not thread-safe.
 */
public final class YeShokriShuffleStepAccountant implements RdpStepAccountant {
  private final YeShokriConfig config;
  /** The theorem for one epoch: validates the configuration and names the scope. */
  private final YeShokriShuffleAccountant oneEpoch;
  private final Orders orders;
  private final int stepsPerEpoch;
  private long steps;
  private long cachedEpochs = -1;
  private RdpCurve cachedCurve;

  public YeShokriShuffleStepAccountant(YeShokriConfig config, Orders orders) {
    this.config = checkNotNull(config, "config");
    this.orders = checkNotNull(orders, "orders");
    this.oneEpoch = accountant(1);
    this.stepsPerEpoch = config.stepsPerEpoch();
  }

  private YeShokriShuffleAccountant accountant(long epochs) {
    checkArgument(epochs <= Integer.MAX_VALUE, "too many epochs for Thm 5.2: %s", epochs);
    return new YeShokriShuffleAccountant(config.withEpochs((int) epochs));
  }

  /** The configuration the bound is for (its epoch count is ignored). */
  public YeShokriConfig config() {
    return config;
  }

  @Override
  public String name() {
    return oneEpoch.name();
  }

  @Override
  public String theorem() {
    return oneEpoch.theorem() + ", evaluated at the end of the current epoch";
  }

  @Override
  public ThreatModel threatModel() {
    return oneEpoch.threatModel();
  }

  @Override
  public NeighbouringRelation relation() {
    return oneEpoch.relation();
  }

  @Override
  public List<String> assumptions() {
    List<String> list = new ArrayList<>(oneEpoch.assumptions());
    list.add(String.format("the model is released at the end of an epoch (m = %d steps): between epoch ends the"
        + " bound of the current epoch's end is reported; Thm 5.2 does not cover a run stopped mid-epoch",
        stepsPerEpoch));
    return list;
  }

  @Override
  public Orders orders() {
    return orders;
  }

  @Override
  public long steps() {
    return steps;
  }

  /** The bound for ⌈(steps + more)/m⌉ epochs (0 before any step); cached, so calls within an epoch are O(1). */
  @Override
  public RdpCurve curveAfter(long more) {
    checkArgument(more >= 0, "steps must be >= 0, was %s", more);
    long total = steps + more;
    long epochs = (total + stepsPerEpoch - 1) / stepsPerEpoch;
    if (epochs == 0) {
      return RdpCurve.zero(orders);
    }
    if (epochs != cachedEpochs) {
      cachedCurve = accountant(epochs).rdp(orders);
      cachedEpochs = epochs;
    }
    return cachedCurve;
  }

  @Override
  public void advance(long count) {
    checkArgument(count >= 0, "steps must be >= 0, was %s", count);
    steps += count;
  }

  @Override
  public String mechanismDescription() {
    return "ye-shokri-shuffle(n=" + config.datasetSize() + ", b=" + config.batchSize() + ", eta=" + config.stepSize()
        + ", lambda=" + config.strongConvexity() + ", beta=" + config.smoothness() + ", S_g="
        + config.gradientSensitivity() + ", sigma2=" + config.sigmaSquared() + ", sigma_bn="
        + config.normalisationNoiseMultiplier() + ", firstTerm=" + config.firstTerm() + ")";
  }

  /**
   * A shuffle-once fixed partition with this configuration's b and m. λ, β and the noise scale are the user's
   * assertion for this accountant (see {@code CertifiedYeShokriStepAccountant} for certified constants); the
   * sampling, at least, is checked.
   */
  @Override
  public void requireCovers(SamplingPlan plan, double noiseMultiplier) {
    SamplingCompatibility.requireScheme(name(), SamplingScheme.SHUFFLE_ONCE_FIXED_PARTITION, plan);
    checkArgument(config.batchSize() == plan.fixedBatchSize() && config.stepsPerEpoch() == plan.stepsPerEpoch(),
        "the %s accountant uses b = %s, m = %s but the sampler is %s", name(), config.batchSize(),
        config.stepsPerEpoch(), plan.describe());
  }
}
