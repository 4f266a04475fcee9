/**
 * dp4j: differentially private training for Deeplearning4j, with honest privacy accounting. The API packages are
 * {@link org.dp4j.training} (private {@code fit}, {@code DpSgdSetup}, {@code DpSgdTrainer}), {@link org.dp4j.updater}
 * (the {@code DpSgd} updater), {@link org.dp4j.sampling}, {@link org.dp4j.noise}, {@link org.dp4j.clipping} and the
 * accounting packages under {@link org.dp4j.accounting}, which import nothing from ND4J. {@link org.dp4j.Dp4jVersion}
 * names the version written into every report. See docs/architecture.md for the contracts between them.
 */
package org.dp4j;
