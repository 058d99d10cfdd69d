#!/usr/bin/python3
"""orchestration.py GALAPAGOS RECORDING [--islands 1,2,4,8] [--delay 0.2] [--budget 24] [--out DIR]:
the cost of galapagos's orchestration alone, with 1, 2, 4 and 8 islands.

Each run replays RECORDING (a results file of an earlier search: its measurements are served
instead of compiled and run kernels, each taking --delay seconds, as a real evaluation would take
its time) under mpirun, oversubscribed if need be. Every island reports where its search time
went, in the /orchestration table of its results file: evaluating (here: the replayed
measurement) and the orchestration around it, split into MPI (records shipped to rank 0),
migration (sending and taking in migrants), HDF5 (rank 0's writes and checkpoints) and the search
logic (proposing, selecting).
Migrants are taken in as they arrive ([migration] arrival = "asynchronous"), as in a measured run.
Printed per island count: evaluations per second of the whole job and the orchestration's share
of the search time (mean and worst island)."""
import argparse
import os
import shutil
import subprocess
import sys
import time

p = argparse.ArgumentParser()
p.add_argument("galapagos")
p.add_argument("recording")
p.add_argument("--config", default=os.path.join(os.path.dirname(__file__), "..", "configs", "stencil3d7-cpu-ci.toml"))
p.add_argument("--islands", default="1,2,4,8")
p.add_argument("--delay", type=float, default=0.2)
p.add_argument("--budget", type=int, default=24)
p.add_argument("--out", default="/tmp/galapagos-orchestration")
a = p.parse_args()
os.makedirs(a.out, exist_ok=True)
mpiexec = shutil.which("mpirun") or shutil.which("mpiexec")


def orchestration_rows(path):
    """The /orchestration rows of a results file (one per island and session): the islands' own
    account of their search time, as floats keyed by field name."""
    import h5py  # Debian's python3-h5py (run with /usr/bin/python3)
    with h5py.File(path, "r") as f:
        t = f["orchestration"][:]
    return [{name: float(row[name]) for name in t.dtype.names} for row in t]

print(f"replayed search, {a.budget} evaluations per island of {a.delay * 1e3:.0f} ms each ({a.recording})\n")
print("| islands | evaluations/s | ideal/s | orchestration: mean | worst island | MPI | migration | HDF5 | search logic |")
print("|---|---|---|---|---|---|---|---|---|")
worst_at_max = None
# The config with migrants taken in as they arrive, as in a measured run (a replayed run would
# otherwise wait for them by schedule, to be reproducible).
with open(a.config) as f:
    body = f.read()
config = os.path.join(a.out, "orchestration.toml")
with open(config, "w") as f:
    f.write(body.replace("[migration]\n", '[migration]\narrival = "asynchronous"\n', 1))
for n in [int(x) for x in a.islands.split(",")]:
    out = os.path.join(a.out, f"islands{n}.h5")
    for f in (out, out + ".partial"):
        if os.path.exists(f):
            os.remove(f)
    cmd = [mpiexec, "-n", str(n), "--oversubscribe", "--allow-run-as-root", "--bind-to", "none", a.galapagos, "run",
           config, "--out", out, "--replay", a.recording, "--replay-delay", str(a.delay), "--budget", str(a.budget),
           "--quiet"]
    t0 = time.monotonic()
    r = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.monotonic() - t0
    if r.returncode not in (0, 1):  # 1: a replayed winner absent from the recording
        sys.exit(f"run with {n} islands failed (exit {r.returncode}):\n{r.stdout[-2000:]}\n{r.stderr[-2000:]}")
    v = orchestration_rows(out)
    if len(v) != n:
        sys.exit(f"{out}: {len(v)} /orchestration rows, expected one per island ({n})")
    search = max(x["search_s"] for x in v)
    evals = n * a.budget
    share = [100 * x["orchestration_s"] / x["search_s"] if x["search_s"] > 0 else 0.0 for x in v]
    total = lambda k: sum(x[k] for x in v) / sum(x["search_s"] for x in v) * 100  # noqa: E731
    print(f"| {n} | {evals / search:.2f} | {n / a.delay:.2f} | {sum(share) / n:.2f}% | {max(share):.2f}% | "
          f"{total('mpi_s'):.2f}% | {total('migration_s'):.2f}% | {total('hdf5_s'):.2f}% | {total('logic_s'):.2f}% |", flush=True)
    worst_at_max = max(share)
print(f"\nshares are of the islands' search time (mpirun start-up and the final comparison excluded); "
      f"the largest island count's worst island: {worst_at_max:.2f}% (target < 2%)")
