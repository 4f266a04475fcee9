/**
 * The sample networks behind one API ({@link org.dp4j.samples.zoo.ModelZoo}): the architectures the papers dp4j
 * reproduces train (MNIST MLP, CNN, LSTM, ScatterNet classifiers, DP-MBCD's lifted networks), as ordinary,
 * non-private DL4J configurations. They live with the samples, not in dp4j-core: the library makes <em>a user's</em>
 * network private and accounts for it; these are reference points for benchmarks and the command line.
 */
package org.dp4j.samples.zoo;
