package org.dp4j.accounting.event;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * An event flattened into counts of elementary Poisson-sampled Gaussian steps (q = 1 for an
 * unsampled Gaussian). Composition is commutative for the accountants here (RDP adds, PLDs
 * convolve), so order does not matter; Poisson sampling of a Poisson sample multiplies the rates.
 * Sampling a composed event is refused: that is not a composition of sampled steps.
 *
 * <pre>{@code
 * SampledGaussianSteps s = SampledGaussianSteps.of(DpEvent.sampledGaussian(0.01, 1).times(500)
 *     .then(DpEvent.sampledGaussian(0.01, 1).times(500)), "my-accountant");
 * s.counts();   // {Step[samplingRate=0.01, noiseMultiplier=1.0]=1000}
 * }</pre>
 */
public final class SampledGaussianSteps {
  /** One elementary step: rate q, multiplier z. */
  public record Step(double samplingRate, double noiseMultiplier) {}

  private final Map<Step, Long> counts;

  private SampledGaussianSteps(Map<Step, Long> counts) {
    this.counts = Collections.unmodifiableMap(counts);
  }

  /**
   * @throws UnsupportedEventException naming {@code accountant} if the event samples a composition
   */
  public static SampledGaussianSteps of(DpEvent event, String accountant) {
    Map<Step, Long> counts = new LinkedHashMap<>();
    collect(event, 1.0, 1, counts, accountant, event);
    return new SampledGaussianSteps(counts);
  }

  private static void collect(DpEvent e, double rate, long multiplicity, Map<Step, Long> counts, String accountant,
      DpEvent root) {
    if (e instanceof GaussianEvent g) {
      if (multiplicity > 0) {
        counts.merge(new Step(rate, g.noiseMultiplier()), multiplicity, Math::addExact);
      }
    } else if (e instanceof PoissonSampledEvent p) {
      if (!(p.event() instanceof GaussianEvent || p.event() instanceof PoissonSampledEvent)) {
        throw new UnsupportedEventException(accountant, root,
            "Poisson sampling of a composition is not a composition of sampled steps");
      }
      collect(p.event(), rate * p.samplingRate(), multiplicity, counts, accountant, root);
    } else if (e instanceof SelfComposedEvent s) {
      collect(s.event(), rate, Math.multiplyExact(multiplicity, s.count()), counts, accountant, root);
    } else if (e instanceof ComposedEvent c) {
      c.events().forEach(x -> collect(x, rate, multiplicity, counts, accountant, root));
    } else {
      throw new UnsupportedEventException(accountant, root, "unknown event type " + e.getClass().getName());
    }
  }

  /** Step → number of times it runs (steps with count 0 omitted). */
  public Map<Step, Long> counts() {
    return counts;
  }

  public long totalSteps() {
    return counts.values().stream().mapToLong(Long::longValue).sum();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof SampledGaussianSteps other && counts.equals(other.counts);
  }

  @Override
  public int hashCode() {
    return Objects.hash(counts);
  }
}
