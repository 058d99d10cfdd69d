#!/usr/bin/python3
"""compare_runs.py A.h5 B.h5: asserts that two replayed runs of one search reached the same final
state, read back with h5py: every island evaluated the same candidates in the same order (ids,
generations, origins, parameters, parents, statuses, times), kept the same populations after
every generation, sent the same migrants, logged the same progress, and chose the same winner
with the same numbers. Row order across islands is free (islands write as they finish); wall
times and session records may differ. Prints "same final state" or the differences."""
import math
import sys

import h5py


def text(v):
    return v.decode() if isinstance(v, bytes) else v


def value(v):
    """Comparable values: text decoded, NaN (not measured) equal to NaN."""
    v = text(v.item() if hasattr(v, "item") else v)
    return "nan" if isinstance(v, float) and math.isnan(v) else v


def rows(f, table, fields, key):
    out = [tuple(value(r[x]) for x in fields) for r in f[table][:]]
    return sorted(out, key=key)


def state(path):
    with h5py.File(path, "r") as f:
        s = {
            "finished": text(f.attrs.get("finished", "")),
            # per island, in id order = evaluation order
            "candidates": rows(f, "candidates", ["island", "id", "generation", "origin", "params", "parents", "status",
                                                 "time_median_s", "speedup"], key=lambda r: (r[0], r[1])),
            "populations": rows(f, "populations", ["island", "generation", "rank", "candidate_id", "fitness"],
                                key=lambda r: r[:3]),
            "migrations": rows(f, "migrations", ["from_island", "generation", "to_island", "candidate_id", "params", "fitness"],
                               key=lambda r: r[:4]),
            "generations": rows(f, "generations", ["island", "generation", "evaluated", "failed", "best_time_s", "best_speedup"],
                                key=lambda r: r[:2]),
            "winner": {k: value(v) for k, v in f["winner"].attrs.items()}
            if "winner" in f else None,
        }
    return s


a, b = state(sys.argv[1]), state(sys.argv[2])
errors = []
for key in a:
    if a[key] != b[key]:
        if isinstance(a[key], list):
            first = next((i for i, (x, y) in enumerate(zip(a[key], b[key])) if x != y), min(len(a[key]), len(b[key])))
            errors.append(f"{key}: {len(a[key])} vs {len(b[key])} rows; first difference at row {first}: "
                          f"{a[key][first] if first < len(a[key]) else None} vs {b[key][first] if first < len(b[key]) else None}")
        else:
            errors.append(f"{key}: {a[key]} vs {b[key]}")
if not a["candidates"] or a["winner"] is None:
    errors.append("nothing to compare: no candidates or no winner")
if errors:
    print("\n".join("DIFFERENT " + e for e in errors))
    sys.exit(1)
print(f"same final state: {len(a['candidates'])} candidates, {len(a['populations'])} population rows, "
      f"{len(a['migrations'])} migrations, winner {a['winner'].get('candidate_id')}")
