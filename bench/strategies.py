#!/usr/bin/env python3
"""Search strategies replayed against recorded spaces: fraction of the optimum (best known time /
best found time) after 25 ... 800 evaluations, median and quartiles over 50 seeds, and the score
(f - f_random) / (f_opt - f_random) against random search (f_opt = 1; f_random = random search's
mean fraction at the same budget on the same space).

    bench/strategies.py GALAPAGOS [--spaces DIR] [--seeds 50] [--strategies hybrid,ga,annealing,random,exhaustive]

Spaces: the exhaustive galapagos recordings tests/data/spaces/{stencil3d7,gemm}-cpu.h5 and the
synthetic Kernel Tuner caches that tools/synthetic_kt_cache.py writes (into --spaces, made when
missing). Prints Markdown tables (docs/BENCHMARKS.md, "Search strategies").
"""
import argparse
import json
import os
import subprocess
import sys

BUDGETS = [25, 50, 100, 200, 400, 800]
HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.dirname(HERE)


def run(galapagos, space, kind, seeds, islands):
    cmd = [galapagos, "simulate", space, "--strategy", kind, "--islands", str(islands), "--budget", str(max(BUDGETS) // islands),
           "--seeds", str(seeds), "--at", ",".join(map(str, BUDGETS)), "--json"]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("galapagos")
    ap.add_argument("--spaces", default=os.path.join(SRC, "build", "kt-spaces"))
    ap.add_argument("--seeds", type=int, default=50)
    ap.add_argument("--strategies", default="hybrid,ga,annealing,random,exhaustive")
    ap.add_argument("--islands", type=int, default=1, help="islands of one kind (budgets are totals over them)")
    a = ap.parse_args()
    kt = [os.path.join(a.spaces, f"kt-{n}-synthetic.json") for n in ("gemm", "convolution", "pnpoly")]
    if not all(os.path.exists(p) for p in kt):
        subprocess.run([sys.executable, os.path.join(SRC, "tools", "synthetic_kt_cache.py"), a.spaces], check=True,
                       stdout=subprocess.DEVNULL)
    spaces = [os.path.join(SRC, "tests", "data", "spaces", f"{n}-cpu.h5") for n in ("stencil3d7", "gemm")] + kt
    kinds = a.strategies.split(",")
    if "random" not in kinds:
        kinds.append("random")
    res = {}  # (space, kind) -> summary
    for sp in spaces:
        for k in kinds:
            res[(sp, k)] = run(a.galapagos, sp, k, 1 if k == "exhaustive" else a.seeds, a.islands)
    name = lambda sp: os.path.basename(sp).replace("-synthetic.json", " (synthetic)").replace(".h5", "").replace("kt-", "KT ")
    print(f"Fraction of the optimum, median [q1, q3] over {a.seeds} seeds ({a.islands} island(s)); budgets in evaluations\n")
    for sp in spaces:
        d = res[(sp, kinds[0])]
        print(f"**{name(sp)}**: {d['points']} points ({d['failed']} failed), {d['format']}\n")
        print("| strategy | " + " | ".join(str(b) for b in BUDGETS) + " |")
        print("|---|" + "---|" * len(BUDGETS))
        for k in kinds:
            at = res[(sp, k)]["at"]
            cells = [f"{at[str(b)]['median']:.3f} [{at[str(b)]['q1']:.3f}, {at[str(b)]['q3']:.3f}]" for b in BUDGETS]
            print(f"| {k} | " + " | ".join(cells) + " |")
        print()
    print("Mean over the spaces of the mean fraction of the optimum, and score against random search\n")
    print("| strategy | " + " | ".join(f"{b}" for b in BUDGETS) + " | score " + " | score ".join(str(b) for b in BUDGETS) + " |")
    print("|---|" + "---|" * (2 * len(BUDGETS)))
    for k in kinds:
        means, scores = [], []
        for b in BUDGETS:
            f = [res[(sp, k)]["at"][str(b)]["mean"] for sp in spaces]
            fr = [res[(sp, "random")]["at"][str(b)]["mean"] for sp in spaces]
            means.append(sum(f) / len(f))
            s = [(x - r) / (1 - r) if r < 1 else 0.0 for x, r in zip(f, fr)]
            scores.append(sum(s) / len(s))
        print(f"| {k} | " + " | ".join(f"{m:.3f}" for m in means) + " | " + " | ".join(f"{s:+.3f}" for s in scores) + " |")


if __name__ == "__main__":
    main()
