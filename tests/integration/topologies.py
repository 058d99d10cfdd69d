#!/usr/bin/python3
"""topologies.py GALAPAGOS MPIEXEC CONFIG RECORDING WORKDIR: the migration topologies.

Replayed runs (measurements served from RECORDING, so they are fast and deterministic) with
several islands and each topology of [migration]:
1. The graph stored in the results file (root attribute migration_targets) is the one asked for:
   ring (i sends to i+1), full (to every other island), random (a simple, symmetric graph where
   every island has `degree` neighbours), none (no one); every migration row follows an edge, and
   an island with correct candidates sends to every one of its targets.
2. A random graph is fixed by the run's seed: the same seed gives the same graph and the same
   run; another seed, another graph.
3. A run on the fully connected topology, stopped with SIGUSR1 to its ranks and resumed until it finishes,
   reaches the same final state as the same run straight through."""
import json
import os
import signal
import subprocess
import sys
import time

import h5py

galapagos, mpiexec, config, recording, work = sys.argv[1:6]
os.makedirs(work, exist_ok=True)
here = os.path.dirname(os.path.abspath(__file__))
errors = []


def fail(what):
    print("FAIL:", what, flush=True)
    errors.append(what)


def mpi(n):
    return [mpiexec, "-n", str(n), "--oversubscribe", "--allow-run-as-root", "--bind-to", "none"]


def config_with(name, topology, degree):
    with open(config) as f:
        body = f.read()
    start = body.index("[migration]")
    end = body.find("\n[", start + 1)
    table = f'[migration]\ntopology = "{topology}"\ndegree = {degree}\ninterval = 1\ncount = 1\n'
    body = body[:start] + table + (body[end + 1:] if end >= 0 else "")
    path = os.path.join(work, name + ".toml")
    with open(path, "w") as f:
        f.write(body)
    return path


def run(cfg, out, islands, *extra, budget=12):
    for p in (out, out + ".partial"):
        if os.path.exists(p):
            os.remove(p)
    r = subprocess.run(mpi(islands) + [galapagos, "run", cfg, "--out", out, "--replay", recording, "--budget",
                                       str(budget), "--quiet", *extra], capture_output=True, text=True)
    if r.returncode != 0:
        fail(f"{out}: exit {r.returncode}: {r.stdout[-2000:]} {r.stderr[-2000:]}")
    return out


def graph_and_rows(path):
    with h5py.File(path, "r") as f:
        graph = json.loads(f.attrs["migration_targets"])
        rows = {(int(m["from_island"]), int(m["to_island"])) for m in f["migrations"][:]}
        senders = {int(c["island"]) for c in f["candidates"][:] if c["status"] == b"ok"}
    return graph, rows, senders


def check(path, topology, islands, degree):
    graph, rows, senders = graph_and_rows(path)
    if len(graph) != islands:
        fail(f"{topology}: {len(graph)} islands in the graph, {islands} ran")
        return graph
    for i, targets in enumerate(graph):
        if topology == "ring":
            want = [(i + 1) % islands]
        elif topology == "full":
            want = [j for j in range(islands) if j != i]
        elif topology == "none":
            want = []
        else:
            want = None
            if len(targets) != min(degree, islands - 1) or len(set(targets)) != len(targets) or i in targets:
                fail(f"random: island {i} has neighbours {targets}, degree {degree}")
            if any(i not in graph[j] for j in targets):
                fail(f"random: the graph is not symmetric at island {i}: {graph}")
        if want is not None and targets != want:
            fail(f"{topology}: island {i} sends to {targets}, expected {want}")
    edges = {(i, j) for i, t in enumerate(graph) for j in t}
    if not rows <= edges:
        fail(f"{topology}: migrations off the graph: {sorted(rows - edges)}")
    for i in senders:  # an island with correct candidates sends its elite to every target
        missing = {(i, j) for j in graph[i]} - rows
        if missing:
            fail(f"{topology}: island {i} never sent to {sorted(j for _, j in missing)}")
    print(f"{topology} (degree {degree}, {islands} islands): graph {graph}, {len(rows)} edges used", flush=True)
    return graph


# 1. every topology
for topology, degree, islands in [("ring", 2, 4), ("full", 2, 4), ("random", 2, 6), ("random", 3, 4), ("none", 2, 3)]:
    cfg = config_with(f"{topology}{degree}", topology, degree)
    check(run(cfg, os.path.join(work, f"{topology}{degree}.h5"), islands), topology, islands, degree)

# 2. a random graph is fixed by the seed
cfg = config_with("random_seeded", "random", 2)
a = run(cfg, os.path.join(work, "random_a.h5"), 6, "--seed", "11")
b = run(cfg, os.path.join(work, "random_b.h5"), 6, "--seed", "11")
c = run(cfg, os.path.join(work, "random_c.h5"), 6, "--seed", "12")


def proposals(path):  # what every island evaluated, in order, and the migrants it sent
    with h5py.File(path, "r") as f:
        return (sorted((int(r["island"]), int(r["id"]), r["params"].decode()) for r in f["candidates"][:]),
                sorted((int(r["generation"]), int(r["from_island"]), int(r["to_island"]), int(r["candidate_id"]))
                       for r in f["migrations"][:]))


if graph_and_rows(a)[0] != graph_and_rows(b)[0] or proposals(a) != proposals(b):
    fail("two runs with one seed differ in their graph, candidates or migrations")
if graph_and_rows(a)[0] == graph_and_rows(c)[0]:
    fail("seeds 11 and 12 gave the same random graph")

# 3. stopped and resumed on the fully connected graph: the same as straight through
cfg = config_with("full_stop", "full", 2)
straight = run(cfg, os.path.join(work, "full_straight.h5"), 4, budget=24)
stopped = os.path.join(work, "full_stopped.h5")
for p in (stopped, stopped + ".partial"):
    if os.path.exists(p):
        os.remove(p)
stops, finished, session = 0, False, 0
while not finished and session < 20:
    session += 1
    cmd = [galapagos, "resume", stopped] if os.path.exists(stopped) else \
        [galapagos, "run", cfg, "--out", stopped, "--replay", recording, "--budget", "24", "--replay-delay", "0.1"]
    proc = subprocess.Popen(mpi(4) + cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    t0 = time.monotonic()
    while proc.poll() is None and not os.path.exists(stopped + ".partial") and time.monotonic() - t0 < 60:
        time.sleep(0.01)
    time.sleep(0.3 + 0.1 * session)
    # To the ranks themselves: galapagos keeps its handler to the end, whereas mpirun dies of a
    # signal that reaches it while it shuts down after a run that just finished.
    for r in subprocess.run(["pgrep", "-P", str(proc.pid)], capture_output=True, text=True).stdout.split():
        try:
            os.kill(int(r), signal.SIGUSR1)
        except ProcessLookupError:
            pass  # this rank has ended: the run finished on its own
    output = proc.communicate(timeout=120)[0]
    if proc.returncode != 0:
        fail(f"session {session}: exit {proc.returncode}: {output[-2000:]}")
        break
    if "stopped" in output:
        stops += 1
    with h5py.File(stopped, "r") as f:
        finished = f.attrs["finished"].item() is True
if stops < 1 or not finished:
    fail(f"{stops} stops, finished: {finished}")
same = subprocess.run([sys.executable, os.path.join(here, "compare_runs.py"), straight, stopped], capture_output=True,
                      text=True)
print(f"full topology, {stops} stops: {same.stdout.strip()[-300:]}", flush=True)
if same.returncode != 0:
    fail("the stopped and resumed run differs from the straight one")

if errors:
    print(f"{len(errors)} failures")
    sys.exit(1)
print("topologies: ok")
