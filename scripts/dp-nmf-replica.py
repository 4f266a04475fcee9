#!/usr/bin/env python3
"""A numpy re-implementation of DpNmf's step (dp4j-core org.dp4j.mbcd.DpNmf), for fast what-if sweeps.

It follows the same update per batch B of one shuffle-once partition of the rows (users):
  X_B <- max(0, X_B - s_X * clip_C((X_B Y - M_B) Y^T) + N(0, 2 eta_X o))         (per-row clip)
  Y   <- max(0, Y - s_Y * mean_i clip_C(X_i^T (X_i Y - M_i)) + N(0, 2 eta o))    (per-user clip, new X_B)
with s = eta (fixed) or eta * min(1, kappa / ||H||_2) (curvature), H = Y Y^T resp. X_B^T X_B / b. The data is the
CLI's problem (M = X0 Y0, X0 1000x10 and Y0 10x200 uniform on [0, 1)) but from numpy's generator, so numbers agree
with `dp4j nmf` statistically, not digit for digit. No accounting: use `dp4j nmf` for epsilon.

  python3 scripts/dp-nmf-replica.py --rule fixed --eta 0.1 --eta-x 0.003 --clip 1.5 --o 5e-4 --epochs 300
"""
import argparse

import numpy as np

p = argparse.ArgumentParser()
p.add_argument('--batch-size', type=int, default=100)
p.add_argument('--epochs', type=int, default=100)
p.add_argument('--eta', type=float, default=1.0)
p.add_argument('--eta-x', type=float, default=None, help='eta_X of the user rows (default: --eta)')
p.add_argument('--o', type=float, default=1e-3, help='noise temperature')
p.add_argument('--clip', type=float, default=1.0)
p.add_argument('--rule', choices=['curvature', 'fixed'], default='curvature')
p.add_argument('--kappa', type=float, default=1.0)
p.add_argument('--seed', type=int, default=1, help='partition and noise seed')
p.add_argument('--every', type=int, default=0, help='print the error every this many epochs')
a = p.parse_args()

n, c, d = 1000, 200, 10
data = np.random.default_rng(2013)
M = data.random((n, d)) @ data.random((d, c))
init = np.random.default_rng(7)  # independent of the data's draws
X = 0.3 * init.random((n, d))
Y = 0.3 * init.random((d, c))
order = np.random.default_rng(a.seed).permutation(n)
noise = np.random.default_rng(a.seed + 100)
eta_x = a.eta if a.eta_x is None else a.eta_x


def step(hessian, eta):
    if a.rule == 'fixed':
        return eta
    h = np.linalg.eigvalsh(hessian)[-1]
    return eta if h <= a.kappa else eta * a.kappa / h


def noisy(theta, eta):
    return theta + noise.normal(0, np.sqrt(2 * eta * a.o), theta.shape) if a.o > 0 else theta


for k in range(a.epochs):
    for j in range(n // a.batch_size):
        B = order[j * a.batch_size:(j + 1) * a.batch_size]
        gx = (X[B] @ Y - M[B]) @ Y.T
        gx *= np.minimum(1, a.clip / np.maximum(np.linalg.norm(gx, axis=1, keepdims=True), 1e-300))
        xb = np.maximum(0, noisy(X[B] - step(Y @ Y.T, eta_x) * gx, eta_x))
        X[B] = xb
        r = xb @ Y - M[B]
        scale = np.minimum(1, a.clip / np.maximum(np.linalg.norm(xb, axis=1) * np.linalg.norm(r, axis=1), 1e-300))
        gy = (xb * scale[:, None]).T @ r / a.batch_size
        Y = np.maximum(0, noisy(Y - step(xb.T @ xb / a.batch_size, a.eta) * gy, a.eta))
    if a.every and (k + 1) % a.every == 0:
        print(k + 1, np.linalg.norm(X @ Y - M) / np.linalg.norm(M), flush=True)
print('relative error', np.linalg.norm(X @ Y - M) / np.linalg.norm(M))
