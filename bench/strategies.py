#!/usr/bin/env python3
"""Search strategies replayed against recorded spaces: fraction of the optimum (best known time /
best found time) after 25 ... 800 evaluations over 50 seeds: its mean, standard deviation and the
share of seeds that reached the optimum, and the score (f - f_random) / (f_opt - f_random) against
random search (f_opt = 1; f_random = random search's mean fraction at the same budget on the same
space).

    bench/strategies.py GALAPAGOS [--spaces DIR] [--seeds 50] [--strategies forest,hybrid,ga,annealing,random,exhaustive]
                        [--extra FILE...]

`kt_dual_annealing` among --strategies adds Kernel Tuner's dual annealing as re-implemented by
bench/kt_dual_annealing.py (SciPy; one island).

Spaces: the exhaustive galapagos recordings tests/data/spaces/{stencil3d7,gemm}-cpu{,-tune}.h5 (two
sizes each); five Kernel Tuner caches of published spaces measured on an NVIDIA H200 by
bench/kt_spaces (gemm, convolution at two sizes, pnpoly, dedispersion:
docs/results/kt-spaces/*.json.xz, unpacked into --spaces); gemm, convolution and pnpoly with the
synthetic times of tools/synthetic_kt_cache.py (written into --spaces when missing). Prints
Markdown tables (docs/BENCHMARKS.md, "Search strategies"): per space, then the mean over the
nine measured CPU and H200 spaces, over the CPU and synthetic spaces, and over all twelve.
--h100 adds five of the Kernel Tuner spaces measured again on an NVIDIA H100 (gemm, convolution,
dedispersion at two sizes, pnpoly at 5 M points; measured after the strategies were chosen) as a
set of their own, and two kernels measured only there (hotspot and expdist, added to
bench/kt_spaces after the strategies were chosen) as another. A CPU kernel recorded after the
strategies were chosen, tests/data/spaces/spmv-cpu.h5 (the narrowed spmv family of
tests/data/spaces/kernels/spmv, 624 points), is a set of its own. --extra adds recorded spaces of your
own (results files, Kernel Tuner caches, T4 files, gzip-compressed or not) as another set.
--launch-limit N adds the five measured H200 caches with every configuration of more than N
threads per block recorded as RuntimeFailedConfig (a constructed set: failures at a resource
limit, which leave 9-74% of a space failing at 256).
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

from warm_start import BOTH_DEVICES, unpacked  # the caches measured on two GPUs; a cache unpacked once

BUDGETS = [25, 50, 100, 200, 400, 800]
# The Kernel Tuner spaces measured on an H200 (docs/results/kt-spaces/kt-NAME-h200.json.xz); the
# first three have synthetic times as well.
MEASURED_H200 = ("gemm", "convolution", "pnpoly", "dedispersion", "convolution2048")
# Kernels recorded after the strategies were chosen: on an H100 only (kt-NAME-h100.json.xz), and on
# the CPU (tests/data/spaces/NAME-cpu.h5).
LATER_H100 = ("hotspot", "expdist")
LATER_CPU = ("spmv",)
HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.dirname(HERE)


def run(galapagos, space, kind, seeds, islands):
    if kind == "kt_dual_annealing":  # Kernel Tuner's dual annealing, re-implemented (one island)
        cmd = [sys.executable, os.path.join(HERE, "kt_dual_annealing.py"), space, "--seed", "1", "--seeds", str(seeds),
               "--budget", str(max(BUDGETS)), "--at", ",".join(map(str, BUDGETS))]
        return json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)
    cmd = [galapagos, "simulate", space, "--strategy", kind, "--islands", str(islands), "--budget", str(max(BUDGETS) // islands),
           "--seed", "1",
           "--seeds", str(seeds), "--at", ",".join(map(str, BUDGETS)), "--json"]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("galapagos")
    ap.add_argument("--spaces", default=os.path.join(SRC, "build", "kt-spaces"))
    ap.add_argument("--seeds", type=int, default=50)
    ap.add_argument("--strategies", default="forest,hybrid,ga,annealing,random,exhaustive")
    ap.add_argument("--islands", type=int, default=1, help="islands of one kind (budgets are totals over them)")
    ap.add_argument("--h100", action="store_true", help="also the spaces measured on an H100, as two sets of their own")
    ap.add_argument("--extra", nargs="*", default=[], help="more recorded spaces, reported as a set of their own")
    ap.add_argument("--launch-limit", type=int, help="also the measured H200 caches with every configuration above N "
                    "threads per block failed, as a set of their own")
    ap.add_argument("--budgets", default=",".join(map(str, BUDGETS)), help="evaluations to report after (the largest is the run's)")
    a = ap.parse_args()
    BUDGETS[:] = sorted(int(b) for b in a.budgets.split(","))
    names = MEASURED_H200[:3]  # the spaces with synthetic times as well
    os.makedirs(a.spaces, exist_ok=True)
    measured = [unpacked(a.spaces, f"kt-{n}-h200") for n in MEASURED_H200]
    h100 = [unpacked(a.spaces, f"kt-{n}-h100") for n in BOTH_DEVICES] if a.h100 else []
    unseen = [unpacked(a.spaces, f"kt-{n}-h100") for n in LATER_H100] if a.h100 else []
    synthetic = [os.path.join(a.spaces, f"kt-{n}-synthetic.json") for n in names]
    if not all(os.path.exists(p) for p in synthetic):
        subprocess.run([sys.executable, os.path.join(SRC, "tools", "synthetic_kt_cache.py"), a.spaces], check=True,
                       stdout=subprocess.DEVNULL)
    cpu = [os.path.join(SRC, "tests", "data", "spaces", f"{n}-cpu{size}.h5") for n in ("stencil3d7", "gemm") for size in ("", "-tune")]
    later_cpu = [os.path.join(SRC, "tests", "data", "spaces", f"{n}-cpu.h5") for n in LATER_CPU]
    limited = [launch_limited(p, a.launch_limit) for p in measured] if a.launch_limit else []
    spaces = cpu + measured + synthetic + later_cpu + h100 + unseen + limited + a.extra
    kinds = a.strategies.split(",")
    if "random" not in kinds:
        kinds.append("random")
    jobs = [(sp, k) for sp in spaces for k in kinds]
    with ThreadPoolExecutor(os.cpu_count() or 1) as pool:  # one simulate process per job
        done = pool.map(lambda j: run(a.galapagos, j[0], j[1], 1 if j[1] == "exhaustive" else a.seeds, a.islands), jobs)
        res = dict(zip(jobs, done))  # (space, kind) -> summary
    name = lambda sp: (os.path.basename(sp).replace("-synthetic.json", " (synthetic times)").replace("-h200.json", " (H200)").replace("-h100.json", " (H100)")
                       .replace("-h200-limit", " (H200, failed above ").replace("threads.json", " threads)")
                       .replace(".h5", "").replace("kt-", "KT "))
    print(f"Fraction of the optimum after N evaluations over {a.seeds} seeds ({a.islands} island(s)): mean ± standard "
          "deviation, and the share of seeds that reached the optimum\n")
    for sp in spaces:
        d = res[(sp, kinds[0])]
        print(f"**{name(sp)}**: {d['points']} points ({d['failed']} failed), {d['format']}\n")
        print("| strategy | " + " | ".join(str(b) for b in BUDGETS) + " |")
        print("|---|" + "---|" * len(BUDGETS))
        for k in kinds:
            cells = [f"{mean(res[(sp, k)], b):.3f} ±{spread(res[(sp, k)], b):.3f}, {share(res[(sp, k)], b):.0%}" for b in BUDGETS]
            print(f"| {k} | " + " | ".join(cells) + " |")
        print()
    sets = [("CPU + H200 (measured spaces)", cpu + measured), ("CPU + synthetic", cpu + synthetic), ("all twelve", cpu + measured + synthetic),
            ("the CPU kernel the strategies never saw (spmv)", later_cpu)]
    if h100:
        sets.append(("the five H100 spaces", h100))
        sets.append(("the two H100 kernels the strategies never saw (hotspot, expdist)", unseen))
    if limited:
        sets.append((f"the five H200 spaces failed above {a.launch_limit} threads per block", limited))
    if a.extra:
        sets.append(("the extra spaces", a.extra))
    for title, group in sets:
        print(f"Over {title}: mean of the mean fraction of the optimum, mean share of seeds at the optimum, and score "
              "against random search\n")
        print("| strategy | " + " | ".join(f"{b}" for b in BUDGETS) + " | at opt. " + " | at opt. ".join(str(b) for b in BUDGETS) +
              " | score " + " | score ".join(str(b) for b in BUDGETS) + " |")
        print("|---|" + "---|" * (3 * len(BUDGETS)))
        for k in kinds:
            means, shares, scores = [], [], []
            for b in BUDGETS:
                f = [mean(res[(sp, k)], b) for sp in group]
                fr = [mean(res[(sp, "random")], b) for sp in group]
                means.append(sum(f) / len(f))
                shares.append(sum(share(res[(sp, k)], b) for sp in group) / len(group))
                s = [(x - r) / (1 - r) if r < 1 else 0.0 for x, r in zip(f, fr)]
                scores.append(sum(s) / len(s))
            print(f"| {k} | " + " | ".join(f"{m:.3f}" for m in means) + " | " + " | ".join(f"{x:.0%}" for x in shares) + " | " +
                  " | ".join(f"{s:+.3f}" for s in scores) + " |")
        print()


# Threads per block of a configuration of each measured Kernel Tuner space (bench/kt_spaces).
THREADS = {"gemm": lambda c: c["MDIMC"] * c["NDIMC"], "convolution": lambda c: c["block_size_x"] * c["block_size_y"],
           "pnpoly": lambda c: c["block_size_x"],
           "dedispersion": lambda c: c["block_size_x"] * c["block_size_y"] * c["block_size_z"]}


def limited_path(path, limit):
    """Where launch_limited writes the copy of the cache at `path`."""
    return path.replace(".json", f"-limit{limit}threads.json")


def launch_limited(path, limit):
    """A copy of the cache at `path` (written beside it) in which every configuration of more than
    `limit` threads per block failed at run time: its path."""
    out = limited_path(path, limit)
    if not os.path.exists(out):
        with open(path) as f:
            doc = json.load(f)
        name = os.path.basename(path)[3:].split("-")[0].rstrip("0123456789")
        for entry in doc["cache"].values():
            if THREADS[name](entry) > limit and not isinstance(entry["time"], str):
                entry.update(time="RuntimeFailedConfig", verification_time=0, benchmark_time=0)
        with open(out + ".part", "w") as f:
            json.dump(doc, f)
        os.replace(out + ".part", out)
    return out


def fractions(summary, budget):
    return [r["at"][str(budget)] for r in summary["runs"]]


def mean(summary, budget):
    return statistics.fmean(fractions(summary, budget))


def spread(summary, budget):
    f = fractions(summary, budget)
    return statistics.pstdev(f) if len(f) > 1 else 0.0


def share(summary, budget):
    """Share of the seeds whose best after `budget` evaluations is the recorded optimum."""
    f = fractions(summary, budget)
    return sum(x >= 1 - 1e-9 for x in f) / len(f)


if __name__ == "__main__":
    main()
