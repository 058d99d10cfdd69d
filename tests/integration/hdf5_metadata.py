#!/usr/bin/python3
"""hdf5_metadata.py GALAPAGOS CONFIG RECORDING WORKDIR: the results file's metadata a program can
use (docs/hdf5-schema.md, schema 2), and files of schema 1 still read everywhere.

1. A real run's file (RECORDING: the measured two-island search) read with h5py: schema_version 2;
   the attributes of the root, /winner, /sessions/<k>, /checkpoint and /checkpoint/island_<i> in
   their kinds (numpy int64, float64, bool_, str); no text anywhere that holds a number or a flag;
   every table (every compound dataset) has a `units` JSON object naming a known unit for each of
   its columns, in order (seconds for *_s, none for texts, one for every float).
2. The same file rewritten in schema 1's forms (texts at the root, doubles for counters, the
   winner's id as text, units as a sentence, no schema_version): galapagos.load (python/) gives
   the same typed attributes and the same units as for the new file; `galapagos report`, `galapagos
   export` and `galapagos run --replay` read it.
3. A replayed run stopped by SIGTERM and rewritten in schema 1's forms resumes to its end, and
   ends the same as the replayed run straight through (compare_runs.py)."""
import json
import math
import os
import re
import shutil
import signal
import subprocess
import sys
import time

import h5py
import numpy as np

galapagos, config, recording, work = sys.argv[1:5]
here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "..", "python"))
from galapagos import load  # noqa: E402

shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what, flush=True)


def run(args, timeout=300):
    return subprocess.run(args, capture_output=True, text=True, timeout=timeout)


UNITS = {"s", "J", "W", "MHz", "GB/s", "GFLOP/s", "byte", "count", "1", "money", ""}
INT, FLOAT, FLAG, TEXT = np.int64, np.float64, np.bool_, str
# The kinds of the attributes every finished run writes (others may be added; they are checked
# for numbers hidden in texts below).
KINDS = {
    "/": {"schema_version": INT, "islands": INT, "seed": INT, "tolerance": FLOAT, "finished": FLAG,
          "galapagos_version": TEXT, "config_toml": TEXT, "created_utc": TEXT, "family": TEXT, "backend": TEXT,
          "migration_targets": TEXT, "island_kinds": TEXT},
    "/winner": {"candidate_id": INT, "repetitions": INT, "throttled_runs": INT, "speedup": FLOAT,
                "beat_baseline": FLOAT, "time_median_s": FLOAT, "params": TEXT, "status": TEXT},
    "/sessions/0": {"ranks": INT, "baselines_first_row": INT, "baselines_rows": INT, "fastest_baseline_s": FLOAT,
                    "startup_s": FLOAT, "kind": TEXT, "started_utc": TEXT},
    "/checkpoint": {"format_version": INT, "generation": INT, "islands": INT, "budget": INT, "seed": INT,
                    "sessions": INT, "checkpoints_written": INT, "checkpoint_time_s": FLOAT, "replay_delay_s": FLOAT,
                    "replay": TEXT, "written_utc": TEXT},
    "/checkpoint/island_0": {"generation": INT, "evaluated": INT, "failed": INT, "next_candidate_id": INT,
                             "migrants_received_through": INT, "unfinished_rows": INT, "sources_sent": FLAG,
                             "best_time_s": FLOAT, "wall_time_s": FLOAT},
}
NUMBER = re.compile(r"\s*[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?\s*|\s*[+-]?(nan|inf)\s*", re.IGNORECASE)


def check_units(path, name, ds):
    try:
        units = json.loads(ds.attrs.get("units", ""))
    except (TypeError, ValueError):
        check(False, f"{path} {name}: units is not JSON: {ds.attrs.get('units')!r}")
        return
    check(isinstance(units, dict) and list(units) == list(ds.dtype.names),
          f"{path} {name}: units name {list(units) if isinstance(units, dict) else units}, the columns are "
          f"{list(ds.dtype.names)}")
    for column in ds.dtype.names:
        unit, kind = units.get(column), ds.dtype[column]
        known = unit in UNITS or (isinstance(unit, str) and unit.startswith("[") and unit[1:-1] in ds.dtype.names)
        if isinstance(unit, str) and unit.startswith("[/"):  # the unit is a root attribute
            known = ds.file.attrs.get(unit[2:-1]) is not None
        check(known, f"{path} {name}.{column}: unknown unit {unit!r}")
        if column.endswith("_s"):
            check(unit == "s", f"{path} {name}.{column}: unit {unit!r}, not seconds")
        if h5py.check_string_dtype(kind) is not None:
            check(unit == "", f"{path} {name}.{column}: a text with unit {unit!r}")
        if kind.kind == "f":
            check(unit != "", f"{path} {name}.{column}: a number without a unit")


def check_schema_2(path):
    with h5py.File(path, "r") as f:
        check(f.attrs.get("schema_version") == 2, f"{path}: schema_version {f.attrs.get('schema_version')!r}")
        for group, kinds in KINDS.items():
            check(group in f, f"{path}: no {group}")
            attrs = f[group].attrs if group in f else {}
            for key, kind in kinds.items():
                check(type(attrs.get(key)) is kind,
                      f"{path} {group} {key}: {type(attrs.get(key)).__name__} {attrs.get(key)!r}, not {kind.__name__}")
        tables = []

        def visit(name, obj):
            for key, value in obj.attrs.items():
                if isinstance(value, str) and key not in ("git_revision", "units", "description"):
                    check(not NUMBER.fullmatch(value) and value not in ("true", "false"),
                          f"{path} /{name} {key}: a number or a flag stored as text: {value!r}")
            if isinstance(obj, h5py.Dataset) and obj.dtype.names:
                tables.append(name)
                check_units(path, "/" + name, obj)

        visit("", f)
        f.visititems(visit)
        check({"candidates", "baselines", "generations", "machine"} <= set(tables), f"{path}: tables {tables}")
        return tables


def to_schema_1(path):
    """Rewrites the attributes of a file this galapagos wrote as schema 1 stored them."""
    with h5py.File(path, "r+") as f:
        for key, value in list(f.attrs.items()):
            if key == "schema_version":
                del f.attrs[key]
            elif isinstance(value, np.bool_):
                f.attrs[key] = "true" if value else "false"
            elif isinstance(value, (np.integer, np.floating)):
                f.attrs[key] = str(int(value)) if isinstance(value, np.integer) else "%.17g" % value

        def visit(name, obj):
            for key, value in list(obj.attrs.items()):
                if name in ("winner", "checkpoint") and key in ("candidate_id", "seed"):
                    obj.attrs[key] = str(int(value))
                elif isinstance(value, (np.bool_, np.integer)):
                    obj.attrs[key] = np.float64(value)
            if isinstance(obj, h5py.Dataset) and "units" in obj.attrs:
                obj.attrs["units"] = "time_median_s: seconds; NaN = not measured"

        f.visititems(visit)


# --- 1. a real run's file ---------------------------------------------------------------------
tables = check_schema_2(recording)
print(f"schema 2: {recording}: typed attributes, units of {len(tables)} tables", flush=True)

# --- 2. the same file in schema 1's forms, read by every reader ---------------------------------
old = os.path.join(work, "old.h5")
shutil.copy(recording, old)
to_schema_1(old)
with h5py.File(old, "r") as f:
    check(f.attrs["finished"] == "true" and f.attrs["islands"] == "2" and isinstance(f["winner"].attrs["candidate_id"], str)
          and type(f["checkpoint/island_0"].attrs["evaluated"]) is np.float64 and "schema_version" not in f.attrs,
          f"{old} is not in schema 1's forms: {dict(f.attrs)}")
new_r, old_r = load(recording), load(old)
check(new_r.schema_version == 2 and old_r.schema_version == 1, f"schema versions {new_r.schema_version}, {old_r.schema_version}")
want_attrs = {k: v for k, v in new_r.attrs.items() if k != "schema_version"}
check(old_r.attrs == want_attrs, f"loader: root attributes of the old file {old_r.attrs} != {want_attrs}")
for key, kind in (("islands", int), ("seed", int), ("tolerance", float), ("finished", bool)):
    check(type(old_r.attrs[key]) is kind and type(new_r.attrs[key]) is kind, f"loader: {key} is not {kind.__name__}")
same_winner = all(old_r.winner[k] == v or (isinstance(v, float) and math.isnan(v) and math.isnan(old_r.winner[k]))
                  for k, v in new_r.winner.items()) and set(old_r.winner) == set(new_r.winner)
check(same_winner, f"loader: /winner of the old file {old_r.winner} != {new_r.winner}")
check(type(old_r.winner["candidate_id"]) is int and type(old_r.winner["repetitions"]) is int, "loader: winner ids not int")
check(old_r.units == new_r.units and set(new_r.units) == set(tables),
      f"loader: units of the old file {old_r.units} != the new file's {new_r.units}")
check(int(old_r.best().id) == new_r.winner["candidate_id"], "loader: best() of the old file is not the winner")

report = os.path.join(work, "report")
p = run([galapagos, "report", old, "--out", report])
check(p.returncode == 0, f"report of the old file: exit {p.returncode}: {p.stderr[-400:]}")
if p.returncode == 0:
    md = open(os.path.join(report, "report.md"), encoding="utf-8").read()
    check("| finished | yes |" in md and "| islands | 2 |" in md, "report of the old file: run facts (finished, islands)")
    check("not finished" not in md, "report of the old file calls a finished run unfinished")

export = os.path.join(work, "export")
p = run([galapagos, "export", old, "--out", export])
check(p.returncode == 0, f"export of the old file: exit {p.returncode}: {p.stderr[-400:]}")
if p.returncode == 0:
    ev = json.load(open(os.path.join(export, "evidence.json")))
    check(ev["candidate_id"] == new_r.winner["candidate_id"] and ev["is_winner"],
          f"export of the old file did not take its winner: {ev['candidate_id']}")

replayed = os.path.join(work, "replayed.h5")
p = run([galapagos, "run", config, "--replay", old, "--out", replayed, "--budget", "6", "--quiet"])
check(p.returncode == 0, f"a run replaying the old file: exit {p.returncode}: {p.stderr[-400:]}")
if p.returncode == 0:
    check_schema_2(replayed)

# --- 3. a stopped run in schema 1's forms resumes -----------------------------------------------
straight, stopped = os.path.join(work, "straight.h5"), os.path.join(work, "stopped.h5")
common = ["--replay", recording, "--budget", "40"]
p = run([galapagos, "run", config, "--out", straight, "--quiet"] + common)
check(p.returncode == 0, f"the replayed run straight through: exit {p.returncode}: {p.stderr[-400:]}")
proc = subprocess.Popen([galapagos, "run", config, "--out", stopped, "--replay-delay", "0.05"] + common,
                        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
t0 = time.monotonic()
while proc.poll() is None and not os.path.exists(stopped + ".partial") and time.monotonic() - t0 < 120:
    time.sleep(0.01)
time.sleep(0.5)
proc.send_signal(signal.SIGTERM)
out = proc.communicate(timeout=120)[0]
check(proc.returncode == 0 and "stopped: every island is checkpointed" in out, f"the run did not stop: {out[-400:]}")
if proc.returncode == 0 and os.path.exists(stopped):
    with h5py.File(stopped, "r") as f:
        check(f.attrs["finished"].item() is False, "a stopped run is marked finished")
    to_schema_1(stopped)
    p = run([galapagos, "resume", stopped])
    check(p.returncode == 0 and "resuming" in p.stdout, f"resume of the old-form file: exit {p.returncode}: "
                                                        f"{p.stdout[-300:]}{p.stderr[-300:]}")
    same = run([sys.executable, os.path.join(here, "compare_runs.py"), straight, stopped])
    check(same.returncode == 0, f"the resumed old-form run differs from straight through: {same.stdout[-600:]}")
    r = load(stopped)
    check(r.attrs["finished"] is True and r.attrs["islands"] == 1 and r.schema_version == 1,
          f"loader on the resumed old-form file: {r.attrs}")

print("PASS" if not failures else f"{len(failures)} failures")
sys.exit(1 if failures else 0)
