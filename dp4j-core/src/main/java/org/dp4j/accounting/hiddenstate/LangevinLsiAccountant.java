package org.dp4j.accounting.hiddenstate;

import static org.dp4j.InvalidSettingException.checkArgument;
import static org.dp4j.accounting.hiddenstate.Hypotheses.checkPositive;

import java.util.List;
import org.dp4j.accounting.Orders;

/**
 * Hidden-state RDP of full-batch noisy (projected) gradient descent on a λ-strongly convex, β-smooth
 * loss through the log-Sobolev inequality (Chourasia, Ye &amp; Shokri 2021, as Boninsegna Thm VII.1;
 * docs/accountants.md#langevin-lsi): ε(α) = (4/(λη))·(α/(2σ²))·(1 − e^{−ληK/2}), which converges to 2α/(λησ²) as K → ∞.
 *
 * <p>Mechanism: θ_{k+1} = Π_C(θ_k − (η/n)(Σ_i ∇ℓ(θ_k; x_i) + N(0, σ²S_g²I))) on a closed convex set
 * C, with σ the noise multiplier relative to the sensitivity S_g of the gradient sum, started at
 * θ₀ ~ Π_C(N(0, (ηS_g²σ²/(λn²))I)). Neighbours: replace one record. Threat model: only θ_K is released.
 * For small K the bound is above composition (the γ = ½ factor of Lemma VII.1); report the minimum with
 * {@link #rhoComposition()} (docs/errata.md#langevin-lsi).
 *
 * <pre>{@code
 * LangevinLsiAccountant acc = LangevinLsiAccountant.builder().strongConvexity(0.1).smoothness(1.5).stepSize(0.5)
 *     .noiseMultiplier(2).iterations(100).build();
 * double eps = acc.rdp(Orders.of(2)).value(0);    // 18.3583
 * }</pre>
 */
public final class LangevinLsiAccountant extends LinearRdpAccountant {
  public static final String NAME = "langevin-lsi";
  public static final String THEOREM =
      "Chourasia, Ye & Shokri 2021 (Boninsegna Thm VII.1), full-batch LSI bound (docs/accountants.md#langevin-lsi)";

  private final double lambda;
  private final double beta;
  private final double eta;
  private final double sigma;
  private final long bigK;

  private LangevinLsiAccountant(Builder in) {
    super(NAME);
    lambda = in.lambda;
    beta = in.beta;
    eta = in.eta;
    sigma = in.sigma;
    bigK = in.bigK;
  }

  public static Builder builder() {
    return new Builder();
  }

  /** ρ = (2/(λησ²))·(1 − e^{−ληK/2}); ε(α) = ρα. */
  @Override
  public double rho() {
    return 2 / (lambda * eta * sigma * sigma) * -Math.expm1(-lambda * eta * bigK / 2);
  }

  /** The K → ∞ limit 2/(λησ²): training can continue forever if this is within budget. */
  public double rhoLimit() {
    return 2 / (lambda * eta * sigma * sigma);
  }

  /** Composition baseline ρ = K/(2σ²) (K Gaussian steps of multiplier σ), valid for all iterates. */
  @Override
  public double rhoComposition() {
    return bigK / (2 * sigma * sigma);
  }

  @Override
  public String theorem() {
    return THEOREM;
  }

  @Override
  public List<String> assumptions() {
    return List.of(
        String.format("the empirical loss is λ-strongly convex and β-smooth on a closed convex set C,"
            + " λ = %s, β = %s, and η = %s < 1/β (user-asserted)", lambda, beta, eta),
        "the gradient sum has finite replace-one sensitivity S_g (e.g. 2L for L-Lipschitz losses);"
            + " noise N(0, σ²S_g²I) on the sum, then scaled by η/n",
        "full-batch gradient at every step, followed by the projection onto C",
        "θ₀ ~ Π_C(N(0, ηS_g²σ²/(λn²)·I)) drawn independently of the data (Thm VII.1's initialisation)",
        "only the final iterate θ_K leaves the trainer");
  }

  @Override
  String compositionMechanism() {
    return "Gaussian mechanism (multiplier σ) composed over K steps (Mironov 2017)";
  }

  @Override
  List<String> compositionAssumptions() {
    return List.of("the gradient sum has finite replace-one sensitivity S_g; noise N(0, σ²S_g²I) on the sum");
  }

  /** Configuration; names follow docs/accountants.md#langevin-lsi. All parameters are required. */
  public static final class Builder {
    private double lambda = Double.NaN;
    private double beta = Double.NaN;
    private double eta = Double.NaN;
    private double sigma = Double.NaN;
    private long bigK;

    private Builder() {}

    /** λ: strong-convexity constant of the (mean) loss. */
    public Builder strongConvexity(double lambda) {
      this.lambda = lambda;
      return this;
    }

    /** β: smoothness constant of the (mean) loss. */
    public Builder smoothness(double beta) {
      this.beta = beta;
      return this;
    }

    /** η: constant step size. */
    public Builder stepSize(double eta) {
      this.eta = eta;
      return this;
    }

    /** σ: noise multiplier relative to the gradient-sum sensitivity S_g. */
    public Builder noiseMultiplier(double sigma) {
      this.sigma = sigma;
      return this;
    }

    /** K: number of full-batch iterations. */
    public Builder iterations(long bigK) {
      this.bigK = bigK;
      return this;
    }

    public LangevinLsiAccountant build() {
      checkPositive("λ (strong convexity)", lambda);
      checkPositive("β (smoothness)", beta);
      checkPositive("η (step size)", eta);
      checkPositive("σ (noise multiplier)", sigma);
      checkArgument(bigK >= 1, "K (iterations) must be >= 1, was %s", bigK);
      checkArgument(lambda <= beta, "λ = %s violates λ ≤ β = %s (a λ-strongly convex β-smooth loss"
          + " needs λ ≤ β)", lambda, beta);
      checkArgument(eta < 1 / beta, "η = %s violates η < 1/β = %s (Thm VII.1; β = %s)", eta, 1 / beta, beta);
      return new LangevinLsiAccountant(this);
    }
  }
}
