#!/usr/bin/python3
"""What the evaluator's checks cost per candidate, beside the kernel's own timed time.

  eval_overhead.py RESULTS.h5
      For every accepted candidate of a search: the kernel time spent in timed and warm-up runs
      (repetitions + 2 runs at the median time), the build time, and the rest of the evaluation
      (sandbox start, acceptance checks at every size and seed, reference computations, input
      redraws, cache flushes, output checks). Prints medians over the candidates.

  eval_overhead.py --galapagos BIN [--galapagos BIN2 ...] [--family F ...] [--rounds N] [--phases]
      Evaluates each family's CPU template at its fitness size with every galapagos binary given
      (`BIN eval --family F --backend cpu --no-baselines --json TEMPLATE`), the binaries taking
      turns within each round (A B A B ...), so that two builds are compared side by side on a node
      whose speed drifts. Prints per family and binary the medians over the rounds of the whole
      evaluation, of the kernel's own time ((repetitions + 2) x median), of what the checks add
      (evaluation - kernel) and of their ratio, and with two binaries the ratio of the second's
      evaluation time to the first's, round by round. Each binary reads the kernels of its own
      source tree. --phases also prints where each evaluation's time went, phase by phase
      (GALAPAGOS_TIMING_TRACE=1: per phase, the median over the rounds of its seconds).
"""
import argparse
import json
import re
import statistics
import subprocess
import sys

TEMPLATES = {
    "stencil3d7": "stencil3d7/cpu/stencil3d7.cpp",
    "spmv": "spmv/cpu/spmv.cpp",
    "gemm": "gemm/cpu/gemm.cpp",
    "gemm_f32": "gemm/cpu/gemm.cpp",
}
med = statistics.median


def from_results(path):
    import h5py

    with h5py.File(path, "r") as f:
        rows = [c for c in f["candidates"][:] if c["status"] == b"ok"]
        fitness = f.attrs.get("fitness_size", "?")
    if not rows:
        sys.exit(f"{path}: no accepted candidates")
    kernel = [(c["repetitions"] + 2) * c["time_median_s"] for c in rows]
    build = [c["compile_time_s"] for c in rows]
    checks = [c["eval_time_s"] - k for c, k in zip(rows, kernel)]
    print(f"{len(rows)} accepted candidates at fitness size {fitness}")
    print(f"  kernel time in timed + warm-up runs: median {med(kernel) * 1e3:8.1f} ms")
    print(f"  checks and timing machinery:         median {med(checks) * 1e3:8.1f} ms "
          f"({med(c / k for c, k in zip(checks, kernel)):.1f}x the kernel time)")
    print(f"  build (cached builds count 0):       median {med(build) * 1e3:8.1f} ms")
    print(f"  whole evaluation:                    median {med(c['eval_time_s'] for c in rows) * 1e3:8.1f} ms")


def kernels_dir(binary):
    """The kernels folder of the source tree the binary was built from (build/bin/galapagos)."""
    import pathlib

    tree = pathlib.Path(binary).resolve().parent.parent.parent
    if not (tree / "kernels").is_dir():
        sys.exit(f"{binary}: no kernels/ folder at {tree} (expected SOURCE/BUILD/bin/galapagos)")
    return tree / "kernels"


PHASE = re.compile(r"phase (.*\S)\s+([0-9.]+) s\s*$")


def evaluate(binary, family, size, phases=False):
    import os

    template = kernels_dir(binary) / TEMPLATES[family]
    cmd = [os.path.abspath(binary), "eval", "--family", family, "--backend", "cpu", "--no-baselines", "--json", "--size", size,
           str(template)]
    env = dict(os.environ, GALAPAGOS_TIMING_TRACE="1") if phases else None
    out = subprocess.run(cmd, capture_output=True, text=True, cwd=kernels_dir(binary).parent, env=env)
    try:  # a candidate that is not accepted exits 1 with its measurement printed
        m = json.loads(out.stdout)
    except json.JSONDecodeError:
        sys.exit(f"{binary}: eval --family {family} failed (exit {out.returncode}): {out.stderr.strip()[-400:]}")
    m["phases"] = {g.group(1): float(g.group(2)) for g in map(PHASE.search, out.stderr.splitlines()) if g}
    return m


def print_phases(binaries, family, runs):
    """Per phase, the median over the rounds of its seconds in each binary's evaluations."""
    names = sorted({p for b in binaries for m in runs[(b, family)] for p in m["phases"]})
    if not names:
        return
    print(f"{family}: seconds per phase, medians over the rounds; columns: " + ", ".join(binaries))
    for name in names:
        cells = [f"{med(m['phases'].get(name, 0.0) for m in runs[(b, family)]):9.3f}" for b in binaries]
        print(f"  {name:45s}" + "".join(cells))


def side_by_side(binaries, families, rounds, size, phases=False):
    runs = {(b, f): [] for b in binaries for f in families}
    for r in range(rounds):
        for f in families:
            for b in binaries:
                m = evaluate(b, f, size, phases)
                runs[(b, f)].append(m)
                state = m["status"] if m["status"] == "ok" else f"{m['status']}: {m['reason'][:120]}"
                print(f"round {r + 1} {f:10s} {b}: evaluation {m['eval_time_s']:.2f} s, {state}", file=sys.stderr)
    print(f"CPU templates at the fitness size '{size}', {rounds} round(s), binaries taking turns; medians over the rounds")
    print(f"{'family':10s} {'binary':40s} {'ok':>5s} {'evaluation':>11s} {'kernel':>9s} {'checks':>9s} "
          f"{'checks/kernel':>13s} {'timed runs':>10s}")
    for f in families:
        for b in binaries:
            ok = [m for m in runs[(b, f)] if m["status"] == "ok"]
            if not ok:
                print(f"{f:10s} {b:40s} {0:>2d}/{rounds:<2d} (no accepted evaluation)")
                continue
            kernel = [(m["repetitions"] + 2) * m["time_median_s"] for m in ok]
            whole = [m["eval_time_s"] for m in ok]
            checks = [w - k for w, k in zip(whole, kernel)]
            print(f"{f:10s} {b:40s} {len(ok):>2d}/{rounds:<2d} {med(whole):10.2f}s {med(kernel):8.3f}s "
                  f"{med(checks):8.2f}s {med(c / k for c, k in zip(checks, kernel)):12.1f}x "
                  f"{med(m['repetitions'] for m in ok):10.0f}")
        if len(binaries) == 2:
            pairs = [(a, b) for a, b in zip(runs[(binaries[0], f)], runs[(binaries[1], f)])
                     if a["status"] == "ok" and b["status"] == "ok"]
            if pairs:
                ratios = [b["eval_time_s"] / a["eval_time_s"] for a, b in pairs]
                per_run = [((b["eval_time_s"] / (b["repetitions"] + 2)) / (a["eval_time_s"] / (a["repetitions"] + 2)))
                           for a, b in pairs]
                print(f"{f:10s} second / first, same rounds: evaluation {med(ratios):.2f}x "
                      f"(per timed run {med(per_run):.2f}x; rounds: {', '.join(f'{x:.2f}' for x in ratios)})")
    for f in families if phases else []:
        print_phases(binaries, f, runs)


def main():
    if len(sys.argv) == 2 and not sys.argv[1].startswith("-"):
        return from_results(sys.argv[1])
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--galapagos", action="append", required=True, help="a galapagos binary (repeatable)")
    ap.add_argument("--family", action="append", choices=sorted(TEMPLATES), help="default: all four")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--size", default="tune")
    ap.add_argument("--phases", action="store_true", help="also print where the time went, phase by phase")
    a = ap.parse_args()
    side_by_side(a.galapagos, a.family or list(TEMPLATES), a.rounds, a.size, a.phases)


if __name__ == "__main__":
    main()
