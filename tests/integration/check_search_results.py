#!/usr/bin/python3
"""check_search_results.py FILE ISLANDS: asserts what every galapagos search must leave in its
results file, read back with h5py: every candidate has a known status, ok candidates carry a
time, a speedup and a roofline fraction, failed ones NaN; the baselines were measured; with
more than one island a migration happened and the migrant was re-measured on arrival; every
island re-timed the fastest baseline at each generation and its candidates' speedups divide by
that time; the winner was re-checked interleaved with the baselines and is correct, and /winner's
search-time speedup, drift and noise warning agree with the rows; on the CPU the winner and
the baselines carry a fraction of the floor measured side by side with the final rounds; the metadata is typed (schema
2: integers, numbers and flags as HDF5 numbers and h5py booleans) and every column of every table
has a unit."""
import collections
import json
import math
import re
import sys
import tomllib

import h5py
import numpy as np

STATUSES = {"ok", "compile_error", "load_error", "forbidden_symbol", "crash", "timeout", "out_of_memory",
            "sandbox_violation", "kernel_error", "wrong_result", "input_modified", "leaked_thread",
            "nondeterministic", "suspect_too_fast", "timer_mismatch", "protocol_error",
            "not_recorded"}  # a replayed run's candidate the recording lacks

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
    # The lineage: every offspring the GA bred names the one or two candidates it came from.
    # (A model-based strategy, the default forest among them, proposes from every measured point
    # and names no parents.)
    strategy = tomllib.loads(text(f.attrs["config_toml"])).get("strategy", {})
    ga_only = set(strategy.get("kinds", [strategy.get("kind", "forest")])) == {"ga"}
    for c in cands:
        if text(c["origin"]) == "offspring":
            parents = json.loads(text(c["parents"]))
            check((parents or not ga_only) and len(parents) <= 2 and all(p in ids and p != c["id"] for p in parents),
                  f"offspring {c['id']}: parents {parents} are not one or two recorded candidates")
    # [strategy] template_first: island 0's first candidate is the template's own point (its
    # #define GLP_ defaults, as a build with the family's flags sees them) whenever the source
    # defines every parameter; no other row is. A default defined through another macro (gemm's
    # per-precision GLP_DEF_ ones) may take any of that macro's definitions here: which one a build
    # sees depends on the conditionals around them, which this check does not evaluate. Defaults
    # the template takes from a header it includes (the CUDA stencil's launcher) are not checked.
    first = min((c for c in cands if c["island"] == 0), key=lambda c: c["id"])
    from_template = [c for c in cands if text(c["origin"]) == "template"]
    check(all(c["id"] == first["id"] for c in from_template), "a template row that is not island 0's first candidate")
    src = f["sources"][text(first["source_hash"])][()] if text(first["source_hash"]) in f["sources"] else b""
    definitions = collections.defaultdict(set)
    for name, value in re.findall(r"#\s*define\s+(\w+)\s+(\S+)", text(src)):
        definitions[name].add(value)

    def values_of(name, depth=0):  # the numbers a macro may stand for
        out = set()
        for v in definitions.get(name, ()):
            if re.fullmatch(r"-?[0-9]+", v):
                out.add(v)
            elif depth < 8 and re.fullmatch(r"[A-Za-z_]\w*", v):
                out |= values_of(v, depth + 1)
        return out

    point = json.loads(text(first["params"]))
    if not strategy.get("template_first", True):
        check(not from_template, "template_first = false, yet a row came from the template")
    elif point and all(values_of("GLP_" + k) for k in point):  # (defaults in an included header: not read here)
        check(from_template and all(str(v) in values_of("GLP_" + k) for k, v in point.items()),
              f"island 0 did not start at the template's point: {point} ({text(first['origin'])})")
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
    # The fastest baseline is re-timed by every island at the start of every generation, and the
    # speedups of that generation's candidates divide by it.
    check("baseline_timings" in f, "no /baseline_timings table")
    timings = f["baseline_timings"][:] if "baseline_timings" in f else []
    fastest = text(f["sessions/0"].attrs["fastest_baseline"])
    check(all(text(t["name"]) == fastest for t in timings), f"a re-timing of another baseline than {fastest}")
    timed = {}  # (island, generation) -> correct re-timings (several when a resumed generation timed it again)
    for t in timings:
        if text(t["status"]) == "ok":
            check(t["time_median_s"] > 0 and t["repetitions"] >= 3, f"re-timing {t} without a timing")
            timed.setdefault((int(t["island"]), int(t["generation"])), set()).add(float(t["time_median_s"]))
    start_up = {float(b["time_median_s"]) for b in base if text(b["name"]) == fastest}
    for c in cands:
        if text(c["status"]) != "ok" or text(c["origin"]) == "winner_recheck":
            continue
        key = (int(c["island"]), int(c["generation"]))
        check(key in timed or not timed, f"candidate {c['id']}: no re-timing of {fastest} for island/generation {key}")
        earlier = set().union(*[v for k, v in timed.items() if k[0] == key[0] and k[1] <= key[1]]) | start_up
        check(float(c["baseline_time_s"]) in earlier,
              f"candidate {c['id']}: its speedup divides by {c['baseline_time_s']}, no re-timing of island {key[0]}")
        check(math.isclose(c["speedup"], c["baseline_time_s"] / c["time_median_s"], rel_tol=1e-9),
              f"candidate {c['id']}: speedup {c['speedup']} is not baseline_time_s / time_median_s")
    check("winner" in f, "no /winner group")
    if "winner" in f:
        w = f["winner"].attrs
        check(text(w["status"]) == "ok", f"winner failed its final check: {text(w['reason'])}")
        check(w["speedup"] > 0 and w["roofline_fraction"] > 0, "winner without speedup or roofline fraction")
        check(type(w["candidate_id"]) is np.int64 and w["candidate_id"] in ids, "winner is not a recorded candidate")
        check(float(w["beat_baseline"]) == (1.0 if w["speedup"] > 1 else 0.0),
              f"beat_baseline {w['beat_baseline']} disagrees with the winner's speedup {w['speedup']}")
        row = [c for c in cands if c["id"] == int(w["candidate_id"])]
        check(row and math.isclose(float(w["search_speedup"]), float(row[0]["speedup"]), rel_tol=1e-12),
              f"/winner search_speedup {w['search_speedup']} is not the winner's row's speedup")
        # The floor side by side: on the CPU the binding ceiling is probed again after every final
        # round, so the winner and each measured baseline carry a fraction of that floor, of the
        # same cost model as roofline_fraction. The two ceilings differ by the node's swings: the
        # run's is the fastest that any probe or baseline run reached, the side-by-side one the
        # median of the probes in the final rounds (4.4x apart on this 2-core VM under a load of
        # four processes); a factor of 10 still catches a unit or a cost model mixed up.
        rounds = float(w.get("roofline_fraction_rounds", math.nan))
        # A replayed run serves the recording's side-by-side figures only when its winner is the
        # recording's winner (a one-island replay of a two-island recording may end on another).
        replayed = "checkpoint" in f and text(f["checkpoint"].attrs.get("replay", "")) != ""
        if replayed and text(w.get("ceiling_rounds", "")) == "":
            pass
        elif text(f.attrs["backend"]) == "cpu":
            check(rounds > 0 and 0.1 < rounds / float(w["roofline_fraction"]) < 10,
                  f"/winner roofline_fraction_rounds {rounds} against roofline_fraction {w['roofline_fraction']}")
            check("one after each round" in text(w.get("ceiling_rounds", "")),
                  f"/winner ceiling_rounds {w.get('ceiling_rounds')!r} does not say what was probed")
            for key in w.keys():
                if key.startswith("baseline_") and key.endswith("_median_s") and math.isfinite(float(w[key])):
                    b = float(w.get(key.replace("_median_s", "_roofline_fraction_rounds"), math.nan))
                    check(b > 0, f"/winner {key} measured without a side-by-side roofline fraction ({b})")
        else:
            check(math.isnan(rounds) and text(w.get("ceiling_rounds", "")) == "",
                  f"/winner side-by-side floor on a {text(f.attrs['backend'])} run: {rounds}, {w.get('ceiling_rounds')!r}")
        ok_times = [float(t["time_median_s"]) for t in timings if text(t["status"]) == "ok"]
        if ok_times:
            check(math.isclose(float(w["baseline_drift"]), max(ok_times) / min(ok_times), rel_tol=1e-12),
                  f"/winner baseline_drift {w['baseline_drift']} is not slowest / fastest re-timing")
            noise = text(w["noise"])
            check((max(ok_times) / min(ok_times) > 1.2) == (f"{fastest} timed between" in noise),
                  f"/winner noise {noise!r} disagrees with the drift {max(ok_times) / min(ok_times):.3f}")

if errors:
    print("\n".join("FAIL: " + e for e in errors))
    sys.exit(1)
print(f"search results ok: {len(cands)} candidates, {islands} islands")
