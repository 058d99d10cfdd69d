#!/usr/bin/python3
"""progress_display.py GALAPAGOS CONFIG RECORDING.h5 WORKDIR MPIEXEC: how `galapagos run` shows progress,
on replayed runs (fast, no kernels). In a batch log (a pipe) one plain line per generation with
the share of the budget and the time left; on a terminal (a pseudo-terminal here) one live line
redrawn in place, ended before what follows; under mpirun (which gives its ranks a terminal
even when its own output is a log) and with GALAPAGOS_PROGRESS=plain, plain lines; --quiet without either; --verbose with a line per
candidate and no redrawing; --quiet with --verbose refused."""
import os
import pty
import re
import shutil
import subprocess
import sys

import h5py

galapagos, config, recording, work, mpiexec = sys.argv[1:6]
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)


def fail(msg):
    print(f"FAIL: {msg}")
    sys.exit(1)


def run(name, *extra, terminal=False, launcher=(), env=None):
    args = [*launcher, galapagos, "run", config, "--replay", recording, "--out", os.path.join(work, name + ".h5"), *extra]
    env = dict(os.environ, **(env or {}))
    if not terminal:
        p = subprocess.run(args, capture_output=True, text=True, timeout=120, env=env)
        return p.returncode, p.stdout + p.stderr
    master, slave = pty.openpty()
    p = subprocess.Popen(args, stdout=slave, stderr=slave, env=env)
    os.close(slave)
    out = b""
    while True:
        try:
            data = os.read(master, 65536)
        except OSError:  # the other end closed
            break
        if not data:
            break
        out += data
    os.close(master)
    return p.wait(timeout=120), out.decode("utf-8", "replace").replace("\r\n", "\n")


def generations(name):
    with h5py.File(os.path.join(work, name + ".h5"), "r") as f:
        g = f["generations"][:]
        c = f["candidates"][:]
    return [(int(r["generation"]), int(r["evaluated"]), int(r["failed"])) for r in g if r["island"] == 0], c


rc, out = run("log")
gens, cands = generations("log")
plain = re.findall(r"^island 0 gen (\d+): evaluated (\d+) \(failed (\d+)\) \| best .* \| (\d+)% of budget, (\S+) left$", out, re.M)
if rc != 0 or [(int(g), int(e), int(f)) for g, e, f, _, _ in plain] != gens:
    fail(f"batch log: expected one plain line per generation {gens}: {out}")
if plain[-1][3] != "100" or plain[-1][4] != "0s" or "\r" in out or "\033" in out:
    fail(f"batch log: the last line is not at 100% of the budget, or the log has terminal codes: {plain[-1]}")
print(f"batch log: {len(plain)} plain lines")

rc, out = run("tty", terminal=True)
live = re.findall(r"\r\033\[Kgen (\d+) \| evaluated (\d+)/(\d+), failed (\d+) \| best [^|]+\| ETA (\S+)", out)
gens, _ = generations("tty")
if rc != 0 or not live or re.search(r"^island 0 gen", out, re.M):
    fail(f"terminal: no live line, or plain generation lines: {out!r}")
if [(int(g), int(e), int(f)) for g, e, _, f, _ in live][-1] != gens[-1] or live[-1][1] != live[-1][2]:
    fail(f"terminal: the last live line {live[-1]} is not the last generation {gens[-1]} with the budget spent")
if not re.search(r"ETA 0s\n", out):
    fail(f"terminal: the live line is not ended before what follows: {out!r}")
shown = out[out.index("\r\033[K"):out.index("ETA 0s\n")]
if "checkpoint written" in shown:
    fail("terminal: checkpoint lines break the live line")
print(f"terminal: {len(live)} redraws of one live line")

mpi = (mpiexec, "-n", "1", "--oversubscribe", "--allow-run-as-root", "--bind-to", "none")
for name, kw in [("mpirun", {"launcher": mpi}), ("plain", {"terminal": True, "env": {"GALAPAGOS_PROGRESS": "plain"}})]:
    rc, out = run(name, **kw)
    if rc != 0 or "\033[K" in out or not re.search(r"^island 0 gen \d+: evaluated .* of budget", out, re.M):
        fail(f"{name}: expected plain generation lines: {out!r}")
print("under mpirun, and with GALAPAGOS_PROGRESS=plain: plain lines")

rc, out = run("quiet", "--quiet")
if rc != 0 or re.search(r"gen \d", out) or "not_recorded" in out:
    fail(f"--quiet: generation or candidate lines: {out}")
rc, out = run("verbose", "--verbose", terminal=True)
_, cands = generations("verbose")
if rc != 0 or "\033[K" in out or not re.search(r"^island 0 gen \d+: evaluated", out, re.M):
    fail(f"--verbose on a terminal: live line or no plain lines: {out!r}")
for c in cands:
    status = c["status"].decode()
    if not re.search(rf"^island 0: candidate {c['id']} {status}:", out, re.M):
        fail(f"--verbose: no line for candidate {c['id']} ({status}): {out}")
print(f"--quiet, --verbose: {len(cands)} candidate lines")

rc, out = run("both", "--quiet", "--verbose")
if rc != 2 or "exclude each other" not in out or os.path.exists(os.path.join(work, "both.h5")):
    fail(f"--quiet --verbose: exit {rc}: {out}")
print("PASS")
