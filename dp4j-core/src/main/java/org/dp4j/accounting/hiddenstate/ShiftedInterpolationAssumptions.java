package org.dp4j.accounting.hiddenstate;

import static com.google.common.base.Preconditions.checkArgument;

import java.util.ArrayList;
import java.util.List;

/** Validation and assumption texts shared by the shifted-interpolation accountants (Bok, Su &amp; Altschuler 2024; docs/errata.md#shifted-interpolation-text; docs/accountants.md#shifted-interpolation). */
final class ShiftedInterpolationAssumptions {
  private ShiftedInterpolationAssumptions() {}

  static void check(double bigL, double sigma, double bigD) {
    checkArgument(bigL > 0 && Double.isFinite(bigL), "L (gradient sensitivity) must be set, finite and > 0, was %s",
        bigL);
    checkArgument(sigma > 0 && Double.isFinite(sigma), "σ (gradient noise std) must be set, finite and > 0, was %s",
        sigma);
    checkArgument(bigD > 0, "D (constraint-set diameter) must be > 0 or +Infinity, was %s", bigD);
  }

  static List<String> common(double bigL, double sigma, double eta, double m, double bigM, double bigD) {
    List<String> a = new ArrayList<>();
    a.add(m > 0
        ? String.format("every f_i (after any clipping) is m-strongly convex and M-smooth, m = %s, M = %s"
            + " (user-asserted)", m, bigM)
        : String.format("every f_i (after any clipping) is convex and M-smooth, M = %s (user-asserted)", bigM));
    a.add(String.format("gradient sensitivity sup_x ‖∇f_i(x) − ∇f'_i(x)‖ ≤ L = %s (2C under clipping to C)",
        bigL));
    a.add(String.format("noise N(0, σ²I), σ = %s, added to the averaged gradient at every step;"
        + " constant step η = %s; X_0 data-independent", sigma, eta));
    if (Double.isFinite(bigD)) {
      a.add(String.format("every iterate is projected onto a closed convex set of diameter D = %s", bigD));
    }
    a.add("only the final iterate leaves the trainer");
    return a;
  }
}
