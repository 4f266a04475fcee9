/**
 * Data helpers for the sample networks (row sequences for the LSTM) and the network kinds of {@code dp4j train};
 * the networks themselves are in {@link org.dp4j.samples.zoo.ModelZoo}.
 */
package org.dp4j.samples.train;
