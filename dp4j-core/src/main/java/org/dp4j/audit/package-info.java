/**
 * Empirical privacy auditing: a lower bound on ε measured from one training run (Steinke, Nasr &amp; Jagielski 2023,
 * "Privacy Auditing with One (1) Training Run"), to set beside the certified upper bound. Canaries are included
 * independently with probability ½ ({@link org.dp4j.audit.CanaryCoins}), scored, and guessed
 * ({@link org.dp4j.audit.CanaryGuesses}, {@link org.dp4j.audit.GuessPlan}); {@link org.dp4j.audit.OneRunAudit} turns
 * the number of correct guesses into the largest ε the run still refutes at the stated confidence. This package
 * imports nothing from ND4J; the canaries live in {@link org.dp4j.audit.whitebox} and
 * {@link org.dp4j.audit.blackbox}. See docs/auditing.md for what the bound means and does not mean.
 */
package org.dp4j.audit;
