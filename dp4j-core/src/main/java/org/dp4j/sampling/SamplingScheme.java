package org.dp4j.sampling;

/**
 * How batches are drawn, as an accountant's theorem sees it. Each accountant covers exactly one
 * scheme; {@link SamplingCompatibility} refuses the others.
 */
public enum SamplingScheme {
  /**
   * Every record joins every step's batch independently with probability q; batch sizes vary and
   * may be 0. Matches the sampled-Gaussian (moments/RDP) accountant, Mironov, Talwar &amp; Zhang
   * 2019 (docs/sampling.md#poisson, #expected-batch-size).
   */
  POISSON("Poisson sampling",
      "each record joins each step's batch independently with probability q"),
  /**
   * One secret random permutation at the start, cut into n/b disjoint batches of size b (remainder
   * dropped), visited in the same order every epoch. Matches the hidden-state accountants: Ye &amp;
   * Shokri Thm 5.2 (docs/sampling.md#shuffle-once), Chen &amp; Liu Thm 4.6 (docs/sampling.md#shuffle-once), Kong &amp; Ribero
   * cyclic order (docs/sampling.md#shuffle-once) and Bok et al. NoisyCGD (docs/sampling.md#shuffle-once).
   */
  SHUFFLE_ONCE_FIXED_PARTITION("shuffle-once fixed partition",
      "one secret permutation cut into disjoint fixed-size batches, same order every epoch"),
  /**
   * A fresh uniformly random subset of exactly b distinct records at every step. Matches Ye &amp;
   * Shokri Thm 5.3 (docs/accountants.md#ye-shokri), Bok et al. NoisySGD (docs/accountants.md#shifted-interpolation), and the replace-one
   * subsampling bound of Wang, Balle &amp; Kasiviswanathan 2019 Thm 9 (docs/sampling.md#poisson).
   */
  WITHOUT_REPLACEMENT("sampling without replacement per step",
      "a fresh uniform subset of b distinct records at every step");

  private final String label;
  private final String definition;

  SamplingScheme(String label, String definition) {
    this.label = label;
    this.definition = definition;
  }

  /** Short name for messages, e.g. "Poisson sampling". */
  public String label() {
    return label;
  }

  /** What the scheme does, in one clause. */
  public String definition() {
    return definition;
  }
}
