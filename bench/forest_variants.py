#!/usr/bin/env python3
"""Variants of the forest strategy side by side: the mean fraction of the optimum after 10 ... 400
evaluations on each recorded space and over each set of them, for one build of galapagos.

    bench/forest_variants.py GALAPAGOS NAME SEED0 SEEDS BUDGET [VAR=VALUE ...] [--spaces DIR] [--config FILE]

The spaces: tests/data/spaces/{stencil3d7,gemm}-cpu.h5 and -cpu-tune.h5, and the measured (five)
and synthetic (three) Kernel Tuner caches that bench/strategies.py writes into DIR (run it once first),
and, where bench/warm_start.py has written them there, five held-out spaces (dedispersion and pnpoly
at their other sizes, three perturbed H200 caches) reported as a group of their own.
VAR=VALUE pairs go into the environment of `galapagos simulate`: a build with
docs/results/forest-small-budget/variants.patch applied reads the variants of docs/strategies.md
("Tried for small budgets") from it; an unpatched build ignores them. --config passes a run config
(its [search] and [strategy] tables: batch sizes, shares) to simulate. Prints one block per call.
"""
import argparse
import json
import os
import subprocess
from concurrent.futures import ThreadPoolExecutor

from strategies import LATER_CPU, LATER_H100, MEASURED_H200, limited_path  # the H200 caches, and where --launch-limit writes their copies
from warm_start import BOTH_DEVICES  # the caches measured on two GPUs

SRC = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("galapagos")
    ap.add_argument("name")
    ap.add_argument("seed0", type=int)
    ap.add_argument("seeds", type=int)
    ap.add_argument("budget", type=int)
    ap.add_argument("env", nargs="*", help="VAR=VALUE for the simulate processes")
    ap.add_argument("--spaces", default=os.path.join(SRC, "build", "kt-spaces"))
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--config", help="a run config whose [search] and [strategy] tables simulate uses")
    a = ap.parse_args()
    env = dict(os.environ)
    env.update(kv.split("=", 1) for kv in a.env)
    t = os.path.join(SRC, "tests", "data", "spaces")
    kt = lambda kind: [os.path.join(a.spaces, f"kt-{n}-{kind}.json") for n in ("gemm", "convolution", "pnpoly")]
    sets = {"cpu": [os.path.join(t, f"{n}-cpu.h5") for n in ("stencil3d7", "gemm")],
            "tune": [os.path.join(t, f"{n}-cpu-tune.h5") for n in ("stencil3d7", "gemm")],
            "h200": kt("h200") + [os.path.join(a.spaces, f"kt-{n}-h200.json") for n in ("dedispersion", "convolution2048")],
            "synthetic": kt("synthetic")}
    at = [b for b in (10, 25, 50, 100, 200, 400) if b <= a.budget]
    spaces = [s for v in sets.values() for s in v]
    missing = [s for s in spaces if not os.path.exists(s)]
    if missing:
        raise SystemExit(f"{missing[0]}: no such recorded space (bench/strategies.py writes the caches into --spaces)")
    # Held out from every choice so far: the other problem sizes and the perturbed copies that
    # bench/warm_start.py writes into the same folder (reported where it has run).
    held = [os.path.join(a.spaces, f"kt-{n}.json") for n in ("dedispersion25000-h200", "pnpoly5M-h200", "gemm-h200-perturbed",
                                                             "convolution-h200-perturbed", "pnpoly-h200-perturbed")]
    if all(os.path.exists(s) for s in held):
        spaces += held
    # Where bench/strategies.py has written them (--h100, --launch-limit 256): the H100 caches and
    # the H200 caches failed above 256 threads per block, each a group of their own; and the kernels
    # recorded after the strategies were chosen (hotspot and expdist on an H100, spmv on the CPU).
    more = {"H100 (bench/strategies.py --h100)": [os.path.join(a.spaces, f"kt-{n}-h100.json") for n in BOTH_DEVICES],
            "never seen: hotspot, expdist (H100)": [os.path.join(a.spaces, f"kt-{n}-h100.json") for n in LATER_H100],
            "never seen: spmv (CPU)": [os.path.join(t, f"{n}-cpu.h5") for n in LATER_CPU],
            "failed above 256 threads (--launch-limit 256)": [limited_path(os.path.join(a.spaces, f"kt-{n}-h200.json"), 256)
                                                              for n in MEASURED_H200]}
    more = {k: v for k, v in more.items() if all(os.path.exists(s) for s in v)}
    for group in more.values():
        spaces += group

    def one(space):
        cmd = [a.galapagos, "simulate", space, "--strategy", "forest", "--seed", str(a.seed0), "--seeds", str(a.seeds),
               "--budget", str(a.budget), "--at", ",".join(map(str, at)), "--json"] + (["--config", a.config] if a.config else [])
        d = json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True, env=env).stdout)
        return [d["at"][str(b)]["mean"] for b in at]

    with ThreadPoolExecutor(a.jobs) as pool:
        res = dict(zip(spaces, pool.map(one, spaces)))
    row = lambda v: " ".join(f"{x:.3f}" for x in v)
    mean = lambda group: [sum(c) / len(c) for c in zip(*(res[s] for s in group))]
    print(f"== {a.name} {' '.join(a.env)}{' --config ' + a.config if a.config else ''}: seeds {a.seed0}..{a.seed0 + a.seeds - 1}, mean fraction of the optimum at {at}")
    for s in spaces:
        print(f"  {os.path.basename(s):30s} {row(res[s])}")
    for name, group in {"measured (cpu + h200)": sets["cpu"] + sets["h200"], "measured, all nine (bench/strategies.py's set)": sets["cpu"] + sets["tune"] + sets["h200"],
                        "cpu + synthetic": sets["cpu"] + sets["synthetic"],
                        "tune": sets["tune"], "all twelve": [s for v in sets.values() for s in v]}.items():
        print(f"  {name:48s} {row(mean(group))}")
    if held[0] in res:
        print(f"  {'held out (bench/warm_start.py sizes, perturbed)':48s} {row(mean(held))}")
    for name, group in more.items():
        print(f"  {name:48s} {row(mean(group))}")


if __name__ == "__main__":
    main()
