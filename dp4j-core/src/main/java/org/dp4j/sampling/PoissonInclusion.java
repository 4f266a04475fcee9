package org.dp4j.sampling;

import static com.google.common.base.Preconditions.checkNotNull;
import static org.dp4j.InvalidSettingException.checkArgument;

import org.dp4j.noise.AesCtrRandom;

/**
 * One Poisson-sampling coin per record: {@link #next()} is true with probability floor(q·2⁵³)/2⁵³ ∈ (q − 2⁻⁵³, q],
 * by the exact test {@code u < floor(q·2⁵³)} on a 53-bit uniform integer u from the generator (the SGM bound increases
 * with q, so accounting at q never understates). {@link PoissonSampler} tosses one per index; a process that holds
 * only part of the records (a Spark partition) tosses one per record it holds, so the union over all processes is
 * the same Poisson sample (docs/sampling.md#poisson).
 *
 * <pre>{@code
 * // given: List<String> partition; List<String> batch
 * PoissonInclusion coin = PoissonInclusion.withRate(256.0 / 60_000, AesCtrRandom.secure());
 * for (String record : partition) {
 *   if (coin.next()) {
 *     batch.add(record);
 *   }
 * }
 * }</pre>
 *
 * <p>Not thread-safe.
 */
public final class PoissonInclusion {
  private static final double TWO_POW_53 = 0x1p53;

  private final AesCtrRandom random;
  private final long threshold;

  private PoissonInclusion(double rate, AesCtrRandom random) {
    this.random = random;
    this.threshold = (long) Math.floor(rate * TWO_POW_53);   // exact: scaling by a power of two
    checkArgument(threshold > 0, "sampling rate q must be >= 2^-53, was %s", rate);
  }

  /** Inclusion with rate q ∈ (0, 1] from the given generator (secure unless a test says otherwise). */
  public static PoissonInclusion withRate(double rate, AesCtrRandom random) {
    checkArgument(rate > 0 && rate <= 1, "sampling rate q must be in (0, 1], was %s", rate);
    return new PoissonInclusion(rate, checkNotNull(random, "random"));
  }

  /** One coin: true with probability {@link #probability()}. */
  public boolean next() {
    return (random.nextLong() >>> 11) < threshold;
  }

  /** The exact inclusion probability floor(q·2⁵³)/2⁵³ ≤ q. */
  public double probability() {
    return threshold / TWO_POW_53;
  }

  /** Whether the coins come from a cryptographically secure generator. */
  public boolean isSecure() {
    return random.isSecure();
  }
}
