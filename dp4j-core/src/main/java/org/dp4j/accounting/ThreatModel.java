package org.dp4j.accounting;

/** What the adversary sees; bounds for different threat models are never mixed. */
public enum ThreatModel {
  /** Every intermediate model (or every noisy gradient) may be released: composition bounds. */
  ALL_ITERATES_RELEASED("all iterates released"),
  /** Only the final model leaves the trainer: hidden-state (last-iterate) bounds. */
  LAST_ITERATE_ONLY("only the last iterate released");

  private final String description;

  ThreatModel(String description) {
    this.description = description;
  }

  public String description() {
    return description;
  }
}
