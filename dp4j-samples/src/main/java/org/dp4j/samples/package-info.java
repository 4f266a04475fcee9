/**
 * Runnable samples: {@link org.dp4j.samples.PrivateFitExample} trains a MultiLayerNetwork and a ComputationGraph on
 * MNIST with DL4J's own {@code fit} and the privacy listener.
 */
package org.dp4j.samples;
