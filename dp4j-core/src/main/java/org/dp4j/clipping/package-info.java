/**
 * Per-example gradient norms and clipped gradient sums for DL4J networks, vectorised per layer type (one class per
 * layer type, as Opacus' {@code grad_sample/}), with {@link org.dp4j.clipping.PerExampleClipper} as the entry point,
 * {@link org.dp4j.clipping.ExactPerExampleGradients} as the slow exact reference, a generic exact path for layers
 * without a vectorised rule, {@link org.dp4j.clipping.LayerRuleRegistry} for users' own rules
 * ({@link org.dp4j.clipping.PerExampleLayer}) and {@link org.dp4j.clipping.PrivacyValidator} to list the path of every
 * layer before training.
 */
package org.dp4j.clipping;
