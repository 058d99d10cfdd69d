#!/usr/bin/env python3
"""Warm start replayed on pairs of related recorded spaces: the forest on a target space, cold and
warm-started from a related recording (the same kernel measured elsewhere), side by side in one
run. Prints, per pair and budget, the mean fraction of the optimum over the seeds (± standard
deviation, share of seeds at the optimum) cold and warm, and the mean over the pairs.

    bench/warm_start.py GALAPAGOS [--spaces DIR] [--seeds 30] [--budgets 10,25,50,100]
                        [--pair TARGET=PRIOR ...]

Default pairs:
- measured: the recorded CPU spaces of tests/data/spaces at two sizes (gemm, stencil3d7: `small`
  and `tune`, recorded on a 2-core VM), and three Kernel Tuner spaces measured on an H200 at two
  problem sizes each (convolution 4096² and 2048², dedispersion 12500 and 25000 samples, pnpoly
  20 M and 5 M points), each warm-started from the other;
- cross-device: five Kernel Tuner spaces measured on an H200 and on an H100 (gemm, convolution
  4096², dedispersion at 12500 and 25000 samples, pnpoly at 5 M points), each device's from the
  other's;
- cross-model: the three Kernel Tuner spaces of bench/strategies.py measured on an H200 and with
  the synthetic times of tools/synthetic_kt_cache.py, each warm-started from the other (the same
  parameters, weakly related times: rank correlation 0.13-0.43);
- constructed: each H200 cache warm-started from a copy of itself whose times are doubled and
  multiplied by log-normal noise (--perturbed SIGMA, default 0.2; 0 drops them).
--pair adds pairs of your own (results files, Kernel Tuner caches, T4 files); --only-pairs
keeps only those.
"""
import argparse
import json
import lzma
import math
import os
import random
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


# The Kernel Tuner spaces measured on both GPUs (docs/results/kt-spaces/kt-NAME-{h200,h100}.json.xz).
BOTH_DEVICES = ("gemm", "convolution", "dedispersion", "dedispersion25000", "pnpoly5M")


def unpacked(spaces, name):
    """docs/results/kt-spaces/NAME.json.xz unpacked into the spaces folder (once): its path."""
    path = os.path.join(spaces, f"{name}.json")
    if not os.path.exists(path):
        with lzma.open(os.path.join(SRC, "docs", "results", "kt-spaces", f"{name}.json.xz")) as f, open(path, "wb") as out:
            out.write(f.read())
    return path


def kt_spaces(spaces):
    os.makedirs(spaces, exist_ok=True)
    names = ("gemm", "convolution", "pnpoly")
    sizes = (("convolution", "convolution2048"), ("dedispersion", "dedispersion25000"), ("pnpoly", "pnpoly5M"))
    for n in names + tuple(x for pair in sizes for x in pair if x not in names):
        unpacked(spaces, f"kt-{n}-h200")
    if not all(os.path.exists(os.path.join(spaces, f"kt-{n}-synthetic.json")) for n in names):
        subprocess.run([sys.executable, os.path.join(SRC, "tools", "synthetic_kt_cache.py"), spaces], check=True,
                       stdout=subprocess.DEVNULL)
    pairs = []
    for n in names:
        m, s = os.path.join(spaces, f"kt-{n}-h200.json"), os.path.join(spaces, f"kt-{n}-synthetic.json")
        pairs += [(m, s, "cross-model"), (s, m, "cross-model")]
    for one, other in sizes:  # one kernel measured on the H200 at two problem sizes
        a, b = os.path.join(spaces, f"kt-{one}-h200.json"), os.path.join(spaces, f"kt-{other}-h200.json")
        pairs += [(a, b, "measured"), (b, a, "measured")]
    for n in BOTH_DEVICES:  # one kernel at one size on two GPUs
        h200, h100 = unpacked(spaces, f"kt-{n}-h200"), unpacked(spaces, f"kt-{n}-h100")
        pairs += [(h100, h200, "cross-device"), (h200, h100, "cross-device")]
    return pairs


def perturbed(spaces, sigma):
    """The H200 caches with every time multiplied by 2 x a log-normal factor (sigma in log): a
    constructed prior, standing for the same kernel re-measured on a similar, slower device."""
    rng = random.Random(2026)
    pairs = []
    for n in ("gemm", "convolution", "pnpoly"):
        src = os.path.join(spaces, f"kt-{n}-h200.json")
        dst = os.path.join(spaces, f"kt-{n}-h200-perturbed.json")
        with open(src) as f:
            doc = json.load(f)
        for e in doc["cache"].values():
            if isinstance(e["time"], (int, float)):
                e["time"] *= 2 * math.exp(rng.gauss(0, sigma))
        with open(dst, "w") as f:
            json.dump(doc, f)
        pairs.append((src, dst, "constructed"))
    return pairs


def times(path):
    """Point -> time of the correct points of a Kernel Tuner cache or a galapagos results file."""
    if path.endswith(".h5"):
        import h5py
        with h5py.File(path) as f:
            rows = f["candidates"][:]
        out = {}
        for r in rows:
            if r["status"] == b"ok" and r["origin"] != b"winner_recheck":
                out.setdefault(r["params"], float(r["time_median_s"]))
        return out
    with open(path) as f:
        cache = json.load(f).get("cache", {})
    return {k: e["time"] for k, e in cache.items() if isinstance(e.get("time"), (int, float))}


def rank_correlation(a, b):
    """Spearman's rho of two spaces' times at their common points (None without 3 of them)."""
    common = [k for k in a if k in b]
    if len(common) < 3:
        return None

    def ranks(v):
        order = sorted(range(len(v)), key=v.__getitem__)
        r = [0.0] * len(v)
        i = 0
        while i < len(order):
            j = i
            while j + 1 < len(order) and v[order[j + 1]] == v[order[i]]:
                j += 1
            for k in range(i, j + 1):
                r[order[k]] = (i + j) / 2
            i = j + 1
        return r

    x, y = ranks([a[k] for k in common]), ranks([b[k] for k in common])
    mx, my = statistics.mean(x), statistics.mean(y)
    num = sum((p - mx) * (q - my) for p, q in zip(x, y))
    den = math.sqrt(sum((p - mx) ** 2 for p in x) * sum((q - my) ** 2 for q in y))
    return num / den if den else None


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
    ap.add_argument("--perturbed", type=float, default=0.2,
                    help="also pair each H200 cache with a perturbed copy of itself (log-normal sigma; 0: no)")
    a = ap.parse_args()
    budgets = sorted(int(b) for b in a.budgets.split(","))
    pairs = [] if a.only_pairs else kt_spaces(a.spaces)
    if not a.only_pairs and a.perturbed > 0:
        pairs += perturbed(a.spaces, a.perturbed)
    if not a.only_pairs:
        data = os.path.join(SRC, "tests", "data", "spaces")
        for n in ("gemm", "stencil3d7"):
            small, tune = os.path.join(data, f"{n}-cpu.h5"), os.path.join(data, f"{n}-cpu-tune.h5")
            pairs += [(tune, small, "measured"), (small, tune, "measured")]
    for p in a.pair:
        target, _, prior = p.partition("=")
        if not prior:
            ap.error(f"--pair {p}: expected TARGET=PRIOR")
        pairs.append((target, prior, "yours"))
    jobs = [(t, p if warm else None) for t, p, _ in pairs for warm in (False, True)]
    with ThreadPoolExecutor(os.cpu_count() or 1) as pool:
        done = list(pool.map(lambda j: simulate(a.galapagos, j[0], j[1], a.seeds, budgets), jobs))
    res = dict(zip(jobs, done))
    name = lambda sp: os.path.basename(sp).replace(".json", "").replace(".h5", "")
    print(f"forest, cold and warm-started, fraction of the optimum after N evaluations over {a.seeds} seeds: "
          "mean ± standard deviation, share of seeds at the optimum\n")
    print("| target ← prior | start | " + " | ".join(map(str, budgets)) + " |")
    print("|---|---|" + "---|" * len(budgets))
    means = {}  # (set, warm, budget) -> per-pair means
    for t, p, kind in pairs:
        for warm in (False, True):
            per, _ = res[(t, p if warm else None)]
            for b in budgets:
                means.setdefault((kind, warm, b), []).append(statistics.mean(per[b]))
            rho = rank_correlation(times(t), times(p)) if not warm else None
            label = f"{name(t)} ← {name(p)}" + (f" (ρ {rho:.2f})" if rho is not None else "") if not warm else ""
            print(f"| {label} | {'warm' if warm else 'cold'} | " + " | ".join(cell(per[b]) for b in budgets) + " |")
    print("\nMean over the pairs of each set (ρ: Spearman's rank correlation of the pair's times):\n")
    print("| pairs | start | " + " | ".join(map(str, budgets)) + " |")
    print("|---|---|" + "---|" * len(budgets))
    for kind in dict.fromkeys(k for _, _, k in pairs):
        for warm in (False, True):
            print(f"| {kind if not warm else ''} | {'warm' if warm else 'cold'} | "
                  + " | ".join(f"{statistics.mean(means[(kind, warm, b)]):.3f}" for b in budgets) + " |")


if __name__ == "__main__":
    main()
