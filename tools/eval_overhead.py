#!/usr/bin/python3
"""eval_overhead.py RESULTS.h5: how much the evaluator's checks cost per candidate.

For every accepted candidate: the kernel time spent in timed and warm-up runs (repetitions + 2
runs at the median time), the build time, and the rest of the evaluation (sandbox start,
acceptance checks at every size and seed, reference computations, input perturbation, cache
flushes, output verification). Prints medians over the candidates."""
import statistics
import sys

import h5py

with h5py.File(sys.argv[1], "r") as f:
    rows = [c for c in f["candidates"][:] if c["status"] == b"ok"]
    fitness = f.attrs.get("fitness_size", "?")
if not rows:
    sys.exit("no accepted candidates in " + sys.argv[1])
kernel = [(c["repetitions"] + 2) * c["time_median_s"] for c in rows]
build = [c["compile_time_s"] for c in rows]
checks = [c["eval_time_s"] - k for c, k in zip(rows, kernel)]
med = statistics.median
print(f"{len(rows)} accepted candidates at fitness size {fitness}")
print(f"  kernel time in timed + warm-up runs: median {med(kernel) * 1e3:8.1f} ms")
print(f"  checks and timing machinery:         median {med(checks) * 1e3:8.1f} ms "
      f"({med(c / k for c, k in zip(checks, kernel)):.1f}x the kernel time)")
print(f"  build (cached builds count 0):       median {med(build) * 1e3:8.1f} ms")
print(f"  whole evaluation:                    median {med(c['eval_time_s'] for c in rows) * 1e3:8.1f} ms")
