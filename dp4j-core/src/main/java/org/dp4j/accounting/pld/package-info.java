/**
 * Privacy-loss-distribution accounting (Koskela et al. 2020; Doroshenko et al. 2022, "Connect the dots"):
 * pessimistic discretisation of the sampled Gaussian mechanism's privacy loss, composition by FFT, ε(δ) and δ(ε) with
 * the discretisation error bounded, and calibration of the noise multiplier to a target ε. Grids too fine for memory
 * are refused ({@link org.dp4j.accounting.pld.GridTooFineException}).
 */
package org.dp4j.accounting.pld;
