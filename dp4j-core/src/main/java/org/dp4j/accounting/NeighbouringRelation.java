package org.dp4j.accounting;

/** Which datasets count as neighbours in a privacy guarantee. */
public enum NeighbouringRelation {
  /** D′ = D with one record added or removed (the convention of the SGM / moments accountant). */
  ADD_REMOVE("add/remove one record"),
  /** D′ = D with one record replaced by another (same size; sensitivity of a clipped sum is 2C). */
  REPLACE_ONE("replace one record");

  private final String description;

  NeighbouringRelation(String description) {
    this.description = description;
  }

  public String description() {
    return description;
  }
}
