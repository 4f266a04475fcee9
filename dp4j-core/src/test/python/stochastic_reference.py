"""Reference constants of the stochastic tests of the noise, sampling and one-step privacy loss (GaussianSamplerStochasticTest,
PoissonSamplerStochasticTest, ClippedStepPrivacyLossTest), from mpmath at 40 digits and scipy (not used by the build).

- two-sided normal tails P(|Z| > k) = erfc(k / sqrt 2), k = 4, 5, 6;
- acceptance bands [lo, hi] for a Binomial(n, p) count with P(X < lo) <= 5e-7 and P(X > hi) <= 5e-7 (scipy's exact
  binomial quantiles), so a correct sampler fails a band with probability at most 1e-6;
- the hockey-stick divergence of the Gaussian mechanism with sensitivity 1 and noise multiplier z (Balle & Wang 2018,
  Thm. 8): delta(eps) = Phi(-eps z + 1/(2z)) - e^eps Phi(-eps z - 1/(2z)).

usage: python3 stochastic_reference.py
"""
from mpmath import mp, mpf, erfc, sqrt, exp, ncdf
import scipy.stats

mp.dps = 40

for k in (4, 5, 6):
    print("P(|Z|>%d) = %s" % (k, mp.nstr(erfc(mpf(k) / sqrt(2)), 17)))

N = 100_000_000
for k in (4, 5, 6):
    p = float(erfc(mpf(k) / sqrt(2)))
    lo = scipy.stats.binom.ppf(5e-7, N, p)
    hi = scipy.stats.binom.isf(5e-7, N, p)
    print("n=%d k=%d expected %.4f band [%d, %d]" % (N, k, N * p, lo, hi))

for z in ("0.8", "1.5"):
    z = mpf(z)
    for eps in ("0", "0.5", "1", "2"):
        e = mpf(eps)
        d = ncdf(-e * z + 1 / (2 * z)) - exp(e) * ncdf(-e * z - 1 / (2 * z))
        print("z=%s eps=%s delta=%s" % (z, eps, mp.nstr(d, 17)))
