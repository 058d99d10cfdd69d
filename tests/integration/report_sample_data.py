"""A copy of a real run's results file given what newer galapagos versions write beside it, for
the report tests (report_chromium.py, report_figures.py): /baseline_timings (the fastest
baseline re-timed per island at the start of each generation, one re-timing failed), the
/candidates column baseline_time_s, and the /winner attributes search_speedup, baseline_drift
and noise. The baseline's re-timings drift upwards by a known factor, so the report must show
a drift and a noise warning. With migrant_winner, /winner is moved to an ok migrant whose parent
is in /candidates, so that the winner's lineage has two steps (sent by another island)."""
import json
import shutil

import h5py
import numpy as np

DRIFT = 1.30  # slowest / fastest re-timing written
NOISE = "the node's timings moved during the run: openmp_plain took 1.00x to 1.30x its first time (test data)"


def _attr(v):
    return v.decode() if isinstance(v, bytes) else v


def _rewrite(f, name, rows):
    """Replaces dataset `name` with `rows`, keeping its attributes, chunking and checksums."""
    old = f[name]
    attrs = {k: v for k, v in old.attrs.items()}
    chunks, fletcher = old.chunks or (256,), old.fletcher32
    del f[name]
    ds = f.create_dataset(name, data=rows, maxshape=(None,), chunks=chunks, fletcher32=fletcher)
    for k, v in attrs.items():
        ds.attrs[k] = v


def add_new_data(src, dst, migrant_winner=False):
    """Writes the copy to dst; returns what it wrote: baseline name, drift, the winner's id."""
    shutil.copy(src, dst)
    with h5py.File(dst, "r+") as f:
        w = f["winner"].attrs
        base = _attr(w["fastest_baseline"])
        bl = f["baselines"][()]
        base_s = float([b["time_median_s"] for b in bl if b["name"].decode() == base][0])
        cand = f["candidates"][()]
        gens = f["generations"][()]

        # /baseline_timings: islands x generations of /candidates; the time climbs to DRIFT x.
        s = h5py.string_dtype()
        dt = np.dtype([("session", "<i4"), ("island", "<i4"), ("generation", "<i4"), ("name", s), ("status", s),
                       ("time_median_s", "<f8"), ("time_min_s", "<f8"), ("time_spread_s", "<f8"), ("repetitions", "<i4"),
                       ("wall_time_s", "<f8")])
        rows = []
        for island in sorted(set(int(i) for i in cand["island"])):
            top = int(max(c["generation"] for c in cand if c["island"] == island))
            for g in range(top + 1):
                ends = [r["wall_time_s"] for r in gens if r["island"] == island and r["generation"] == g]
                wall = float(ends[0]) if g and ends else 0.5 * (g + 1)
                t = base_s * (1 + (DRIFT - 1) * g / max(top, 1))
                rows.append((0, island, g, base, "ok", t, 0.9 * t, 0.05 * t, 5, wall))
            rows.append((0, island, top + 1, base, "timeout", np.nan, np.nan, np.nan, 0, rows[-1][-1] + 1.0))
        if "baseline_timings" in f:  # a run of this galapagos: its own re-timings give way to the drifting ones
            del f["baseline_timings"]
        f.create_dataset("baseline_timings", data=np.array(rows, dtype=dt), maxshape=(None,), chunks=(256,))
        f["baseline_timings"].attrs["units"] = "time_median_s, time_min_s, time_spread_s, wall_time_s: seconds"

        # /candidates gets baseline_time_s: speedup = baseline_time_s / time_median_s.
        names = [n for n in cand.dtype.names if n != "baseline_time_s"]
        dt = np.dtype([(n, cand.dtype[n]) for n in names] + [("baseline_time_s", "<f8")])
        grown = np.zeros(len(cand), dtype=dt)
        for n in names:
            grown[n] = cand[n]
        grown["baseline_time_s"] = cand["speedup"] * cand["time_median_s"]
        _rewrite(f, "candidates", grown)

        winner = int(_attr(w["candidate_id"]))
        if migrant_winner:
            ids = set(int(i) for i in cand["id"])
            moved = [c for c in cand if c["origin"] == b"migrant" and c["status"] == b"ok"
                     and json.loads(c["parents"] or b"[]") and json.loads(c["parents"])[0] in ids]
            if not moved:
                raise SystemExit("FAIL: the recording has no correct migrant whose parent is in /candidates")
            c = moved[0]
            winner = int(c["id"])
            w["candidate_id"] = str(winner)
            for k in ("params", "origin", "source_hash"):
                w[k] = c[k].decode()
        row = [c for c in cand if int(c["id"]) == winner][0]
        w["search_speedup"] = float(row["speedup"])
        w["baseline_drift"] = DRIFT
        w["noise"] = NOISE
    return {"baseline": base, "drift": DRIFT, "winner": winner, "noise": NOISE}
