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

The "cap" rows are the largest bound any outcome of r guesses can give: all r correct (v = r). For v = r the
p-value is computed a second way (cap_p_value: q^r plus the running maximum of the left tail, from the pmf recurrence
pmf(r - j) = pmf(r - j + 1) (r - j + 1) / j (1 - q) / q, stopped once the unseen left-tail mass is below 1e-45 of the
part summed, which bounds the neglected change of the maximum by the same relative amount), checked against p_value
at small r, so that m up to 1e5 stays fast.

usage: python3 one_run_audit_reference.py > ../resources/org/dp4j/audit/one_run_audit_reference.csv
       python3 one_run_audit_reference.py --cap-table   (the table of docs/auditing.md#cap)
"""
import math
import sys

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


# (m, r, delta, confidence) for the cap rows: the measured m = 1000 sweep winner (r = 500 at 1 - 0.05/7), r = m with
# and without a sweep, the m = 30000 pre-registered audit of docs/auditing.md#cap, and other deltas.
CAP_CASES = [
    (100, 100, "1e-5", "0.95"),
    (1000, 1000, "1e-5", "0.95"),
    (1000, 500, "1e-5", "0.99285714285714285714285714"),   # 1 - 0.05/7
    (1000, 1000, "1e-5", "0.99285714285714285714285714"),
    (10000, 10000, "1e-5", "0.95"),
    (10000, 10000, "1e-5", "0.995"),                        # 1 - 0.05/10
    (30000, 29306, "1e-5", "0.95"),
    (30000, 30000, "1e-5", "0.95"),
    (100000, 100000, "1e-5", "0.95"),
    (1000, 1000, "1e-6", "0.95"),
    (1000, 1000, "1e-3", "0.9"),
    (5000, 5000, "0", "0.95"),
    (200, 160, "1e-5", "0.95"),                             # AuditCommandTest: --canaries 200 --guesses 80,80
]


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


def cap_p_value(m, r, eps, delta):
    """p_value(m, r, r, eps, delta), all r guesses correct (see the module docstring)."""
    q = exp(eps) / (1 + exp(eps))
    ratio = (1 - q) / q
    beta = q ** r
    rest = 1 - beta              # P[Bin(r, q) < r], the left tail still to be summed
    term, acc, alpha = beta, mpf(0), mpf(0)
    for i in range(1, r + 1):
        term = term * (r - i + 1) / i * ratio   # pmf(r - i)
        acc += term
        rest -= term
        alpha = max(alpha, acc / i)
        if rest < mpf("1e-45") * acc:
            break
    return min(beta + alpha * delta * 2 * m, mpf(1))


def bisect(p, level):
    """Largest eps with p(eps) < level, to 1e-12, as lower_bound."""
    if p(mpf(0)) >= level:
        return mpf(0)
    lo, hi = mpf(0), mpf(1)
    while p(hi) < level:
        lo, hi = hi, 2 * hi
    while hi - lo > mpf("1e-12"):
        mid = (lo + hi) / 2
        if p(mid) < level:
            lo = mid
        else:
            hi = mid
    return lo


def cap(m, r, delta, confidence):
    return bisect(lambda e: cap_p_value(m, r, e, delta), 1 - confidence)


def sweep_guess_counts(m):
    """GuessPlan.symmetricSweep: k = 10, 20, 50, ... up to m."""
    ks = [k for k in (10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000, 20000, 50000, 100000) if k <= m]
    return ks or [m]


def cap_table():
    delta, c = mpf("1e-5"), mpf("0.95")
    print("| m | cap, r = m (all m guessed) | r = 2 floor(m/2 - 2 sqrt(m)) pre-registered | its cap "
          "| cap of the symmetric sweep (G, best k) |")
    print("|---:|---:|---:|---:|---|")
    for m in (100, 200, 500, 1000, 2000, 5000, 8576, 10000, 20000, 30000, 34304, 50000, 100000, 100352):
        r_fixed = 2 * int(m / 2 - 2 * math.sqrt(m))
        ks = sweep_guess_counts(m)
        per = 1 - (1 - c) / len(ks)
        sweep = max((cap(m, k, delta, per), k) for k in ks)
        print("| %d | %s | %d | %s | %s (G = %d, k = %d) |" % (m, mp.nstr(cap(m, m, delta, c), 5), r_fixed,
              mp.nstr(cap(m, r_fixed, delta, c), 5), mp.nstr(sweep[0], 5), len(ks), sweep[1]))
        sys.stdout.flush()
    # The maximum over m of cap(m, m): golden-section search on the integer m (the cap is unimodal in m here).
    lo, hi = 10000, 100000
    while hi - lo > 2:
        a, b = lo + (hi - lo) // 3, hi - (hi - lo) // 3
        if cap(a, a, delta, c) < cap(b, b, delta, c):
            lo = a
        else:
            hi = b
    best = max((cap(m, m, delta, c), m) for m in range(lo, hi + 1))
    print("\nmaximum over m of cap(m, m) at delta 1e-5, 95%%: %s at m = %d; ln(0.05 / (2 delta)) = %s"
          % (mp.nstr(best[0], 6), best[1], mp.nstr(log(mpf("0.05") / (2 * delta)), 6)))


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
    for m, r in ((1000, 100), (1000, 1000), (300, 300)):   # the second way agrees with p_value where both are cheap
        for e in ("1", "4", "6.5"):
            a, b = p_value(m, r, r, mpf(e), mpf("1e-5")), cap_p_value(m, r, mpf(e), mpf("1e-5"))
            assert abs(a - b) <= mpf("1e-40") * a, (m, r, e, a, b)
    for m, r, delta, conf in CAP_CASES:
        print("cap,%d,%d,%d,%s,%s,%s" % (m, r, r, delta, conf, mp.nstr(cap(m, r, mpf(delta), mpf(conf)), 15)))


if __name__ == "__main__":
    cap_table() if "--cap-table" in sys.argv else main()
