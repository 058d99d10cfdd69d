#!/usr/bin/python3
"""results_bad_inputs.py GALAPAGOS RESULTS.h5 WORKDIR: `galapagos report`, `galapagos export` and
the galapagos package's loader (python/galapagos/results.py) on files they cannot use: missing, a folder, a text file, an HDF5 file
that galapagos did not write, a file from a newer galapagos, a run with no successful candidate, a
/winner whose candidate_id is no integer (in any form a schema stored it).
Each must give exit 2 and one line on stderr naming the file and the problem, no traceback, and
write nothing."""
import os
import shutil
import subprocess
import sys

import h5py
import numpy as np

galapagos, results, work = sys.argv[1:4]
package = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "python")
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
failures = []

text_file = os.path.join(work, "notes.h5")
open(text_file, "w").write("these are not results\n")
foreign = os.path.join(work, "foreign.h5")
with h5py.File(foreign, "w") as f:
    f["data"] = np.arange(10)
    f.attrs["creator"] = "someone else"
newer = os.path.join(work, "newer.h5")
shutil.copy(results, newer)
with h5py.File(newer, "r+") as f:
    f.attrs["galapagos_version"] = "99.0.0"
nothing_ok = os.path.join(work, "nothing_ok.h5")
shutil.copy(results, nothing_ok)
with h5py.File(nothing_ok, "r+") as f:
    rows = f["candidates"][:]
    for i in range(len(rows)):
        rows[i]["status"] = b"wrong_result"
        rows[i]["reason"] = b"max rel error 1 > 1e-12"
    f["candidates"][:] = rows
    del f["winner"]
bad_winner = os.path.join(work, "bad_winner.h5")
shutil.copy(results, bad_winner)
with h5py.File(bad_winner, "r+") as f:
    f["winner"].attrs["candidate_id"] = "the first"

cases = [  # file, what the line must say
    (os.path.join(work, "missing.h5"), "no such file"),
    (work, "is a folder"),
    (text_file, "not an HDF5 file"),
    (foreign, "not a galapagos results file"),
    (newer, "newer than this galapagos"),
    (nothing_ok, "no candidate succeeded"),
    (bad_winner, "attribute 'candidate_id' of /winner is not an integer"),
]
commands = {
    "report": lambda f, out: [galapagos, "report", f, "--out", out],
    "export": lambda f, out: [galapagos, "export", f, "--out", out],
    "loader": lambda f, out: ["/usr/bin/python3", os.path.join(package, "galapagos", "results.py"), f],
}
for name, cmd in commands.items():
    for path, want in cases:
        if name == "loader" and want == "no candidate succeeded":
            continue  # the loader reads such a file: analysing failures is its job
        out = os.path.join(work, f"out-{name}")
        p = subprocess.run(cmd(path, out), capture_output=True, text=True, timeout=120)
        lines = p.stderr.strip().splitlines()
        problem = None
        if p.returncode != 2:
            problem = f"exit {p.returncode}, expected 2"
        elif len(lines) != 1:
            problem = f"{len(lines)} lines on stderr, expected 1"
        elif want not in lines[0] or path not in lines[0]:
            problem = f"the line does not name the file and say '{want}'"
        elif "Traceback" in p.stderr:
            problem = "a traceback"
        elif os.path.exists(out) or any(n.startswith((".report-", ".export-")) for n in os.listdir(work)):
            problem = "something was written"
        if problem:
            failures.append(f"{name} {os.path.basename(path)}: {problem}: {p.stderr!r}")
        else:
            print(f"ok: {name} {os.path.basename(path)}: {lines[0]}")

# The loader as a module raises ResultsError with the same line.
sys.path.insert(0, package)
from galapagos import ResultsError, load  # noqa: E402

try:
    load(newer)
    failures.append("load() accepted a file from a newer galapagos")
except ResultsError as e:
    if "newer than this galapagos" not in str(e):
        failures.append(f"load(): {e}")
try:
    load(nothing_ok, require_success=True)
    failures.append("load(require_success=True) accepted a run without a successful candidate")
except ResultsError as e:
    if "no candidate succeeded" not in str(e):
        failures.append(f"load(require_success): {e}")
if load(nothing_ok).best() is not None:
    failures.append("best() of a run without a successful candidate is not None")

for f in failures:
    print(f"FAIL: {f}")
print("PASS" if not failures else f"{len(failures)} failures")
sys.exit(1 if failures else 0)
