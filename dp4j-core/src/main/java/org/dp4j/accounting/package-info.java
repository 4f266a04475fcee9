/**
 * Privacy accounting without ND4J: the Rényi-DP of the Gaussian and sampled Gaussian mechanisms (exact for every
 * sampling rate and order, {@link org.dp4j.accounting.SampledGaussianRdp}; docs/accounting-sgm-rdp.md), Rényi curves
 * ({@link org.dp4j.accounting.RdpCurve}) and their conversion to (ε, δ) ({@link org.dp4j.accounting.RdpConversion}),
 * calibration of the noise multiplier ({@link org.dp4j.accounting.SgmCalibration}), Gaussian DP, and the one guarantee
 * type every accountant returns, {@link org.dp4j.accounting.PrivacyGuarantee}: ε with its δ, neighbouring relation,
 * threat model and assumptions. A design test keeps this package and its sub-packages free of ND4J.
 */
package org.dp4j.accounting;
