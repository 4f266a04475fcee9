/**
 * Per-example gradient norms and clipped gradient sums for DL4J networks, vectorised per layer type (one class per
 * layer type, as Opacus' {@code grad_sample/}), with {@link org.dp4j.clipping.PerExampleClipper} as the entry point
 * and {@link org.dp4j.clipping.ExactPerExampleGradients} as the slow exact reference.
 */
package org.dp4j.clipping;
