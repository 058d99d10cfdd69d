#!/usr/bin/python3
"""check_search_results.py FILE ISLANDS: asserts what every galapagos search must leave in its
results file, read back with h5py: every candidate has a known status, ok candidates carry a
time, a speedup and a roofline fraction, failed ones NaN; the baselines were measured; with
more than one island a migration happened and the migrant was re-measured on arrival; the
winner was re-checked interleaved with the baselines and is correct; the metadata is typed (schema
2: integers, numbers and flags as HDF5 numbers and h5py booleans) and every column of every table
has a unit."""
import json
import math
import sys

import h5py
import numpy as np

STATUSES = {"ok", "compile_error", "load_error", "forbidden_symbol", "crash", "timeout", "out_of_memory",
            "sandbox_violation", "kernel_error", "wrong_result", "input_modified", "leaked_thread",
            "nondeterministic", "suspect_too_fast", "timer_mismatch", "protocol_error"}

errors = []


def check(cond, what):
    if not cond:
        errors.append(what)


def text(v):
    return v.decode() if isinstance(v, bytes) else v


path, islands = sys.argv[1], int(sys.argv[2])
with h5py.File(path, "r") as f:
    for attr in ("galapagos_version", "config_toml", "created_utc", "family", "backend", "tolerance"):
        check(attr in f.attrs, f"root attribute {attr} missing")
    tolerance = float(f.attrs["tolerance"])
    check(f.attrs.get("schema_version") == 2, f"schema_version {f.attrs.get('schema_version')!r}")
    for attr, kind in (("islands", np.int64), ("seed", np.int64), ("tolerance", np.float64), ("finished", np.bool_)):
        check(type(f.attrs.get(attr)) is kind, f"root attribute {attr}: {f.attrs.get(attr)!r} is not {kind.__name__}")
    check(f.attrs.get("islands") == islands, f"root attribute islands {f.attrs.get('islands')!r}, ran {islands}")
    for name, ds in f.items():
        if isinstance(ds, h5py.Dataset) and ds.dtype.names:
            units = json.loads(ds.attrs["units"])
            check(list(units) == list(ds.dtype.names), f"/{name}: units {units} do not name its columns {ds.dtype.names}")
    cands = f["candidates"][:]
    check(len(cands) > 0, "no candidates")
    ids = set()
    for c in cands:
        status = text(c["status"])
        check(status in STATUSES, f"candidate {c['id']}: unknown status {status!r}")
        check(c["id"] not in ids, f"candidate id {c['id']} twice")
        ids.add(c["id"])
        json.loads(text(c["params"]))
        if status == "ok":
            check(c["time_median_s"] > 0 and c["repetitions"] >= 3, f"candidate {c['id']}: ok without timing")
            check(c["speedup"] > 0 and c["roofline_fraction"] > 0, f"candidate {c['id']}: ok without speedup/roofline")
            check(c["rel_error"] <= tolerance, f"candidate {c['id']}: ok with error {c['rel_error']} > {tolerance}")
            check(text(c["source_hash"]) in f["sources"], f"candidate {c['id']}: source not stored")
        else:
            check(math.isnan(c["speedup"]), f"candidate {c['id']}: failed ({status}) but has a speedup")
            check(text(c["reason"]) != "", f"candidate {c['id']}: failed ({status}) without a reason")
    check({int(c["island"]) for c in cands} == set(range(islands)), "not every island evaluated candidates")
    for isl in range(islands):
        params = [text(c["params"]) for c in cands if c["island"] == isl]
        check(len(params) == len(set(params)), f"island {isl} evaluated a genome twice")
    base = f["baselines"][:]
    check(len(base) >= 1 and all(text(b["status"]) == "ok" and b["time_median_s"] > 0 for b in base),
          "baselines missing or not ok")
    check(len(f["machine"]) == islands and all(m["bandwidth_gbs"] > 0 for m in f["machine"][:]), "machine probe missing")
    check(len(f["generations"]) >= islands, "no generation rows")
    check(len(f["populations"]) > 0, "no population snapshots")
    if islands > 1:
        mig = f["migrations"][:]
        check(len(mig) > 0, "no migration recorded")
        pairs = {(int(m["from_island"]), int(m["to_island"])) for m in mig}
        for isl in range(islands):
            check((isl, (isl + 1) % islands) in pairs, f"no migration from island {isl} to its ring neighbour")
        migrants = [c for c in cands if text(c["origin"]) == "migrant"]
        check(len(migrants) > 0, "no migrant was re-measured on arrival")
        sent = {int(m["candidate_id"]) for m in mig}
        for c in migrants:
            parent = json.loads(text(c["parents"]))
            check(len(parent) == 1 and parent[0] in sent, f"migrant {c['id']} does not name a sent candidate")
    check("winner" in f, "no /winner group")
    if "winner" in f:
        w = f["winner"].attrs
        check(text(w["status"]) == "ok", f"winner failed its final check: {text(w['reason'])}")
        check(w["speedup"] > 0 and w["roofline_fraction"] > 0, "winner without speedup or roofline fraction")
        check(type(w["candidate_id"]) is np.int64 and w["candidate_id"] in ids, "winner is not a recorded candidate")
        check(float(w["beat_baseline"]) == (1.0 if w["speedup"] > 1 else 0.0),
              f"beat_baseline {w['beat_baseline']} disagrees with the winner's speedup {w['speedup']}")

if errors:
    print("\n".join("FAIL: " + e for e in errors))
    sys.exit(1)
print(f"search results ok: {len(cands)} candidates, {islands} islands")
