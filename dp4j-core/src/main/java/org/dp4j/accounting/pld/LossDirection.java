package org.dp4j.accounting.pld;

/**
 * The two orderings of an add/remove pair. For D′ = D ∪ {x}: {@link #REMOVE} is the loss
 * log(P/Q) with P the output law on the larger dataset, {@link #ADD} the loss with the roles swapped.
 * An add/remove guarantee must hold for both, so δ(ε) is the maximum of the two (Zhu, Dong &amp; Wang
 * 2022, "Optimal accounting of differential privacy via characteristic function", §2; dp_accounting's
 * PLD does the same). Every step of a run shares the direction of its one neighbouring pair, so each
 * direction is composed on its own and the maximum is taken at the end.
 */
enum LossDirection {
  /** P = (1 − q)N(0, σ²) + qN(1, σ²), Q = N(0, σ²). */
  REMOVE,
  /** P = N(0, σ²), Q = (1 − q)N(0, σ²) + qN(1, σ²). */
  ADD
}
