package org.dp4j.audit.whitebox;

import static com.google.common.base.Preconditions.checkNotNull;
import static org.dp4j.InvalidSettingException.checkArgument;

import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.deeplearning4j.optimize.api.BaseTrainingListener;
import org.dp4j.audit.AuditBound;
import org.dp4j.audit.CanaryCoins;
import org.dp4j.audit.GuessPlan;
import org.dp4j.noise.AesCtrRandom;
import org.dp4j.noise.NoiseSource;
import org.dp4j.training.IndexedData;
import org.dp4j.updater.DpSgdStep;

/**
 * A one-run white-box audit of DP-SGD with Dirac canaries (Steinke, Nasr &amp; Jagielski 2023): before training it
 * picks m quiet coordinates ({@link QuietCoordinates}) and flips m secret coins ({@link CanaryCoins}); during
 * training the included canaries are injected through the run's noise source ({@link DiracCanaries}) and every
 * update is observed ({@link CoordinateScores}); after training the guesses give a lower bound on ε
 * ({@link GuessPlan}, {@link org.dp4j.audit.OneRunAudit}). Train with the production code path: a
 * {@code DpSgdTrainer} or a {@code PrivateMultiLayerNetwork}'s {@code fit}.
 *
 * <pre>{@code
 * // given: MultiLayerNetwork net; IndexedData data; DpSgdSetup setup
 * WhiteBoxAudit audit = WhiteBoxAudit.builder(net, data).canaries(1000).build();
 * DpSgdTrainer trainer = setup.trainer(net, data).noise(audit.noise(PrefetchingNoise.secure())).build();
 * net.addListeners(audit.listener());
 * TrainingResult result = trainer.train();
 * AuditBound bound = audit.bound(1e-5, 0.95);   // compare with result.ledger()'s certified epsilon
 * }</pre>
 *
 * <p>The canaries are records of the audited run: its certified ε (per record, add/remove) covers each of them, so
 * the lower bound must stay below it if the implementation is correct (docs/auditing.md).
 */
public final class WhiteBoxAudit {
  private final CanaryCoins coins;
  private final DiracCanaries canaries;
  private final CoordinateScores scores;
  private final GuessPlan plan;

  private WhiteBoxAudit(Builder b) {
    int[] coordinates = QuietCoordinates.choose(b.net, b.data, b.probeRows, b.canaries, b.random);
    this.coins = CanaryCoins.draw(b.canaries, b.random);
    double rate = b.samplingRate > 0 ? b.samplingRate
        : DpSgdStep.configOf(b.net).expectedBatchSize() / b.data.size();
    this.canaries = new DiracCanaries(b.net, coordinates, coins, rate, b.random);
    this.scores = new CoordinateScores(b.net, coordinates);
    this.plan = b.plan != null ? b.plan : GuessPlan.symmetricSweep(b.canaries);
  }

  public static Builder builder(MultiLayerNetwork net, IndexedData data) {
    return new Builder(net, data);
  }

  /** The run's noise source with the canaries injected (see {@link DiracCanaries#inject}). */
  public NoiseSource noise(NoiseSource delegate) {
    return canaries.inject(delegate);
  }

  /** Observes every update: add it to the network before training. */
  public BaseTrainingListener listener() {
    return scores.listener();
  }

  /** The injected canaries (for loops that need {@link DiracCanaries#drawStep}). */
  public DiracCanaries canaries() {
    return canaries;
  }

  public CoordinateScores scores() {
    return scores;
  }

  public CanaryCoins coins() {
    return coins;
  }

  /** The lower bound on ε at δ from the scores so far (call after training). */
  public AuditBound bound(double delta, double confidence) {
    checkArgument(scores.updates() > 0, "no update was observed: add listener() to the network before training");
    return plan.bound(scores.scores(), coins.included(), delta, confidence);
  }

  /** Builder; network and data are required. */
  public static final class Builder {
    private final MultiLayerNetwork net;
    private final IndexedData data;
    private int canaries = 1000;
    private int probeRows = 10_000;
    private double samplingRate;
    private AesCtrRandom random;
    private GuessPlan plan;

    private Builder(MultiLayerNetwork net, IndexedData data) {
      this.net = checkNotNull(net, "net");
      this.data = checkNotNull(data, "data");
    }

    /** m (default 1000). */
    public Builder canaries(int m) {
      checkArgument(m >= 2, "canaries must be >= 2, was %s", m);
      this.canaries = m;
      return this;
    }

    /** Training rows probed to find quiet coordinates (default 10000). */
    public Builder probeRows(int rows) {
      checkArgument(rows > 0, "probeRows must be > 0, was %s", rows);
      this.probeRows = rows;
      return this;
    }

    /** q, if it is not the network's expected batch size over the data size. */
    public Builder samplingRate(double q) {
      checkArgument(q > 0 && q <= 1, "samplingRate must be in (0, 1], was %s", q);
      this.samplingRate = q;
      return this;
    }

    /** Coins, coordinates' tie-breaks and per-step canary sampling (default: a secure generator). */
    public Builder random(AesCtrRandom random) {
      this.random = checkNotNull(random, "random");
      return this;
    }

    /** The guesses (default: {@link GuessPlan#symmetricSweep}, Bonferroni-corrected). */
    public Builder guesses(GuessPlan plan) {
      this.plan = checkNotNull(plan, "plan");
      return this;
    }

    public WhiteBoxAudit build() {
      if (random == null) {
        random = AesCtrRandom.secure();
      }
      return new WhiteBoxAudit(this);
    }
  }
}
