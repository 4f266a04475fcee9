package org.dp4j.accounting.hiddenstate;

import static com.google.common.base.Preconditions.checkNotNull;
import static org.dp4j.InvalidSettingException.checkArgument;

import java.util.List;

/**
 * The constants of one released block θ_i of DP-MBCD (e.g. one weight matrix W_d of a lifted network),
 * each with the reason it holds. Built by {@link DpMbcdConfig.Builder}, which derives them from the step
 * size where it can.
 *
 * @param name block name, e.g. "W0"
 * @param lipschitzF L_F: Lipschitz constant of the gradient step F(θ) = θ − η∇f(θ) (Chen &amp; Liu, Lemma 4.1)
 * @param lipschitzT L_T: Lipschitz constant of the proximal map T = Prox_{η,r} (Lemma 4.2), in (0, 1]
 * @param gradientSensitivity S_g: largest ℓ2 difference between the per-example gradients of two
 *     different examples (Assumption 4.4 read per example, batch-mean gradient; Chen &amp; Liu 2025; docs/errata.md#dp-mbcd-sensitivity)
 * @param assumptions why these constants hold, printed with every guarantee
 */
public record DpMbcdBlock(String name, double lipschitzF, double lipschitzT, double gradientSensitivity,
    List<String> assumptions) {
  public DpMbcdBlock {
    checkNotNull(name, "name");
    checkArgument(lipschitzF > 0 && Double.isFinite(lipschitzF), "block %s: L_F must be finite and > 0, was %s",
        name, lipschitzF);
    checkArgument(lipschitzT > 0 && lipschitzT <= 1,
        "block %s: L_T must be in (0, 1] (a prox of a convex regulariser is firmly non-expansive; docs/errata.md#dp-mbcd-lipschitz-t),"
            + " was %s", name, lipschitzT);
    checkArgument(gradientSensitivity > 0 && Double.isFinite(gradientSensitivity),
        "block %s: gradient sensitivity S_g must be finite and > 0, was %s", name, gradientSensitivity);
    assumptions = List.copyOf(assumptions);
  }
}
