#!/usr/bin/env python3
"""Warm start replayed on pairs of related recorded spaces: the forest on a target space, cold and
warm-started from a related recording (the same kernel measured elsewhere), side by side in one
run. Prints, per pair and budget, the mean fraction of the optimum over the seeds (± standard
deviation, share of seeds at the optimum) cold and warm, and the mean over the pairs.

    bench/warm_start.py GALAPAGOS [--spaces DIR] [--seeds 30] [--budgets 10,25,50,100]
                        [--pair TARGET=PRIOR ...]

Default pairs: the three Kernel Tuner spaces of bench/strategies.py, measured on an H200 and with
the synthetic times of tools/synthetic_kt_cache.py, each warm-started from the other (a related
space with another response surface: the same parameters, times from another "device"). --pair
adds pairs of your own (results files, Kernel Tuner caches, T4 files); --only-pairs drops the
defaults.
"""
import argparse
import json
import lzma
import os
import statistics
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.dirname(HERE)


def simulate(galapagos, target, prior, seeds, budgets):
    cmd = [galapagos, "simulate", target, "--strategy", "forest", "--budget", str(max(budgets)), "--seed", "1",
           "--seeds", str(seeds), "--at", ",".join(map(str, budgets)), "--json"]
    if prior:
        cmd += ["--warm-start", prior]
    out = json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)
    opt = out["optimum_s"]
    per = {b: [] for b in budgets}
    for r in out["runs"]:
        for b in budgets:
            per[b].append(r["at"][str(b)])
    return per, opt


def kt_spaces(spaces):
    os.makedirs(spaces, exist_ok=True)
    names = ("gemm", "convolution", "pnpoly")
    for n in names:
        path = os.path.join(spaces, f"kt-{n}-h200.json")
        if not os.path.exists(path):
            with lzma.open(os.path.join(SRC, "docs", "results", "kt-spaces", f"kt-{n}-h200.json.xz")) as f, \
                    open(path, "wb") as out:
                out.write(f.read())
    if not all(os.path.exists(os.path.join(spaces, f"kt-{n}-synthetic.json")) for n in names):
        subprocess.run([sys.executable, os.path.join(SRC, "tools", "synthetic_kt_cache.py"), spaces], check=True,
                       stdout=subprocess.DEVNULL)
    pairs = []
    for n in names:
        m, s = os.path.join(spaces, f"kt-{n}-h200.json"), os.path.join(spaces, f"kt-{n}-synthetic.json")
        pairs += [(m, s), (s, m)]
    return pairs


def cell(v):
    at_opt = sum(1 for x in v if x >= 0.99999) / len(v)
    return f"{statistics.mean(v):.3f} ±{statistics.pstdev(v):.3f}, {at_opt:.0%}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("galapagos")
    ap.add_argument("--spaces", default=os.path.join(SRC, "build", "kt-spaces"))
    ap.add_argument("--seeds", type=int, default=30)
    ap.add_argument("--budgets", default="10,25,50,100")
    ap.add_argument("--pair", action="append", default=[], help="TARGET=PRIOR")
    ap.add_argument("--only-pairs", action="store_true", help="only the --pair pairs")
    a = ap.parse_args()
    budgets = sorted(int(b) for b in a.budgets.split(","))
    pairs = [] if a.only_pairs else kt_spaces(a.spaces)
    for p in a.pair:
        target, _, prior = p.partition("=")
        if not prior:
            ap.error(f"--pair {p}: expected TARGET=PRIOR")
        pairs.append((target, prior))
    jobs = [(t, p if warm else None) for t, p in pairs for warm in (False, True)]
    with ThreadPoolExecutor(os.cpu_count() or 1) as pool:
        done = list(pool.map(lambda j: simulate(a.galapagos, j[0], j[1], a.seeds, budgets), jobs))
    res = dict(zip(jobs, done))
    name = lambda sp: os.path.basename(sp).replace(".json", "").replace(".h5", "")
    print(f"forest, cold and warm-started, fraction of the optimum after N evaluations over {a.seeds} seeds: "
          "mean ± standard deviation, share of seeds at the optimum\n")
    print("| target ← prior | start | " + " | ".join(map(str, budgets)) + " |")
    print("|---|---|" + "---|" * len(budgets))
    means = {(w, b): [] for w in (False, True) for b in budgets}
    for t, p in pairs:
        for warm in (False, True):
            per, _ = res[(t, p if warm else None)]
            for b in budgets:
                means[(warm, b)].append(statistics.mean(per[b]))
            label = f"{name(t)} ← {name(p)}" if not warm else ""
            print(f"| {label} | {'warm' if warm else 'cold'} | " + " | ".join(cell(per[b]) for b in budgets) + " |")
    print("\nMean over the pairs:\n")
    print("| start | " + " | ".join(map(str, budgets)) + " |")
    print("|---|" + "---|" * len(budgets))
    for warm in (False, True):
        print(f"| {'warm' if warm else 'cold'} | " + " | ".join(f"{statistics.mean(means[(warm, b)]):.3f}" for b in budgets)
              + " |")


if __name__ == "__main__":
    main()
