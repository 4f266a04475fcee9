#!/usr/bin/env python3
"""PyTorch reference timings for the CNN of PerformanceBenchmark (issue 20), on this machine.

The same network as `PerformanceBenchmark.cnn` (conv 5x5x16 - ReLU - max-pool 2 - conv 5x5x32 - ReLU - max-pool 2 -
dense 10, softmax cross-entropy), or with --model tanh the tanh CNN of `dp4j train --model cnn`, on the same batch shape (256 MNIST-sized images, float32), one thread, timed as
the Java benchmark times its cases: warm-up, then interleaved blocks, min / p10 / median of the wall time per step.

Cases:
  * pytorch-sgd      - PyTorch's own non-private step (zero_grad, forward, backward, SGD update);
  * functorch-dpsgd  - a DP-SGD step written with functorch (vmap of grad over the examples: per-example gradients,
                       their norms, clipping to C = 1, the clipped sum plus Gaussian noise z = 1.1 from torch's
                       default (not cryptographically secure) generator, divided by the batch size, SGD update).
                       This is how PyTorch users compute per-example gradients without Opacus; it is not Opacus.

Needs PyTorch with functorch (Debian: `apt-get install python3-torch`, 1.13). Not part of the tests or of CI.

    OMP_NUM_THREADS=1 /usr/bin/python3 scripts/bench-pytorch-cnn.py [--model relu|tanh] [--rounds 5] [--json out.json]
"""
import argparse
import json
import statistics
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

BATCH = 256


def network(model):
    if model == "relu":
        return nn.Sequential(
            nn.Conv2d(1, 16, 5), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(16, 32, 5), nn.ReLU(), nn.MaxPool2d(2),
            nn.Flatten(), nn.Linear(512, 10))
    # ModelZoo.mnistCnn (dp4j train --model cnn): DL4J's Same mode pads 3/3 for 8x8 stride 2 on 28x28 and 1/2
    # (top-left / bottom-right) for 4x4 stride 2 on 13x13.
    return nn.Sequential(
        nn.ZeroPad2d(3), nn.Conv2d(1, 16, 8, stride=2), nn.Tanh(), nn.MaxPool2d(2, stride=1),
        nn.ZeroPad2d((1, 2, 1, 2)), nn.Conv2d(16, 32, 4, stride=2), nn.Tanh(), nn.MaxPool2d(2, stride=1),
        nn.Flatten(), nn.Linear(32 * 6 * 6, 32), nn.Tanh(), nn.Linear(32, 10))


def sgd_step(model, opt, x, y):
    opt.zero_grad(set_to_none=True)
    F.cross_entropy(model(x), y).backward()
    opt.step()


def make_dp_step(model, clip=1.0, noise=1.1, lr=0.01):
    from functorch import grad, make_functional, vmap

    fmodel, params = make_functional(model)
    params = [p.detach() for p in params]

    def loss_one(ps, xi, yi):
        return F.cross_entropy(fmodel(ps, xi.unsqueeze(0)), yi.unsqueeze(0))

    per_example = vmap(grad(loss_one), in_dims=(None, 0, 0))

    def step(x, y):
        grads = per_example(params, x, y)
        sq = sum(g.reshape(g.shape[0], -1).pow(2).sum(1) for g in grads)
        scale = (clip / (sq.sqrt() + 1e-12)).clamp(max=1.0)
        with torch.no_grad():
            for p, g in zip(params, grads):
                s = torch.einsum("i,i...->...", scale, g)
                s.add_(torch.randn_like(s), alpha=noise * clip)
                p.sub_(s, alpha=lr / x.shape[0])

    return step


def timed(fn, steps):
    out = []
    for _ in range(steps):
        t = time.perf_counter()
        fn()
        out.append((time.perf_counter() - t) * 1e3)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--steps", type=int, default=10, help="steps per block")
    ap.add_argument("--model", choices=["relu", "tanh"], default="relu",
                    help="relu: PerformanceBenchmark.cnn; tanh: ModelZoo.mnistCnn (dp4j train --model cnn)")
    ap.add_argument("--json")
    a = ap.parse_args()
    torch.set_num_threads(1)
    torch.manual_seed(4)
    x = torch.rand(BATCH, 1, 28, 28)
    y = torch.arange(BATCH) % 10
    plain = network(a.model)
    opt = torch.optim.SGD(plain.parameters(), lr=0.01)
    dp = make_dp_step(network(a.model))
    cases = {"pytorch-sgd": lambda: sgd_step(plain, opt, x, y), "functorch-dpsgd": lambda: dp(x, y)}
    for fn in cases.values():        # warm-up
        timed(fn, 3)
    times = {k: [] for k in cases}
    for _ in range(a.rounds):        # interleaved blocks
        for k, fn in cases.items():
            times[k] += timed(fn, a.steps)
    rows = {}
    for k, v in times.items():
        v = sorted(v)
        rows[k] = {"min": v[0], "p10": v[len(v) // 10], "median": statistics.median(v), "max": v[-1], "n": len(v)}
        print(f"{k:16s} min {v[0]:7.1f}  p10 {rows[k]['p10']:7.1f}  median {rows[k]['median']:7.1f}  "
              f"max {v[-1]:7.1f} ms  ({len(v)} steps)")
    print(f"{a.model} CNN, torch {torch.__version__}, threads {torch.get_num_threads()}")
    if a.json:
        with open(a.json + ".tmp", "w") as f:
            json.dump({"torch": torch.__version__, "model": a.model, "batch": BATCH, "rows": rows}, f, indent=1)
        import os
        os.replace(a.json + ".tmp", a.json)


if __name__ == "__main__":
    main()
