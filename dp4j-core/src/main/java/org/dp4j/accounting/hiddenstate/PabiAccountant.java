package org.dp4j.accounting.hiddenstate;

import static org.dp4j.InvalidSettingException.checkArgument;
import static org.dp4j.accounting.hiddenstate.Hypotheses.checkPositive;

import java.util.List;
import org.dp4j.accounting.Orders;

/**
 * Privacy amplification by iteration for noisy SGD over fixed disjoint batches (Feldman, Mironov,
 * Talwar &amp; Thakurta 2018, Thm 22, as restated by Boninsegna Thm VI.1 / Alg. 2 and corrected in
 * docs/errata.md#pabi-corrected): ε(α) = (α/(2σ²))·[(T−1)/Q + 1/(Q−κ+1)], reported for the worst batch position
 * κ = Q, i.e. ε(α) = (α/(2σ²))·[(T−1)/Q + 1].
 *
 * <p>Mechanism (Alg. 2): n records split into Q = n/B fixed disjoint batches visited cyclically for T
 * epochs; no clipping; θ ← θ − (η/B)(Σ_{x∈B_i} ∇ℓ(θ, x) + N(0, 4σ²L²I)), so σ is the noise multiplier
 * relative to the replace-one sensitivity 2L. Neighbours: replace one record. Threat model: only the
 * last iterate θ_{QT} is released. The printed paper swaps the cases of s_t and has the wrong last
 * denominator and Q² (docs/errata.md#pabi-corrected); the best case κ = 1 (the paper's αK/(2σ²Q²)) is not a
 * DP guarantee.
 *
 * <pre>{@code
 * PabiAccountant acc = PabiAccountant.builder().datasetSize(1000).batchSize(100).epochs(5).noiseMultiplier(1)
 *     .stepSize(0.1).smoothness(1).lipschitzConstant(1).build();
 * double eps = acc.rdp(Orders.of(2)).value(0);    // 1.4 = (2/2)·(4/10 + 1)
 * }</pre>
 */
public final class PabiAccountant extends LinearRdpAccountant {
  public static final String NAME = "pabi";
  public static final String THEOREM = "Feldman et al. 2018 Thm 22 (PABI) for Alg. 2 of Boninsegna,"
      + " corrected, worst batch position κ = Q (docs/errata.md#pabi-corrected)";

  private final long n;
  private final long bigB;
  private final long bigT;
  private final double sigma;
  private final double eta;
  private final double beta;
  private final double bigL;

  private PabiAccountant(Builder in) {
    super(NAME);
    n = in.n;
    bigB = in.bigB;
    bigT = in.bigT;
    sigma = in.sigma;
    eta = in.eta;
    beta = in.beta;
    bigL = in.bigL;
  }

  public static Builder builder() {
    return new Builder();
  }

  /** Q = n/B, batches per epoch. */
  public long batchesPerEpoch() {
    return n / bigB;
  }

  /** ρ = [(T−1)/Q + 1/(Q−κ+1)]/(2σ²) when the differing record sits in batch κ ∈ [1, Q]. */
  public double rhoAtPosition(long kappa) {
    long bigQ = batchesPerEpoch();
    checkArgument(kappa >= 1 && kappa <= bigQ, "batch position κ must be in [1, Q = %s], was %s", bigQ, kappa);
    return ((double) (bigT - 1) / bigQ + 1.0 / (bigQ - kappa + 1)) / (2 * sigma * sigma);
  }

  /** The guarantee: worst position κ = Q, ρ = [(T−1)/Q + 1]/(2σ²); ε(α) = ρα. */
  @Override
  public double rho() {
    return rhoAtPosition(batchesPerEpoch());
  }

  /**
   * Composition baseline ρ = T/(2σ²): the record is used once per epoch by a Gaussian mechanism with
   * noise multiplier σ; valid when every iterate is released and without convexity.
   */
  @Override
  public double rhoComposition() {
    return bigT / (2 * sigma * sigma);
  }

  @Override
  public String theorem() {
    return THEOREM;
  }

  @Override
  public List<String> assumptions() {
    return List.of(
        String.format("every loss ℓ(·, x) is convex and β-smooth with β = %s, and η = %s ≤ 2/β"
            + " (user-asserted)", beta, eta),
        String.format("every loss is L-Lipschitz with L = %s, so no clipping is needed or applied", bigL),
        String.format("noise N(0, 4σ²L²I) with σ = %s added to each batch-gradient sum", sigma),
        String.format("fixed data-independent cyclic order of Q = %d disjoint batches of size B = %d",
            batchesPerEpoch(), bigB),
        "constant step size, plain gradient steps; only the final iterate leaves the trainer");
  }

  @Override
  String compositionMechanism() {
    return "Gaussian mechanism (multiplier σ) composed over the T epochs (Mironov 2017)";
  }

  @Override
  List<String> compositionAssumptions() {
    return List.of(String.format("every loss is L-Lipschitz with L = %s (sensitivity 2L, no clipping)", bigL),
        "fixed cyclic order: each record is used once per epoch");
  }

  /** Configuration; names follow Boninsegna's Alg. 2 (docs/accountants.md#pabi). All parameters are required. */
  public static final class Builder {
    private long n;
    private long bigB;
    private long bigT;
    private double sigma = Double.NaN;
    private double eta = Double.NaN;
    private double beta = Double.NaN;
    private double bigL = Double.NaN;

    private Builder() {}

    /** n: dataset size. */
    public Builder datasetSize(long n) {
      this.n = n;
      return this;
    }

    /** B: batch size; must divide n. */
    public Builder batchSize(long bigB) {
      this.bigB = bigB;
      return this;
    }

    /** T: number of epochs (each of Q = n/B steps). */
    public Builder epochs(long bigT) {
      this.bigT = bigT;
      return this;
    }

    /** σ: noise multiplier relative to the sensitivity 2L of a batch-gradient sum. */
    public Builder noiseMultiplier(double sigma) {
      this.sigma = sigma;
      return this;
    }

    /** η: constant learning rate. */
    public Builder stepSize(double eta) {
      this.eta = eta;
      return this;
    }

    /** β: smoothness constant of every loss. */
    public Builder smoothness(double beta) {
      this.beta = beta;
      return this;
    }

    /** L: Lipschitz constant of every loss (gradient norm bound). */
    public Builder lipschitzConstant(double bigL) {
      this.bigL = bigL;
      return this;
    }

    public PabiAccountant build() {
      checkArgument(n >= 1, "n (dataset size) must be >= 1, was %s", n);
      checkArgument(bigB >= 1 && bigB <= n, "B (batch size) must be in [1, n = %s], was %s", n, bigB);
      checkArgument(n % bigB == 0, "B = %s must divide n = %s (fixed disjoint batches): n mod B = %s",
          bigB, n, n % bigB);
      checkArgument(bigT >= 1, "T (epochs) must be >= 1, was %s", bigT);
      checkPositive("σ (noise multiplier)", sigma);
      checkPositive("η (learning rate)", eta);
      checkPositive("β (smoothness)", beta);
      checkPositive("L (Lipschitz constant)", bigL);
      checkArgument(eta <= 2 / beta, "η = %s violates η ≤ 2/β = %s (contraction of the gradient step,"
          + " FMTT18; β = %s)", eta, 2 / beta, beta);
      return new PabiAccountant(this);
    }
  }
}
