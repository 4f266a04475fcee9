package org.dp4j.accounting.ledger;

import static com.google.common.base.Preconditions.checkNotNull;
import static org.dp4j.InvalidSettingException.checkArgument;

import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.dp4j.accounting.EpsilonDelta;
import org.dp4j.accounting.PrivacyGuarantee;
import org.dp4j.accounting.RdpConversion;
import org.dp4j.accounting.SampledGaussianMechanism;
import org.dp4j.accounting.event.DpEvent;
import org.dp4j.accounting.event.PrivacyUnit;
import org.dp4j.accounting.pld.PldAccountant;
import org.dp4j.accounting.pld.PldGuarantee;

/**
 * DP-SGD's composition bound by privacy-loss distributions, as a {@link StepAccountant}: every step is one
 * Poisson-sampled Gaussian step of a fixed mechanism, and the guarantee after T steps is
 * {@link PldAccountant}'s certified upper bound on ε(δ) for T-fold composition (tighter than the Rényi bound
 * of {@link CompositionStepAccountant} on the same run; valid when every iterate may be released).
 *
 * <p>Cost: one PLD composition (FFT, O(G log G) on a grid of G ≤ 2²² points) per distinct step count asked
 * for — about 0.03–1.3 s here, growing with T until the grid size is capped — and nothing per step. The
 * {@link PrivacyLedger} asks only O(log T) times per run for its budget stop and once per epoch row; every
 * answer is kept (a few dozen per run), and the next epoch row's composition is started on a daemon thread as
 * soon as a row is asked for, so with a free core it overlaps training.
 *
 * <p>The reported bound for T steps is the smallest certified bound computed for any T' ≥ T: valid because
 * the first T releases of a T'-step run are a post-processing of all T' (so the optimal ε is non-decreasing
 * in T), and it keeps the reported ε non-decreasing although the grid, chosen from T, makes the raw
 * certified bound only nearly so.
 *
 * <pre>{@code
 * StepAccountant acc = new PldStepAccountant(new SampledGaussianMechanism(256.0 / 60000, 1.1),
 *     PldAccountant.withDefaults());
 * acc.advance(14063);
 * acc.guaranteeAfter(0, 1e-5, RdpConversion.IMPROVED).epsilon();   // 2.3863 (RDP: 2.5967)
 * }</pre>
 *
 * <p>Not thread-safe (one training loop at a time; the background composition touches no shared state).
 */
public final class PldStepAccountant extends SampledGaussianStepAccountant {
  private final PldAccountant pld;
  /** Certified bounds computed so far, per δ, by step count. */
  private final Map<Double, TreeMap<Long, PrivacyGuarantee>> computed = new HashMap<>();
  /** Bounds being computed ahead on a background thread (the next epoch row's), by δ and step count. */
  private final Map<String, Future<PrivacyGuarantee>> ahead = new HashMap<>();
  private ExecutorService background;
  private long lastRowSteps = -1;

  public PldStepAccountant(SampledGaussianMechanism mechanism, PldAccountant pld) {
    super(mechanism);
    this.pld = checkNotNull(pld, "pld");
  }

  /** With {@link PldAccountant#withDefaults()}. */
  public PldStepAccountant(SampledGaussianMechanism mechanism) {
    this(mechanism, PldAccountant.withDefaults());
  }

  @Override
  public String name() {
    return PldAccountant.NAME;
  }

  @Override
  public String theorem() {
    return PldAccountant.THEOREM;
  }

  /** The certified PLD bound after {@code steps + more} steps (ε = 0 before the first step). */
  @Override
  public PrivacyGuarantee guaranteeAfter(long more, double delta, RdpConversion conversion) {
    checkArgument(more >= 0, "steps must be >= 0, was %s", more);
    checkArgument(delta > 0 && delta < 1, "delta must be in (0, 1), was %s", delta);
    long total = steps() + more;
    if (total == 0) {
      return new PrivacyGuarantee(name(), theorem(), new EpsilonDelta(0, delta, Double.NaN, false),
          java.util.Optional.empty(), relation(), threatModel(), assumptions(), 0);
    }
    TreeMap<Long, PrivacyGuarantee> atDelta = computed.computeIfAbsent(delta, d -> new TreeMap<>());
    atDelta.computeIfAbsent(total, t -> awaitOrCompose(t, delta));
    if (more == 0) {
      computeNextRowAhead(delta);
    }
    // The true ε is non-decreasing in T (T steps are a post-processing of T' ≥ T steps), so any certified bound
    // for T' ≥ T also holds for T; the grid depends on T, which makes the certified bound itself only nearly
    // monotone, and the smallest one keeps the reported ε monotone.
    return atDelta.tailMap(total, true).values().stream()
        .min(java.util.Comparator.comparingDouble(PrivacyGuarantee::epsilon)).orElseThrow();
  }

  private PrivacyGuarantee awaitOrCompose(long total, double delta) {
    Future<PrivacyGuarantee> f = ahead.remove(total + "@" + delta);
    if (f == null) {
      return compose(mechanism(), pld, total, delta);
    }
    try {
      return f.get();
    } catch (ExecutionException e) {
      throw new IllegalStateException("PLD composition of " + total + " steps failed", e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while composing the PLD of " + total + " steps", e);
    }
  }

  /**
   * An epoch row asks for the bound at the current step count ({@code more} = 0); the next row will most likely
   * be one epoch later, so its composition starts now on a daemon thread and overlaps the epoch's training.
   */
  private void computeNextRowAhead(double delta) {
    long previous = lastRowSteps;
    long now = steps();
    lastRowSteps = now;
    long next = now + (now - previous);
    if (previous < 0 || next <= now || ahead.containsKey(next + "@" + delta)
        || computed.get(delta).containsKey(next)) {
      return;
    }
    if (background == null) {
      background = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "dp4j-pld-ahead");
        t.setDaemon(true);
        return t;
      });
    }
    ahead.values().removeIf(f -> f.isDone() || f.cancel(false));
    ahead.put(next + "@" + delta, background.submit(() -> compose(mechanism(), pld, next, delta)));
  }

  private static PrivacyGuarantee compose(SampledGaussianMechanism mechanism, PldAccountant pld, long total,
      double delta) {
    DpEvent run = DpEvent.sampledGaussian(mechanism.samplingRate(), mechanism.noiseMultiplier()).times(total);
    PldGuarantee g = pld.guarantee(run, delta, PrivacyUnit.RECORD);
    return g.asPrivacyGuarantee();
  }

  @Override
  public String mechanismDescription() {
    return describe("sampled-gaussian-pld");
  }
}
