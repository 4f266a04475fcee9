package org.dp4j.samples.cli;

import static com.google.common.base.Preconditions.checkArgument;

import java.util.Locale;

/**
 * The hyperparameters of the two algorithms that {@code dp4j experiment frontier} compares (everything but the noise,
 * which is calibrated to the target ε): {@link Mbcd} for DP-MBCD, {@link Sgd} for DP-SGD. Both parse from a
 * colon-separated command-line spec.
 */
final class FrontierSettings {
  private FrontierSettings() {}

  /**
   * DP-MBCD (Chen &amp; Liu 2025, Alg. 4; docs/accountants.md#dp-mbcd): batch b of a shuffle-once partition, K epochs,
   * step η on batch means, per-example clip norm C, norm bound ρ of every x_d (inputs included), explicit ℓ2 term μ.
   * Only steps the SAFE accountant certifies as non-expansive are accepted: η·(ρ² + 1 + μ) ≤ 2, so that
   * L_F = max(|1 − ημ|, |1 − η(ρ² + 1 + μ)|) ≤ 1 (docs/errata.md#dp-mbcd-lipschitz-f); a longer step has L_F &gt; 1
   * and its hidden-state ε grows exponentially.
   */
  record Mbcd(int batchSize, int epochs, double learningRate, double clipNorm, double rho, double strongConvexity) {
    Mbcd {
      checkArgument(batchSize >= 1, "DP-MBCD batch size must be >= 1, was %s", batchSize);
      checkArgument(epochs >= 1, "DP-MBCD epochs must be >= 1, was %s", epochs);
      checkArgument(learningRate > 0 && Double.isFinite(learningRate), "eta must be finite and > 0, was %s",
          learningRate);
      checkArgument(clipNorm > 0 && Double.isFinite(clipNorm), "clip norm must be finite and > 0, was %s", clipNorm);
      checkArgument(rho > 0 && Double.isFinite(rho), "rho must be finite and > 0, was %s", rho);
      checkArgument(strongConvexity >= 0 && Double.isFinite(strongConvexity), "mu must be finite and >= 0, was %s",
          strongConvexity);
      double curvature = rho * rho + 1 + strongConvexity;
      checkArgument(learningRate * curvature <= 2 * (1 + 1e-12), "eta*(rho^2 + 1 + mu) must be <= 2 for a certified "
          + "L_F <= 1, was %s*%s = %s (largest eta: %s)", learningRate, curvature, learningRate * curvature,
          2 / curvature);
    }

    /** {@code b:K:eta:C:rho:mu}, e.g. {@code 1000:10:1:1:1:0}. */
    static Mbcd parse(String spec) {
      double[] v = numbers(spec, 6, "b:K:eta:C:rho:mu");
      return new Mbcd(integer(v[0], spec), integer(v[1], spec), v[2], v[3], v[4], v[5]);
    }

    String spec() {
      return String.format(Locale.ROOT, "%d:%d:%s:%s:%s:%s", batchSize, epochs, learningRate, clipNorm, rho,
          strongConvexity);
    }

    String describe() {
      return String.format(Locale.ROOT, "b %d, K %d, eta %s, C %s, rho %s, mu %s", batchSize, epochs, learningRate,
          clipNorm, rho, strongConvexity);
    }
  }

  /**
   * DP-SGD (Abadi et al. 2016) with Poisson sampling at expected batch b, K epochs, clip norm C, Nesterov momentum m
   * (plain SGD for m = 0) and learning rate lr.
   */
  record Sgd(int batchSize, int epochs, double clipNorm, double learningRate, double momentum) {
    Sgd {
      checkArgument(batchSize >= 1, "DP-SGD batch size must be >= 1, was %s", batchSize);
      checkArgument(epochs >= 1, "DP-SGD epochs must be >= 1, was %s", epochs);
      checkArgument(clipNorm > 0 && Double.isFinite(clipNorm), "clip norm must be finite and > 0, was %s", clipNorm);
      checkArgument(learningRate > 0 && Double.isFinite(learningRate), "learning rate must be finite and > 0, was %s",
          learningRate);
      checkArgument(momentum >= 0 && momentum < 1, "momentum must be in [0, 1), was %s", momentum);
    }

    /** {@code b:K:C:lr:momentum}, e.g. {@code 2048:20:0.2:2:0.9}. */
    static Sgd parse(String spec) {
      double[] v = numbers(spec, 5, "b:K:C:lr:momentum");
      return new Sgd(integer(v[0], spec), integer(v[1], spec), v[2], v[3], v[4]);
    }

    String spec() {
      return String.format(Locale.ROOT, "%d:%d:%s:%s:%s", batchSize, epochs, clipNorm, learningRate, momentum);
    }

    String describe() {
      return String.format(Locale.ROOT, "expected batch %d, K %d, C %s, lr %s, Nesterov %s", batchSize, epochs,
          clipNorm, learningRate, momentum);
    }
  }

  private static double[] numbers(String spec, int count, String format) {
    String[] parts = spec.split(":", -1);
    checkArgument(parts.length == count, "'%s' must have the form %s", spec, format);
    double[] v = new double[count];
    for (int i = 0; i < count; i++) {
      try {
        v[i] = Double.parseDouble(parts[i].strip());
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException("'" + spec + "' must have the form " + format + ": '" + parts[i]
            + "' is not a number");
      }
    }
    return v;
  }

  private static int integer(double v, String spec) {
    checkArgument(v == Math.rint(v) && Math.abs(v) <= Integer.MAX_VALUE, "'%s': batch size and epochs must be "
        + "integers, was %s", spec, v);
    return (int) v;
  }
}
