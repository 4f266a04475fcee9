/**
 * Batch samplers whose randomness matches the accountant: Poisson sampling (each record independently with rate q),
 * shuffle-once fixed partitions and sampling without replacement, all from secure randomness.
 * {@link org.dp4j.sampling.SamplingPlan} describes a sampler to the accountants, which refuse a plan they do not cover
 * (docs/sampling.md).
 */
package org.dp4j.sampling;
