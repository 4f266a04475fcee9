package org.dp4j.accounting.pld;

import static com.google.common.base.Preconditions.checkNotNull;
import static org.dp4j.InvalidSettingException.checkArgument;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.dp4j.accounting.PrivacyGuarantee;
import org.dp4j.accounting.SampledGaussianAccountant;
import org.dp4j.accounting.event.ComposedEvent;
import org.dp4j.accounting.event.DpEvent;
import org.dp4j.accounting.event.EventAccountant;
import org.dp4j.accounting.event.PrivacyUnit;
import org.dp4j.accounting.event.SampledGaussianSteps;
import org.dp4j.accounting.event.UnsupportedEventException;

/**
 * Privacy-loss-distribution accountant for (Poisson-subsampled) Gaussian mechanisms: discretises each
 * step's privacy loss ({@link SampledGaussianPld}), composes all steps by FFT ({@link ComposedPld}) in
 * both add/remove directions, and reports a certified upper bound on ε(δ) together with a lower bound
 * on the optimal ε, so the discretisation error is explicit ({@link PldGuarantee}).
 *
 * <p>Theorem: PLD composition (Koskela, Jälkö &amp; Honkela 2020; Zhu, Dong &amp; Wang 2022) with
 * mean-preserving discretisation and the Hoeffding error bound of Gopi, Lee &amp; Wutschitz 2021 (§5);
 * pessimistic handling of truncated tails. Neighbours: add/remove one record (other units through
 * {@link org.dp4j.accounting.event.GroupPrivacy}). Threat model: all iterates released.
 *
 * <p>Grid spacing: by default Δ = tolerance / √(T·ln(10¹⁰)/2), so the Hoeffding term is about the
 * tolerance (0.005 by default) at η = 1e-10; if the composed window (measured first on a coarse grid)
 * would not fit in {@link ComposedPld#MAX_FFT_SIZE} points, Δ is widened until it does (the reported
 * error then grows, honestly).
 *
 * <pre>{@code
 * PldAccountant acc = PldAccountant.withDefaults();
 * PldGuarantee g = acc.compose(DpEvent.sampledGaussian(256.0 / 60000, 1.1).times(14063)).epsilon(1e-5);
 * // g.epsilon() = 2.3863 (certified), g.epsilonLower() = 2.3771
 * }</pre>
 */
public final class PldAccountant implements EventAccountant {
  public static final String NAME = "sampled-gaussian-pld";
  public static final String THEOREM = "privacy loss distribution composition by FFT, max over add and remove "
      + "(Koskela et al. 2020; Zhu, Dong & Wang 2022) with mean-preserving discretisation and Hoeffding error "
      + "(Gopi, Lee & Wutschitz 2021)";
  public static final double DEFAULT_TOLERANCE = 0.005;
  /** Smallest noise multiplier the discretisation covers (one step's loss then has mean 200). */
  public static final double MIN_NOISE_MULTIPLIER = 0.05;
  private static final double REFERENCE_LOG_ETA = Math.log(1e10);
  private static final double MAX_INTERVAL = 1e-2;
  private static final double MIN_INTERVAL = 1e-8;
  private static final double TOTAL_TAIL_MASS = 1e-16;

  private final double tolerance;
  private final double fixedInterval;

  private PldAccountant(double tolerance, double fixedInterval) {
    this.tolerance = tolerance;
    this.fixedInterval = fixedInterval;
  }

  /** Tolerance {@value #DEFAULT_TOLERANCE}, grid chosen from it. */
  public static PldAccountant withDefaults() {
    return withTolerance(DEFAULT_TOLERANCE);
  }

  /** Grid chosen so that the Hoeffding part of the ε error is about {@code tolerance}. */
  public static PldAccountant withTolerance(double tolerance) {
    checkArgument(tolerance > 0 && tolerance <= 1, "tolerance must be in (0, 1], was %s", tolerance);
    return new PldAccountant(tolerance, 0);
  }

  /** A fixed grid spacing Δ (for refinement studies). */
  public static PldAccountant withInterval(double interval) {
    checkArgument(interval >= MIN_INTERVAL && interval <= MAX_INTERVAL, "interval must be in [%s, %s], was %s",
        MIN_INTERVAL, MAX_INTERVAL, interval);
    return new PldAccountant(0, interval);
  }

  @Override
  public String name() {
    return NAME;
  }

  /** The certified ε of {@link #guarantee}. */
  @Override
  public double epsilon(DpEvent event, double delta, PrivacyUnit unit) {
    return guarantee(event, delta, unit).epsilon();
  }

  /**
   * The guarantee of the event at δ for the unit. Record-level add/remove: {@code compose(event).epsilon(delta)}.
   * Other units at distance d &gt; 1 (see {@link PrivacyUnit#addRemoveDistance()}): if every step is an
   * unsampled Gaussian, the clipped sum moves by at most d·C between neighbouring datasets of units, so
   * the exact answer is the record-level PLD with every noise multiplier divided by d (tight, with its
   * lower bound); with Poisson sampling, group privacy on the certified δ(ε) profile
   * ({@link PrivacyLoss#epsilon(double, PrivacyUnit)}).
   */
  public PldGuarantee guarantee(DpEvent event, double delta, PrivacyUnit unit) {
    checkNotNull(unit, "unit");
    SampledGaussianSteps steps = SampledGaussianSteps.of(event, NAME);
    int d = unit.addRemoveDistance();
    if (d == 1 || steps.counts().keySet().stream().anyMatch(s -> s.samplingRate() < 1)) {
      return compose(event).epsilon(delta, unit);
    }
    List<DpEvent> scaled = new ArrayList<>();
    steps.counts().forEach((s, count) -> scaled.add(DpEvent.gaussian(s.noiseMultiplier() / d).times(count)));
    PldGuarantee g = compose(new ComposedEvent(scaled)).epsilon(delta);
    List<String> assumptions = new ArrayList<>(g.assumptions());
    assumptions.add("each unit changes the clipped sum by at most " + d + "·C (sensitivity of " + d
        + " add/remove steps)");
    return new PldGuarantee(g.epsilon(), g.epsilonLower(), delta, unit, g.interval(), g.steps(), assumptions);
  }

  @Override
  public PrivacyGuarantee privacyGuarantee(DpEvent event, double delta, PrivacyUnit unit) {
    return guarantee(event, delta, unit).asPrivacyGuarantee();
  }

  /** A certified δ at ε (record-level add/remove): {@link PrivacyLoss#deltaUpper}. */
  @Override
  public double delta(DpEvent event, double epsilon) {
    return compose(event).deltaUpper(epsilon);
  }

  /** Composes the event in both directions. */
  public PrivacyLoss compose(DpEvent event) {
    checkNotNull(event, "event");
    SampledGaussianSteps steps = SampledGaussianSteps.of(event, NAME);
    for (SampledGaussianSteps.Step s : steps.counts().keySet()) {
      if (s.noiseMultiplier() < MIN_NOISE_MULTIPLIER) {
        throw new UnsupportedEventException(NAME, event, "noise multiplier " + s.noiseMultiplier() + " is below "
            + MIN_NOISE_MULTIPLIER + ", where one step's privacy loss (mean 1/(2z²) = "
            + String.format("%.3g", 1 / (2 * s.noiseMultiplier() * s.noiseMultiplier()))
            + ") no longer fits the discretisation grid; the Rényi accountant covers it (its ε is then in the "
            + "hundreds or more)");
      }
    }
    long total = steps.totalSteps();
    checkArgument(total > 0, "the event has no steps: %s", event);
    double interval = fixedInterval > 0 ? fixedInterval
        : Math.max(MIN_INTERVAL, Math.min(MAX_INTERVAL, tolerance / Math.sqrt(total * REFERENCE_LOG_ETA / 2)));
    double tail = TOTAL_TAIL_MASS / total;
    if (fixedInterval == 0) {
      // the window width hardly depends on the grid: measure it on a 10× coarser grid first (its rounding
      // adds at most T·(10Δ)²/4 of variance, small next to the composed loss's)
      double coarse = Math.min(MAX_INTERVAL, 10 * interval);
      double width = Math.max(ComposedPld.windowWidth(phases(steps, LossDirection.REMOVE, coarse, tail)),
          ComposedPld.windowWidth(phases(steps, LossDirection.ADD, coarse, tail)));
      interval = Math.min(MAX_INTERVAL, Math.max(interval, 1.05 * width / ComposedPld.MAX_FFT_SIZE));
    }
    while (true) {
      try {
        ComposedPld remove = ComposedPld.compose(phases(steps, LossDirection.REMOVE, interval, tail));
        ComposedPld add = ComposedPld.compose(phases(steps, LossDirection.ADD, interval, tail));
        return new PrivacyLoss(remove, add, total, assumptions(steps));
      } catch (GridTooFineException tooFine) {
        if (fixedInterval > 0 || interval * 1.25 > MAX_INTERVAL) {
          throw tooFine;
        }
        interval *= 1.25;
      }
    }
  }

  private static List<ComposedPld.Phase> phases(SampledGaussianSteps steps, LossDirection direction,
      double interval, double tail) {
    List<ComposedPld.Phase> phases = new ArrayList<>();
    for (Map.Entry<SampledGaussianSteps.Step, Long> e : steps.counts().entrySet()) {
      SampledGaussianSteps.Step s = e.getKey();
      phases.add(new ComposedPld.Phase(
          SampledGaussianPld.pmf(s.samplingRate(), s.noiseMultiplier(), direction, interval, tail), e.getValue()));
    }
    return phases;
  }

  private static List<String> assumptions(SampledGaussianSteps steps) {
    boolean sampled = steps.counts().keySet().stream().anyMatch(s -> s.samplingRate() < 1);
    // the sampled-Gaussian accountant's wording; without sampling only the clipping/noise line applies
    List<String> all = SampledGaussianAccountant.ASSUMPTIONS;
    return new ArrayList<>(sampled ? all : all.subList(1, all.size()));
  }
}
