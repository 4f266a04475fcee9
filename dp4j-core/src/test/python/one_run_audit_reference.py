"""Independent reference values of the one-run audit bound for OneRunAuditReferenceTest.

Written for python3 + mpmath 1.3.0 at mp.dps = 50 (not used by the build). For m canaries, r guesses, v correct
guesses and a null hypothesis of (eps, delta)-DP, the p-value is (Steinke, Nasr & Jagielski 2023, Cor. 5.4 and the
algorithm of their App. D)

    p(eps) = P[Bin(r, q) >= v] + 2 m delta max_{1 <= i <= v} P[v - i <= Bin(r, q) < v] / i,   q = e^eps / (1 + e^eps),

capped at 1, and the audit's lower bound is the largest eps with p(eps) < 1 - confidence. Here every binomial
probability is an exact rational sum of mpmath binomial coefficients at 50 digits (the Java code sums
double-precision log-gamma terms), and the bound is found by mpmath's bisection on the exact p-value to 1e-12
(the Java code brackets and bisects in double precision). scipy.stats.binom is used as a second check of the
tail at 1e-9 relative.

usage: python3 one_run_audit_reference.py > ../resources/org/dp4j/audit/one_run_audit_reference.csv
"""
from mpmath import mp, mpf, binomial, exp, log
import scipy.stats

mp.dps = 50

# (m, r, v, delta, confidence): small and large r, v near r/2 (bound 0) and near r (large bound), delta 0 and > 0.
CASES = [
    (1000, 100, 75, "1e-4", "0.95"),      # Steinke et al. App. D example (published bound 0.673)
    (100000, 1510, 1439, "1e-5", "0.95"),  # Steinke et al. Sec. 7 (published bound 2.675)
    (1000, 100, 75, "0", "0.95"),
    (1000, 100, 100, "0", "0.95"),
    (1000, 100, 100, "1e-5", "0.95"),
    (1000, 20, 20, "1e-5", "0.95"),
    (1000, 1000, 600, "1e-5", "0.95"),
    (1000, 1000, 900, "1e-5", "0.95"),
    (1000, 1000, 1000, "1e-5", "0.95"),
    (1000, 200, 160, "1e-5", "0.99"),
    (5000, 500, 400, "1e-6", "0.95"),
    (200, 50, 40, "1e-3", "0.9"),
    (1000, 100, 55, "1e-5", "0.95"),      # too few correct: bound 0
]

P_CASES = [(1000, 100, 75, "0.5", "1e-4"), (1000, 100, 75, "1.3", "1e-4"), (1000, 1000, 900, "2", "1e-5"),
           (100000, 1510, 1439, "2.5", "1e-5"), (50, 50, 50, "3", "0"), (1000, 300, 10, "0.1", "1e-5")]


def pmf(k, r, q):
    return binomial(r, k) * q ** k * (1 - q) ** (r - k)


def p_value(m, r, v, eps, delta):
    q = exp(eps) / (1 + exp(eps))
    beta = sum(pmf(k, r, q) for k in range(v, r + 1))
    alpha, acc = mpf(0), mpf(0)
    for i in range(1, v + 1):
        acc += pmf(v - i, r, q)
        alpha = max(alpha, acc / i)
    return min(beta + alpha * delta * 2 * m, mpf(1))


def lower_bound(m, r, v, delta, confidence):
    level = 1 - confidence
    if p_value(m, r, v, mpf(0), delta) >= level:
        return mpf(0)
    lo, hi = mpf(0), mpf(1)
    while p_value(m, r, v, hi, delta) < level:
        lo, hi = hi, 2 * hi
    while hi - lo > mpf("1e-12"):
        mid = (lo + hi) / 2
        if p_value(m, r, v, mid, delta) < level:
            lo = mid
        else:
            hi = mid
    return lo


def main():
    print("# kind,m,r,v,delta,confidence_or_eps,value  (mpmath %s, dps 50, see one_run_audit_reference.py)"
          % __import__("mpmath").__version__)
    for m, r, v, eps, delta in P_CASES:
        p = p_value(m, r, v, mpf(eps), mpf(delta))
        q = float(exp(mpf(eps)) / (1 + exp(mpf(eps))))
        tail = scipy.stats.binom.sf(v - 1, r, q)
        exact_tail = sum(pmf(k, r, mpf(q)) for k in range(v, r + 1))
        assert abs(tail - float(exact_tail)) <= 1e-9 * float(exact_tail) + 1e-300, (tail, exact_tail)
        print("p,%d,%d,%d,%s,%s,%s" % (m, r, v, delta, eps, mp.nstr(p, 20)))
    for m, r, v, delta, conf in CASES:
        eps = lower_bound(m, r, v, mpf(delta), mpf(conf))
        print("eps,%d,%d,%d,%s,%s,%s" % (m, r, v, delta, conf, mp.nstr(eps, 15)))


if __name__ == "__main__":
    main()
