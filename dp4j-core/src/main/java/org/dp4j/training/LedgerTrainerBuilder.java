package org.dp4j.training;

import static org.dp4j.InvalidSettingException.checkArgument;
import static com.google.common.base.Preconditions.checkNotNull;
import static com.google.common.base.Preconditions.checkState;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.dp4j.accounting.ledger.LedgerRow;
import org.dp4j.accounting.ledger.PrivacyLedger;
import org.dp4j.noise.GaussianNoise;
import org.dp4j.noise.NoiseSource;
import org.dp4j.noise.PrefetchingNoise;

/**
 * What the builders of dp4j's DP-SGD trainers ({@link DpSgdTrainer.Builder}, {@code SparkDpSgdTrainer.Builder})
 * share: the privacy ledger the run answers to, the number of epochs, the noise source (secure unless the caller
 * opts out, for tests), and the epoch and step callbacks. A trainer's builder adds its data and schedule, then makes
 * the run's {@link LedgerEpochLoop} with {@link #epochLoop}.
 *
 * <pre>{@code
 * // given: MultiLayerNetwork net; IndexedData data; PrivacyLedger ledger; BatchSampler sampler
 * DpSgdTrainer trainer = DpSgdTrainer.builder(net, data).sampler(sampler).ledger(ledger).epochs(20)
 *     .onEpoch(row -> System.out.println(row.epoch())).build();
 * }</pre>
 *
 * @param <B> the trainer's builder
 */
public abstract class LedgerTrainerBuilder<B extends LedgerTrainerBuilder<B>> {
  private PrivacyLedger ledger;
  private int epochs = -1;
  private NoiseSource noise;
  private final List<Consumer<LedgerRow>> onEpoch = new ArrayList<>();
  private Runnable onStep = () -> { };

  protected LedgerTrainerBuilder() {
  }

  /** This builder, typed as the trainer's. */
  protected abstract B self();

  /**
   * A fresh ledger, or one restored from a checkpoint at an epoch boundary (training then resumes with the next
   * epoch), whose accountants cover the run's mechanism; it enforces the budget, if it has one.
   */
  public B ledger(PrivacyLedger ledger) {
    this.ledger = checkNotNull(ledger, "ledger");
    return self();
  }

  /** Epochs to run in all (a restored ledger's finished epochs included). */
  public B epochs(int epochs) {
    checkArgument(epochs > 0, "epochs must be > 0, was %s", epochs);
    this.epochs = epochs;
    return self();
  }

  /**
   * Noise source; must be cryptographically secure ({@link NoiseSource#isSecure()}). The default is
   * {@link GaussianNoise#secure()}, prefetched by {@link PrefetchingNoise}.
   */
  public B noise(NoiseSource noise) {
    checkNotNull(noise, "noise");
    checkArgument(noise.isSecure(), "the noise source %s is not cryptographically secure, so the run would carry "
        + "no privacy guarantee; use GaussianNoise.secure(), or insecureNoise(...) in tests",
        noise.getClass().getSimpleName());
    this.noise = noise;
    return self();
  }

  /**
   * For tests and reproductions only: a noise source that is not secure (fixed seed, recording). The run then
   * carries <b>no privacy guarantee</b>: the result says so, and the ledger's hidden-state bounds are voided.
   */
  public B insecureNoise(NoiseSource noise) {
    this.noise = checkNotNull(noise, "noise");
    return self();
  }

  /**
   * Called with each epoch's ledger row (also with the partial row of a budget stop, or of a failed distributed
   * step). After a full epoch the network's {@code getEpochCount()} already counts it (a partial epoch is not
   * counted).
   */
  public B onEpoch(Consumer<LedgerRow> consumer) {
    onEpoch.add(checkNotNull(consumer, "consumer"));
    return self();
  }

  /** Called after every private update (e.g. a progress display). */
  public B onStep(Runnable callback) {
    this.onStep = checkNotNull(callback, "callback");
    return self();
  }

  /**
   * Refuses a run without a ledger or epochs, or with a ledger in the middle of an epoch; chooses the default secure
   * noise if none was given; returns the run's epoch loop, which calls {@code endOfEpoch} (the model's epoch count)
   * after each full epoch.
   */
  protected final LedgerEpochLoop epochLoop(Runnable endOfEpoch) {
    checkState(ledger != null, "a ledger is required");
    checkState(epochs > 0, "epochs are required");
    checkState(ledger.stepsSinceLastRow() == 0,
        "the ledger must be fresh or restored at an epoch boundary, it has %s steps", ledger.steps());
    if (noise == null) {
      noise = PrefetchingNoise.secure();
    }
    return new LedgerEpochLoop(ledger, epochs, endOfEpoch, onEpoch, onStep);
  }

  /** The noise source of the run (secure by default); chosen by {@link #epochLoop}. */
  protected final NoiseSource noiseSource() {
    checkState(noise != null, "call epochLoop first");
    return noise;
  }
}
