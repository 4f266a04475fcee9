/**
 * Private training. The DL4J idiom: {@link org.dp4j.training.PrivateMultiLayerNetwork} and
 * {@link org.dp4j.training.PrivateComputationGraph} (made by {@link org.dp4j.training.DpSgdSetup}) train with DL4J's
 * own {@code fit(iterator, epochs)} over a {@link org.dp4j.training.SampledDataSetIterator}; the lower-level loop is
 * {@link org.dp4j.training.DpSgdTrainer} over {@link org.dp4j.training.IndexedData}. Both return what was spent
 * ({@link org.dp4j.training.TrainingResult}, {@link org.dp4j.training.EpsilonSpent}) and refuse configurations the
 * accountant does not cover.
 */
package org.dp4j.training;
