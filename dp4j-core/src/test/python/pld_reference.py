"""Independent reference values for the PLD accountant tests (numpy/scipy; not used by the build).

Sandwich bounds on epsilon(delta) of T-fold Poisson-subsampled Gaussian (add/remove, max over both
directions) by plain rounding of the privacy loss on a very fine grid: rounding every loss UP gives an
upper bound on delta(eps) (pessimistic), rounding DOWN a lower bound (optimistic). Mass per bin comes from
differences of the mixture CDF at the inverse privacy loss. Composition by one real FFT raised to the
power T on a window wide enough that aliased mass is negligible. This is a different discretisation
and composition scheme from the Java code (which uses mean-preserving splitting and a Hoeffding allowance).

usage: python3 pld_reference.py q sigma T delta [grid]
"""
import sys
import numpy as np
from scipy.special import ndtr, log_ndtr

def loss_masses(q, s, grid, lo, hi, direction, round_up):
    # grid points y_k = k*grid for k in [lo, hi]; returns pmf over k and mass above hi*grid (to +inf or to hi)
    ks = np.arange(lo - 1, hi + 1)
    y = ks * grid
    c = np.log1p(-q)
    # inverse loss x(y) for remove: L(x) = log(1-q + q exp((2x-1)/(2s^2)))
    with np.errstate(divide='ignore', invalid='ignore'):
        if direction == 'remove':
            arg = np.where(y > c, (np.expm1(y) + q) / q, np.nan)
            x = np.where(y > c, s * s * np.log(arg) + 0.5, -np.inf)
            # P(X <= x), X ~ (1-q)N(0,s^2) + q N(1,s^2); loss increasing in x
            cdf = (1 - q) * ndtr(x / s) + q * ndtr((x - 1) / s)
        else:
            # add: L(x) = -log(1-q + q exp((2x-1)/(2s^2))), X ~ N(0,s^2); loss decreasing in x
            arg = np.where(-y > c, (np.expm1(-y) + q) / q, np.nan)
            x = np.where(-y > c, s * s * np.log(arg) + 0.5, np.inf)  # L(x) <= y  <=>  X >= x
            cdf = ndtr(-x / s)  # P(L <= y) = P(X >= x)
    cdf = np.nan_to_num(cdf, nan=0.0)
    cdf = np.maximum.accumulate(cdf)
    mass = np.diff(cdf)  # mass of L in (y_{k-1}, y_k] for k in [lo, hi]
    below = cdf[0]
    above = 1.0 - cdf[-1]
    pmf = np.maximum(mass, 0.0)
    if round_up:
        pmf[0] += below          # (-inf, y_{lo-1}] -> y_lo is still upward
        return pmf, above        # above -> +inf
    # round down: (y_{k-1}, y_k] -> y_{k-1}
    down = np.zeros_like(pmf)
    down[:-1] = pmf[1:]
    down[0] += below + pmf[0]    # (lower-bound-ish; the lowest mass goes to y_lo)
    down[-1] += above            # above -> y_hi
    return down, 0.0

def compose_delta_curve(pmf, inf_mass, lo, T, grid, wlo, whi):
    n = whi - wlo + 1
    N = 1 << int(np.ceil(np.log2(n)))
    buf = np.zeros(N)
    idx = (np.arange(len(pmf)) + lo) % N
    np.add.at(buf, idx, pmf)
    f = np.fft.rfft(buf)
    f = f ** T
    out = np.fft.irfft(f, N)
    ks = np.arange(wlo, wlo + N)
    vals = out[ks % N]
    vals = np.maximum(vals, 0.0)
    finite_total = (1 - inf_mass) ** T
    inf_total = 1 - finite_total
    return ks * grid, vals, inf_total

def delta_of(ys, p, inf_total, eps):
    m = ys > eps
    return inf_total + np.sum(p[m] * -np.expm1(eps - ys[m]))

def eps_of(ys, p, inf_total, delta):
    lo, hi = 0.0, 50.0
    for _ in range(100):
        mid = 0.5 * (lo + hi)
        if delta_of(ys, p, inf_total, mid) > delta:
            lo = mid
        else:
            hi = mid
    return hi

def main():
    q, s, T, delta = float(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])
    grid = float(sys.argv[5]) if len(sys.argv) > 5 else 5e-7
    umax = 6.0 + 1.0 / (s * s)
    lo, hi = int(np.floor(np.log1p(-q) / grid)), int(np.ceil(umax / grid))
    lo_add = int(np.floor(-umax / grid)); hi_add = int(np.ceil(-np.log1p(-q) / grid)) + 1
    res = {}
    for direction, (a, b) in (('remove', (lo, hi)), ('add', (lo_add, hi_add))):
        for up in (True, False):
            pmf, inf_mass = loss_masses(q, s, grid, a, b, direction, up)
            mu = q * np.sqrt(T * np.expm1(1 / (s * s)))
            wlo = int(np.floor((-8 * mu - 1) / grid)); whi = int(np.ceil((mu * mu / 2 + 10 * mu + 2) / grid))
            ys, p, inf_total = compose_delta_curve(pmf, inf_mass, a, T, grid, wlo, whi)
            res[(direction, up)] = (ys, p, inf_total)
    for up in (True, False):
        e = max(eps_of(*res[(d, up)], delta) for d in ('remove', 'add'))
        print(('upper' if up else 'lower'), 'epsilon', repr(e),
              {d: eps_of(*res[(d, up)], delta) for d in ('remove', 'add')})

if __name__ == '__main__':
    main()
