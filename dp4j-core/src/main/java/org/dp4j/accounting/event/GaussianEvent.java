package org.dp4j.accounting.event;

import static org.dp4j.InvalidSettingException.checkArgument;

/**
 * The Gaussian mechanism on a query of sensitivity 1 with noise N(0, z²).
 *
 * @param noiseMultiplier z &gt; 0, finite
 */
public record GaussianEvent(double noiseMultiplier) implements DpEvent {
  public GaussianEvent {
    checkArgument(noiseMultiplier > 0 && Double.isFinite(noiseMultiplier),
        "noise multiplier must be finite and > 0, was %s", noiseMultiplier);
  }
}
