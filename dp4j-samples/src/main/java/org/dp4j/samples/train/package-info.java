/**
 * The sample networks the CLI and the samples train (MNIST MLP and CNN), as DL4J configurations.
 */
package org.dp4j.samples.train;
