/**
 * DL4J training listeners for privacy: {@link org.dp4j.listeners.PrivacyLedgerListener} derives the mechanism from
 * the network's DpSgd configuration and its sampler, steps the ledger, halts training before the budget is exceeded
 * ({@link org.dp4j.listeners.PrivacyBudgetTermination}), and writes reports ({@link org.dp4j.listeners.LedgerReport}),
 * charts ({@link org.dp4j.listeners.LedgerChart}) and self-verifying checkpoints
 * ({@link org.dp4j.listeners.LedgerCheckpoint}). {@link org.dp4j.listeners.HiddenStateLeakDetector} voids hidden-state
 * bounds when intermediate state is released.
 */
package org.dp4j.listeners;
