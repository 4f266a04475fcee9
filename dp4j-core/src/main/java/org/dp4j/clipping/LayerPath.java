package org.dp4j.clipping;

/** How per-example clipping treats one layer or vertex of a network ({@link PrivacyValidator}). */
public enum LayerPath {
  /** A batched dp4j rule: no loop over examples. */
  VECTORISED("vectorised"),
  /** A rule the user registered with {@link LayerRuleRegistry}. */
  REGISTERED("registered"),
  /** DL4J's own backprop one example at a time: exact, but costs about one pass of the layer per example. */
  GENERIC("generic (slow)"),
  /** Frozen parameters: forward pass only, no part in norms or sums. */
  FROZEN("frozen"),
  /** Nothing to clip; per-example errors pass through DL4J's batched backprop. */
  NO_PARAMETERS("no parameters"),
  /** Not trainable privately; the detail says why and what to use instead. */
  REFUSED("REFUSED");

  private final String label;

  LayerPath(String label) {
    this.label = label;
  }

  /** Short label used in {@link ValidationReport#toString()}. */
  public String label() {
    return label;
  }
}
