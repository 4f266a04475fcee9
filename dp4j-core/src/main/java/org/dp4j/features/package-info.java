/**
 * Data-independent feature extractors for private learning. {@link org.dp4j.features.ScatteringTransform} is the
 * order-2 scattering transform of Oyallon &amp; Mallat (2015) with a Morlet filter bank
 * ({@link org.dp4j.features.MorletFilterBank}), as Tramèr &amp; Boneh (2021) use it before a linear model or a small
 * CNN: it depends on no training data, so computing it costs no privacy; the features are cached on disk with a
 * checksum ({@link org.dp4j.features.ScatteringCache}). Their normalisation is per example (group normalisation),
 * which costs no privacy either.
 */
package org.dp4j.features;
