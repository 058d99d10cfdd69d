#!/usr/bin/python3
"""mixed_resume.py GALAPAGOS MPIEXEC SOURCE_DIR WORKDIR: a mixed job stopped and resumed.

One MPI job with two stencil3d7 islands and one spmv island (as mixed_job.sh starts it) is
stopped by a signal once every island has completed a generation, then resumed with a plain
`mpirun -n 3 galapagos resume FILE`: each island must come back with its own kind's config (the
file keeps them in the root attribute kind_configs), search its own space to its budget without
measuring a point twice, and each group's winner must be the best of its islands over both
sessions. A file whose kinds' configs are missing or wrong is refused with one line naming it."""
import json
import os
import shutil
import signal
import subprocess
import sys
import time

import h5py

galapagos, mpiexec, src, work = sys.argv[1:5]
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
MPI = [mpiexec, "--oversubscribe", "--allow-run-as-root", "--bind-to", "none"]
out = os.path.join(work, "mixed.h5")
budget = 9
errors = []


def fail(what):
    print("FAIL:", what, flush=True)
    errors.append(what)


def config(name):
    return os.path.join(src, "configs", name)


# --- 1. stopped once every island has completed a generation ---------------------------------
run = MPI + ["-n", "2", galapagos, "run", config("stencil3d7-cpu-ci.toml"), "--out", out, "--budget", str(budget), "--verbose",
             ":", "-n", "1", galapagos, "run", config("spmv-cpu-ci.toml"), "--out", out, "--budget", str(budget), "--verbose"]
proc = subprocess.Popen(run, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
lines, signalled = [], False
for line in proc.stdout:
    lines.append(line)
    if line.startswith("checkpoint written: generation 1,"):
        proc.send_signal(signal.SIGUSR1)  # mpirun passes it on to every rank
        signalled = True
        break
output = "".join(lines) + proc.communicate(timeout=600)[0]
if proc.returncode != 0 or not signalled or "stopped: every island is checkpointed" not in output:
    print(output[-4000:])
    sys.exit(f"FAIL: the mixed job was not stopped at a checkpoint (exit {proc.returncode}, signalled {signalled})")
with h5py.File(out, "r") as f:
    if f.attrs["finished"].item() is not False:
        fail("the stopped job's file says it finished")
    kinds = json.loads(f.attrs["kind_configs"])
    before = {i: int((f["candidates"]["island"] == i).sum()) for i in range(3)}
    if sorted(kinds) != ["spmv/cpu", "stencil3d7/cpu"] or kinds["spmv/cpu"]["budget"] != budget or \
            'family = "spmv"' not in kinds["spmv/cpu"]["config_toml"]:
        fail(f"kind_configs: {kinds}")
print(f"stopped: rows per island {before}", flush=True)
if all(n >= budget for n in before.values()):
    sys.exit(f"FAIL: the stop came after every island had spent its budget ({before}): nothing was left to resume")

# --- 2. bad kind_configs are refused before anything is written ------------------------------
def refused(change, expect):
    bad = os.path.join(work, "bad.h5")
    shutil.copyfile(out, bad)
    with h5py.File(bad, "r+") as f:
        change(f)
    with open(bad, "rb") as f:
        content = f.read()
    # One process: what is wrong with the file is told before the job's size is checked.
    r = subprocess.run([galapagos, "resume", bad], capture_output=True, text=True, timeout=300)
    text = (r.stdout + r.stderr).strip()
    if r.returncode != 2 or expect not in text or len(text.splitlines()) != 1 or bad not in text:
        fail(f"resume of a file with {expect!r}: exit {r.returncode}, {text[-1500:]}")
    with open(bad, "rb") as f:
        if f.read() != content:
            fail(f"the refused file ({expect}) was changed")
    left = sorted(n for n in os.listdir(work) if n.startswith("bad.h5") and n != "bad.h5")
    if left:
        fail(f"the refused resume left {left}")


def drop(f):
    del f.attrs["kind_configs"]


def swap(f):
    k = json.loads(f.attrs["kind_configs"])
    k["spmv/cpu"], k["stencil3d7/cpu"] = k["stencil3d7/cpu"], k["spmv/cpu"]
    f.attrs["kind_configs"] = json.dumps(k)


def no_budget(f):
    k = json.loads(f.attrs["kind_configs"])
    del k["spmv/cpu"]["budget"]
    f.attrs["kind_configs"] = json.dumps(k)


refused(drop, "does not keep each kind's config")
refused(swap, "its stored config of spmv/cpu searches stencil3d7 on cpu")
refused(no_budget, "kind_configs: spmv/cpu has no valid budget and seed")

# --- 3. resumed to the end, every island in its own space -------------------------------------
r = subprocess.run(MPI + ["-n", "3", galapagos, "resume", out], capture_output=True, text=True, timeout=900)
if r.returncode != 0:
    print(r.stdout[-4000:], r.stderr[-2000:])
    sys.exit(f"FAIL: resuming the mixed job exited {r.returncode}")
with h5py.File(out, "r") as f:
    if f.attrs["finished"].item() is not True:
        fail("the resumed job did not finish")
    if json.loads(f.attrs["island_kinds"]) != ["stencil3d7/cpu", "stencil3d7/cpu", "spmv/cpu"]:
        fail(f"island_kinds {f.attrs['island_kinds']}")
    c = f["candidates"][:]
    sessions = [f["sessions"][k].attrs["kind"] for k in sorted(f["sessions"], key=int)]
    if sessions != ["run", "resume"]:
        fail(f"/sessions: {sessions}")
    for i, key in ((0, "TILE_X"), (1, "TILE_X"), (2, "FORMAT")):
        rows = c[c["island"] == i]
        params = [r["params"].decode() for r in rows]
        if len(rows) != budget:
            fail(f"island {i} evaluated {len(rows)} candidates over two sessions, budget {budget}")
        if len(set(params)) != len(params):
            fail(f"island {i} measured a point twice: {params}")
        if any(key not in json.loads(p) for p in params):
            fail(f"island {i} searched another kind's space after the resume: {params}")
    later = f["sessions"]["1"].attrs["baselines_first_row"]
    again = {(b["name"].decode(), int(b["island"])) for b in f["baselines"][later:]}
    if ("kokkos_kernels", 2) not in again or ("openmp_plain", 0) not in again:
        fail(f"the resumed session's baselines: {sorted(again)}")

    def best_of(islands):
        ok = [r for r in c if r["island"] in islands and r["status"].decode() == "ok" and r["fitness"] == r["fitness"]]
        return min(ok, key=lambda r: (r["fitness"], r["id"])) if ok else None

    for group, islands, attrs in (("stencil3d7", (0, 1), f["winner"].attrs), ("spmv", (2,), f["winners/spmv-cpu"].attrs)):
        best = best_of(islands)
        if best is None or attrs["family"] != group or int(attrs["candidate_id"]) != int(best["id"]):
            fail(f"the {group} winner is candidate {attrs.get('candidate_id')}, the best of islands {islands} over both "
                 f"sessions is {None if best is None else int(best['id'])}")
        else:
            print(f"{group} winner: candidate {int(best['id'])} of generation {int(best['generation'])}", flush=True)

for what in errors:
    print("FAIL:", what)
print("mixed resume: ok" if not errors else f"{len(errors)} failures")
sys.exit(1 if errors else 0)
