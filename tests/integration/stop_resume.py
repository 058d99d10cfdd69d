#!/usr/bin/python3
"""stop_resume.py GALAPAGOS MPIEXEC CONFIG RECORDING WORKDIR: stopping with a signal and resuming.

1. A replayed two-island run is stopped again and again (SIGTERM to one rank only, SIGUSR1 to
   mpirun which forwards it to every rank, SIGTERM to every rank) and resumed until it finishes.
   Every stop must exit 0 within the grace period with "checkpoint written: generation N, FILE"
   and "stopped" on stdout, and the finished run must be the same, candidate by candidate,
   population by population, as the same replay run straight through.
2. Grace period: when what is left of a generation takes longer than [run] grace_s, a stop
   exits within the grace period (plus one evaluation that was already under way), keeping the
   candidates the generation in flight evaluated: the checkpoint counts them as its unfinished
   rows, and the run resumed to its end is the same as straight through, so nothing measured
   before the stop is lost or measured twice.
A finished file answers `galapagos resume` with exit 0."""
import os
import random
import re
import signal
import subprocess
import sys
import time

import h5py

galapagos, mpiexec, config, recording, work = sys.argv[1:6]
os.makedirs(work, exist_ok=True)
MPI = [mpiexec, "-n", "2", "--oversubscribe", "--allow-run-as-root", "--bind-to", "none"]
rnd = random.Random(int(os.environ.get("GALAPAGOS_STOP_SEED", time.time_ns() % 100000)))
errors = []


def fail(what):
    print("FAIL:", what, flush=True)
    errors.append(what)


def with_grace(grace_s):
    """The test config with [run] grace_s set."""
    path = os.path.join(work, f"grace{grace_s}.toml")
    with open(config) as f:
        body = f.read()
    with open(path, "w") as f:
        f.write(body.replace("[run]\n", f"[run]\ngrace_s = {grace_s}\n", 1))
    return path


def ranks_of(proc):
    while proc.poll() is None:
        pids = subprocess.run(["pgrep", "-P", str(proc.pid)], capture_output=True, text=True).stdout.split()
        if len(pids) >= 2:
            return [int(p) for p in pids]
        time.sleep(0.005)
    return []


def signal_ranks(ranks, sig):
    """Sends sig to each rank still running (one may have ended on its own: the run finished)."""
    for r in ranks:
        try:
            os.kill(r, sig)
        except ProcessLookupError:
            pass


def checkpoint_state(path):
    with h5py.File(path, "r") as f:
        ck = f["checkpoint"]
        gens = [int(ck[f"island_{i}"].attrs["generation"]) if f"island_{i}" in ck else 0 for i in range(2)]
        island = [ck[f"island_{i}"].attrs if f"island_{i}" in ck else {} for i in range(2)]
        evaluated = [int(a.get("evaluated", 0)) for a in island]
        unfinished = [int(a.get("unfinished_rows", 0)) for a in island]
        rows = [int((f["candidates"]["island"] == i).sum()) for i in range(2)]
        finished = f.attrs["finished"].item() is True
    if [e + u for e, u in zip(evaluated, unfinished)] != rows:
        fail(f"{path}: checkpoint says {evaluated} evaluated and {unfinished} unfinished, /candidates holds {rows}")
    return gens, finished, sum(unfinished)


# --- 1. stopped and resumed, the same as straight through ------------------------------------
cfg = with_grace(4)
straight, stopped = os.path.join(work, "straight.h5"), os.path.join(work, "stopped.h5")
for p in (straight, stopped):
    if os.path.exists(p):
        os.remove(p)
subprocess.run(MPI + [galapagos, "run", cfg, "--out", straight, "--replay", recording, "--budget", "60", "--quiet"],
               check=True, stdout=subprocess.DEVNULL)
ways = ["SIGTERM to one rank", "SIGUSR1 to mpirun", "SIGTERM to every rank"]
stops, finished, session, cut_short = 0, False, 0, 0
while not finished and session < 30:
    cmd = [galapagos, "resume", stopped] if os.path.exists(stopped) else \
        [galapagos, "run", cfg, "--out", stopped, "--replay", recording, "--budget", "60", "--replay-delay", "0.04"]
    proc = subprocess.Popen(MPI + cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    session += 1
    ranks = ranks_of(proc)
    way = ways[stops % len(ways)]
    t0 = time.monotonic()
    while proc.poll() is None and not os.path.exists(stopped + ".partial") and time.monotonic() - t0 < 60:
        time.sleep(0.01)
    time.sleep(rnd.uniform(0.05, 0.3))
    t_signal = time.monotonic()
    if proc.poll() is None:
        if way == "SIGTERM to one rank":
            signal_ranks([rnd.choice(ranks)], signal.SIGTERM)
        elif way == "SIGUSR1 to mpirun":
            proc.send_signal(signal.SIGUSR1)
        else:
            signal_ranks(ranks, signal.SIGTERM)
    output = proc.communicate(timeout=120)[0]
    took_s = time.monotonic() - t_signal
    if proc.returncode != 0:
        fail(f"session {session} ({way}) exited with {proc.returncode}: {output[-3000:]}")
        break
    gens, finished, unfinished = checkpoint_state(stopped)
    if "stopped: every island is checkpointed" in output:
        stops += 1
        cut_short += unfinished > 0
        if took_s > 4 + 2:
            fail(f"session {session}: {way} took {took_s:.1f} s to stop, grace period 4 s")
        if not re.search(r"checkpoint written: generation \d+, " + re.escape(stopped), output):
            fail(f"session {session}: no 'checkpoint written: generation N, FILE' line")
        print(f"session {session}: {way}: stopped {took_s:.2f} s after the signal, islands at generations {gens}, "
              f"{unfinished} candidates of unfinished generations kept", flush=True)
    elif finished:
        print(f"session {session}: finished", flush=True)
if stops < 3:
    fail(f"only {stops} stops happened; the test needs 3")
if not finished:
    fail("the stopped run never finished")
print(f"{cut_short} of {stops} stops came in the middle of a generation", flush=True)
same = subprocess.run([sys.executable, os.path.join(os.path.dirname(__file__), "compare_runs.py"), straight, stopped],
                      capture_output=True, text=True)
print(same.stdout.strip())
if same.returncode != 0:
    fail("the stopped and resumed run differs from the straight one")
with h5py.File(stopped, "r") as f:
    kinds = [f["sessions"][k].attrs["kind"] for k in sorted(f["sessions"], key=int)]
    if kinds[0] != "run" or any(k != "resume" for k in kinds[1:]) or len(kinds) != session:
        fail(f"/sessions records {kinds} for {session} sessions")
    if len(f["baselines"]) != session:
        fail(f"the baselines were measured {len(f['baselines'])} times in {session} sessions")
again = subprocess.run(MPI + [galapagos, "resume", stopped], capture_output=True, text=True)
if again.returncode != 0 or "the run is finished" not in again.stdout:
    fail(f"resume of a finished run: exit {again.returncode}, {again.stdout} {again.stderr}")

# --- 2. the grace period is shorter than what is left of the generation ----------------------
cfg = with_grace(1.5)
short, short_straight = os.path.join(work, "grace.h5"), os.path.join(work, "grace-straight.h5")
for p in (short, short_straight):
    if os.path.exists(p):
        os.remove(p)
grace_run = ["--replay", recording, "--budget", "12"]
subprocess.run(MPI + [galapagos, "run", cfg, "--out", short_straight, "--quiet"] + grace_run, check=True, stdout=subprocess.DEVNULL)
proc = subprocess.Popen(MPI + [galapagos, "run", cfg, "--out", short, "--verbose"] + grace_run + ["--replay-delay", "1.0"],
                        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
ranks = ranks_of(proc)
lines = []
for line in proc.stdout:  # wait until generation 1 is checkpointed, then stop in generation 2
    lines.append(line)
    if line.startswith("checkpoint written: generation 1,"):
        break
time.sleep(1.3)  # an evaluation of generation 2 is done, the next under way
t_signal = time.monotonic()
signal_ranks(ranks, signal.SIGTERM)
rest = proc.communicate(timeout=60)[0]
took_s = time.monotonic() - t_signal
output = "".join(lines) + rest
gens, finished, unfinished = checkpoint_state(short)
print(f"grace 1.5 s, evaluations of 1 s: stopped {took_s:.2f} s after SIGTERM, islands at generations {gens}, "
      f"{unfinished} candidates of the generation in flight kept", flush=True)
if proc.returncode != 0 or "stopped: every island is checkpointed" not in output:
    fail(f"the stop under a short grace period failed (exit {proc.returncode}): {output[-3000:]}")
# An evaluation under way is finished first: 1 s of slack.
if took_s > 1.5 + 1:
    fail(f"exited {took_s:.1f} s after SIGTERM, grace period 1.5 s")
if not re.search(r"generation \d+ stopped after \d+ of its candidates; they are kept", output) or unfinished < 1:
    fail("no island kept the candidates of its generation in flight, though it could not complete it within the grace period")
if finished or min(gens) < 1 or max(gens) >= 4:
    fail(f"unexpected checkpoint after a stop in generation 2: {gens}, finished {finished}")
# Stopped again, early in each resumed session: the kept candidates are taken, the next
# generation in flight is kept in its turn.
for again in range(2):
    proc = subprocess.Popen(MPI + [galapagos, "resume", short], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    ranks = ranks_of(proc)
    lines = []
    for line in proc.stdout:
        lines.append(line)
        if line.startswith("search:"):
            break
    time.sleep(1.3)
    signal_ranks(ranks, signal.SIGTERM)
    output = "".join(lines) + proc.communicate(timeout=60)[0]
    gens, finished, unfinished = checkpoint_state(short)
    print(f"resumed and stopped again: islands at generations {gens}, {unfinished} candidates of unfinished generations kept",
          flush=True)
    if proc.returncode != 0:
        fail(f"a resumed session stopped again exited {proc.returncode}: {output[-3000:]}")
resumed = subprocess.run(MPI + [galapagos, "resume", short], capture_output=True, text=True)
if resumed.returncode != 0:
    fail(f"resuming the run stopped in a generation: exit {resumed.returncode}: {resumed.stdout[-2000:]} {resumed.stderr[-2000:]}")
same = subprocess.run([sys.executable, os.path.join(os.path.dirname(__file__), "compare_runs.py"), short_straight, short],
                      capture_output=True, text=True)
print(same.stdout.strip())
if same.returncode != 0:
    fail("the run stopped in the middle of a generation and resumed differs from the straight one")

# --- 3. the best found after a resume wins ----------------------------------------------------
# Stopped as soon as generation 0 is checkpointed, the run's best is (mostly) found in a later session:
# the resumed islands must compare it with the best the checkpoint held (by fitness, as the
# search does), and the winner must be the best candidate of the file.
late = os.path.join(work, "late.h5")
if os.path.exists(late):
    os.remove(late)
proc = subprocess.Popen(MPI + [galapagos, "run", cfg, "--out", late, "--verbose"] + grace_run + ["--replay-delay", "0.3"],
                        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
ranks = ranks_of(proc)
for line in proc.stdout:
    if line.startswith("checkpoint written: generation 0,"):
        break
signal_ranks(ranks, signal.SIGTERM)
proc.communicate(timeout=60)
resumed = subprocess.run(MPI + [galapagos, "resume", late], capture_output=True, text=True)
if resumed.returncode != 0:
    fail(f"resuming the run stopped after generation 0: exit {resumed.returncode}: {resumed.stderr[-2000:]}")
with h5py.File(late, "r") as f:
    c = f["candidates"][:]
    ok = [(float(r["fitness"]), int(r["id"]), int(r["generation"])) for r in c if r["status"] == b"ok"]
    best = min(ok)
    winner = int(f["winner"].attrs["candidate_id"])
print(f"stopped after generation 0 and resumed: winner {winner}, best candidate {best[1]} (generation {best[2]})", flush=True)
if winner != best[1]:
    fail(f"the winner is candidate {winner}, but candidate {best[1]} (generation {best[2]}) has the lowest fitness")
if best[2] == 0:  # the fixture records the space afresh: its best may come first (then the check above is weak)
    print("note: this recording's best candidate came in generation 0, before the stop", flush=True)

if errors:
    sys.exit(1)
print(f"stop/resume ok: {stops} stops, the same final state as straight through; the grace period held")
