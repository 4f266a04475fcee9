/**
 * Noise for the private mechanisms. {@link org.dp4j.noise.GaussianNoise} draws from a cryptographically secure
 * generator ({@link org.dp4j.noise.AesCtrRandom}, seeded from the operating system); a
 * {@link org.dp4j.noise.NoiseSource} that is not secure (a seeded one for tests) voids every guarantee the ledger
 * reports.
 */
package org.dp4j.noise;
