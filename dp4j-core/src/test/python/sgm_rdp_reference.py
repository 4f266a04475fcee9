"""Independent reference values of the sampled-Gaussian RDP for SampledGaussianRdpReferenceTest.

Written for python3 + mpmath 1.3.0 at mp.dps = 40 (not used by the build). For each (q, z, alpha) it
integrates the defining expectation (Mironov, Talwar & Zhang 2019, Sec. 3)

    A_alpha = E_{u ~ N(0,1)} [ ((1 - q) + q exp(u/z - 1/(2 z^2)))^alpha ],   RDP = log(A_alpha) / (alpha - 1),

with mpmath's tanh-sinh quadrature on (-inf, inf) split at the places where the integrand changes shape
(0, the point u = 1/(2z) where the likelihood ratio is 1, the sigmoid centre, and the right bump at alpha/z),
at 40 digits and again at 50 digits with a higher quadrature degree; a row is written only if the two agree
to 1e-25 relative. For integer alpha the finite binomial sum (MTZ19 Sec. 3.2) is also evaluated at 50 digits
and must agree to 1e-25. None of this shares code or method with the Java implementation (series,
trapezoidal rule in log space).

usage: python3 sgm_rdp_reference.py > ../resources/org/dp4j/accounting/sgm_rdp_reference.csv
       python3 sgm_rdp_reference.py --extra > ../resources/org/dp4j/accounting/sgm_rdp_reference_extra.csv
"""
import sys
from mpmath import mp, mpf, exp, log, quad, npdf, inf, binomial

QS = ["0.1", "0.2", "0.341", "0.5", "0.6", "0.9", "1.0"]
ZS = ["0.5", "1", "2", "4", "10"]
ALPHAS = ["1.1", "1.5", "2", "3.5", "8", "10.5", "32", "100.5", "256"]
# Second table: orders near 1 and large fractional orders, at the MNIST rate 256/60000 and others.
EXTRA = [(q, z, a) for q in ["0.004266666666666667", "0.05", "0.5"] for z in ["0.8", "1.1", "3"]
         for a in ["1.001", "1.01", "1.25", "5.5", "63.5", "1000.5"]]


def rdp_quad(q, z, a, degree):
    q, z, a = mpf(q), mpf(z), mpf(a)

    def f(u):
        return npdf(u) * ((1 - q) + q * exp(u / z - 1 / (2 * z * z))) ** a

    pts = {mpf(0), 1 / (2 * z), a / z, a / z - 8, a / z + 8, mpf(-8), mpf(8)}
    if q < 1:
        pts.add(z * log((1 - q) / q) + 1 / (2 * z))
    pts = sorted(pts)
    A = quad(f, [-inf] + pts + [inf], maxdegree=degree)
    return log(A) / (a - 1)


def rdp_binomial(q, z, a):
    q, z = mpf(q), mpf(z)
    n = int(a)
    A = sum(binomial(n, k) * q ** k * (1 - q) ** (n - k) * exp(mpf(k * k - k) / (2 * z * z)) for k in range(n + 1))
    return log(A) / (n - 1)


def main():
    print("# q,z,alpha,rdp  (mpmath %s, dps 40 and 50, see sgm_rdp_reference.py)" % __import__("mpmath").__version__)
    grid = EXTRA if "--extra" in sys.argv else [(q, z, a) for q in QS for z in ZS for a in ALPHAS]
    for q, z, a in grid:
        mp.dps = 40
        r40 = rdp_quad(q, z, a, 8)
        mp.dps = 50
        r50 = rdp_quad(q, z, a, 10)
        if abs(r40 - r50) > mpf("1e-25") * abs(r50):
            sys.exit("quadrature did not settle at q=%s z=%s alpha=%s: %s vs %s" % (q, z, a, r40, r50))
        if float(a).is_integer():
            rb = rdp_binomial(q, z, a)
            if abs(rb - r50) > mpf("1e-25") * abs(r50):
                sys.exit("binomial sum disagrees at q=%s z=%s alpha=%s: %s vs %s" % (q, z, a, rb, r50))
        print("%s,%s,%s,%s" % (q, z, a, mp.nstr(r50, 20)))
        sys.stdout.flush()


if __name__ == "__main__":
    main()
