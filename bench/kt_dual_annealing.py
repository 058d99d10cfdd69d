#!/usr/bin/env python3
"""Kernel Tuner's `dual_annealing` strategy, re-implemented on SciPy, replayed against recorded
spaces: a peer for bench/strategies.py where Kernel Tuner itself cannot be installed.

    bench/kt_dual_annealing.py SPACE [--seeds 30] [--seed 1] [--budget 400] [--at 25,50,100,200,400]
                               [--maxfun N]

SPACE: a Kernel Tuner cache (plain JSON, as bench/kt_spaces and tools/synthetic_kt_cache.py write
them) or a galapagos results file (converted with tools/export_tuner_formats.py). Prints one JSON
object shaped like `galapagos simulate --json` (runs[].at: fraction of the optimum after N
evaluations), so bench/strategies.py tabulates it beside galapagos' own strategies.

What is re-implemented (Kernel Tuner 1.x, kernel_tuner/strategies/dual_annealing.py and
common.py, as published):
- every parameter is scaled onto [0, eps * len(values)], eps = the smallest 1 / len(values), each
  value owning a bin of width eps; a point x is snapped per parameter to the nearest bin centre;
- x0 is a random valid configuration (the centre of its bins);
- scipy.optimize.dual_annealing(cost, bounds, minimizer_kwargs={"method": "COBYLA"}, x0=x0,
  maxfun=MAXFUN): COBYLA as the local minimiser with SciPy's default options (Kernel Tuner builds
  method options but does not pass them on);
- the cost of a configuration outside the restrictions (here: not in the recording) is the
  largest float and costs no evaluation; a failed configuration (InvalidConfig,
  CompilationFailedConfig, RuntimeFailedConfig) is an evaluation whose cost is the largest float;
- only distinct configurations count as evaluations (a repeated one is answered from the cache);
  the search stops when `budget` distinct ones were evaluated. Kernel Tuner passes its
  `max_fevals` to SciPy as maxfun, which counts every call (repeats and invalid points included):
  with `max_fevals` = 400 a search ends after 170-190 distinct evaluations on the spaces of
  bench/strategies.py, and the best so far stands for the larger budgets. Comparisons of
  strategies (Kernel Tuner's methodology among them) give a time budget instead, so that
  `max_fevals` does not bind; that is the default here (--maxfun 0: no limit but the budget of
  distinct evaluations). --maxfun N sets SciPy's maxfun as Kernel Tuner would with max_fevals = N.
The seed is SciPy's (Kernel Tuner draws from NumPy's global state); fraction of the optimum =
best recorded time / best time found, as in galapagos simulate.
"""
import argparse
import json
import math
import os
import subprocess
import sys
import tempfile

try:
    import numpy as np
    import scipy.optimize
except ImportError as e:
    raise SystemExit(f"kt_dual_annealing.py: needs NumPy and SciPy (Debian: python3-scipy; run with /usr/bin/python3): {e}")

SRC = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FAILED = ("InvalidConfig", "CompilationFailedConfig", "RuntimeFailedConfig")


class Space:
    """A recorded space: parameter values in cache order and the time of every recorded point."""

    def __init__(self, path):
        self.path = path
        if open(path, "rb").read(8) == b"\x89HDF\r\n\x1a\n":
            with tempfile.TemporaryDirectory() as tmp:
                cache = os.path.join(tmp, "space.json")
                subprocess.run([sys.executable, os.path.join(SRC, "tools", "export_tuner_formats.py"), path,
                                "--kernel-tuner", cache], check=True, stdout=subprocess.DEVNULL)
                doc = json.load(open(cache))
            self.format = "galapagos results"
        else:
            doc = json.load(open(path))
            self.format = f"Kernel Tuner cache {doc.get('schema_version', 'unversioned')}"
        self.keys = doc["tune_params_keys"]
        self.values = [doc["tune_params"][k] for k in self.keys]
        index = [{str(v): i for i, v in enumerate(vals)} for vals in self.values]
        self.times = {}  # tuple of value indexes -> seconds (inf: failed)
        for key, entry in doc["cache"].items():
            parts = key.split(",")
            if len(parts) != len(self.keys):
                raise SystemExit(f"{path}: cache key {key!r} has {len(parts)} values, expected {len(self.keys)}")
            point = tuple(index[i][p] for i, p in enumerate(parts))
            t = entry["time"]
            failed = isinstance(t, str) or t >= 1e19
            if isinstance(t, str) and t not in FAILED:
                raise SystemExit(f"{path}: entry {key!r}: unknown time {t!r}")
            self.times[point] = math.inf if failed else float(t) / 1000
        finite = [t for t in self.times.values() if math.isfinite(t)]
        if not finite:
            raise SystemExit(f"{path}: no configuration was measured")
        self.optimum = min(finite)
        self.points = sorted(self.times)


class Stop(Exception):
    pass


def replay(space, seed, budget, maxfun):
    """One search: the times of the distinct configurations evaluated, in order."""
    rng = np.random.default_rng(seed)
    eps = min(1.0 / len(v) for v in space.values)
    bounds = [(0.0, eps * len(v)) for v in space.values]
    centres = [np.linspace(0.5 * eps, eps * len(v) - 0.5 * eps, len(v)) for v in space.values]
    start = space.points[int(rng.integers(len(space.points)))]
    x0 = np.array([0.5 * eps + i * eps for i in start])
    seen, trace = {}, []

    def cost(x):
        point = tuple(int(np.abs(c - xi).argmin()) for c, xi in zip(centres, x))
        if point not in space.times:
            return sys.float_info.max  # restricted: not run, not counted
        if point not in seen:
            if len(seen) >= budget:
                raise Stop
            if len(seen) == len(space.times) - 1:  # this is the last point not yet evaluated
                trace.append(space.times[point])
                raise Stop
            seen[point] = space.times[point]
            trace.append(seen[point])
        t = seen[point]
        return t if math.isfinite(t) else sys.float_info.max

    try:
        scipy.optimize.dual_annealing(cost, bounds, minimizer_kwargs={"method": "COBYLA"}, x0=x0,
                                      maxfun=maxfun if maxfun > 0 else 10**9, maxiter=10**6, seed=rng)
    except Stop:
        pass
    return trace


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("space")
    ap.add_argument("--seeds", type=int, default=30)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--budget", type=int, default=400)
    ap.add_argument("--at", default="25,50,100,200,400")
    ap.add_argument("--maxfun", type=int, default=0, help="SciPy's maxfun, as Kernel Tuner's max_fevals (0: unlimited)")
    a = ap.parse_args()
    at = [int(b) for b in a.at.split(",")]
    space = Space(a.space)
    runs = []
    for seed in range(a.seed, a.seed + a.seeds):
        trace = replay(space, seed, a.budget, a.maxfun)
        best = lambda n: min(trace[:n], default=math.inf)
        frac = lambda n: space.optimum / best(n) if math.isfinite(best(n)) else 0.0
        runs.append({"seed": seed, "evaluations": len(trace), "fraction": frac(len(trace)),
                     "at": {str(n): frac(n) for n in at}})
    print(json.dumps({"format": space.format, "points": len(space.times),
                      "failed": sum(not math.isfinite(t) for t in space.times.values()),
                      "optimum_s": space.optimum, "runs": runs}))


if __name__ == "__main__":
    main()
