#!/usr/bin/python3
"""check_roundtrip.py FILE: reads a file written by write_sample_results with h5py and pandas
and asserts the exact values that program writes. Prints "roundtrip ok" or exits non-zero."""
import json
import math
import sys

import h5py
import numpy as np
import pandas as pd

NAN = float("nan")
INF = float("inf")

FIELDS = {
    "candidates": ["id", "island", "generation", "origin", "status", "reason", "params",
                   "parents", "source_hash", "compile_time_s", "setup_time_s", "eval_time_s", "time_median_s",
                   "time_min_s", "time_spread_s", "repetitions", "rel_error", "speedup",
                   "baseline_time_s", "roofline_fraction", "device_time_s", "energy_j", "power_w", "sm_clock_mhz",
                   "throttled_runs", "fitness"],
    "baselines": ["name", "status", "reason", "source_hash", "setup_time_s", "time_median_s", "time_min_s",
                  "time_spread_s", "repetitions", "rel_error", "roofline_fraction", "energy_j", "power_w",
                  "sm_clock_mhz", "throttled_runs", "island"],
    "baseline_timings": ["session", "island", "generation", "name", "status", "time_median_s", "time_min_s",
                         "time_spread_s", "repetitions", "wall_time_s"],
    "populations": ["island", "generation", "rank", "candidate_id", "fitness"],
    "migrations": ["generation", "from_island", "to_island", "candidate_id", "params", "fitness", "source_hash"],
    "generations": ["island", "generation", "evaluated", "failed", "best_time_s",
                    "best_speedup", "wall_time_s", "device_busy_s"],
    "profiles": ["candidate_id", "island", "kernel", "launch", "metric", "unit", "value"],
    "machine": ["island", "host", "cpu_model", "cores", "llc_bytes", "bandwidth_gbs",
                "peak_gflops", "peak_gflops_f32"],
}

# Typed (schema 2): texts as str, integers as numpy.int64, numbers as numpy.float64, flags as
# numpy.bool_.
ROOT_ATTRS = {
    "galapagos_version": "0.1.0",
    "config_toml": "[search]\nislands = 2\nseed = 7\n",
    "created_utc": "2024-01-02T03:04:05Z",
    "git_revision": "abc1234",
    "family": "stencil",
    "backend": "openmp",
    "islands": np.int64(2),
    "seed": np.int64(7),
    "objective": "time",
    "fitness_unit": "s",
    "tolerance": np.float64(1e-9),
    "finished": np.bool_(True),
    "schema_version": np.int64(2),
}

# The `units` attribute of each table: a JSON object over every field; fields not named here: "".
UNITS = {
    "candidates": {**{k: "s" for k in ("compile_time_s", "setup_time_s", "eval_time_s", "time_median_s", "time_min_s",
                                      "time_spread_s", "device_time_s", "baseline_time_s")},
                   "repetitions": "count", "rel_error": "1", "speedup": "1", "roofline_fraction": "1",
                   "energy_j": "J", "power_w": "W", "sm_clock_mhz": "MHz", "throttled_runs": "count",
                   "fitness": "[/fitness_unit]"},
    "baselines": {**{k: "s" for k in ("setup_time_s", "time_median_s", "time_min_s", "time_spread_s")},
                  "repetitions": "count", "rel_error": "1", "roofline_fraction": "1", "energy_j": "J", "power_w": "W",
                  "sm_clock_mhz": "MHz", "throttled_runs": "count"},
    "baseline_timings": {**{k: "s" for k in ("time_median_s", "time_min_s", "time_spread_s", "wall_time_s")},
                         "repetitions": "count"},
    "populations": {"fitness": "s"},
    "migrations": {"fitness": "s"},
    "generations": {"evaluated": "count", "failed": "count", "best_time_s": "s", "best_speedup": "1",
                    "wall_time_s": "s", "device_busy_s": "s"},
    "profiles": {"value": "[unit]"},
    "machine": {"cores": "count", "llc_bytes": "byte", "bandwidth_gbs": "GB/s", "peak_gflops": "GFLOP/s",
                "peak_gflops_f32": "GFLOP/s"},
}


def candidate(id_, island, generation, origin, status, reason, params, parents, median,
              speedup):
    ok = status == "ok"
    return dict(
        id=id_, island=island, generation=generation, origin=origin, status=status,
        reason=reason, params=params, parents=parents,
        source_hash="5f3a9c" if id_ == 1 else "",
        compile_time_s=0.5 + 0.125 * id_, setup_time_s=0.0, eval_time_s=2.0 + id_, time_median_s=median,
        time_min_s=median * 0.5 if ok else NAN, time_spread_s=1e-6 if ok else NAN,
        repetitions=11 if ok else 0,
        rel_error=1e-15 if ok else (0.25 if status == "wrong_result" else NAN),
        speedup=speedup, baseline_time_s=0.006, roofline_fraction=0.75 if ok else NAN, device_time_s=1.0 + 0.5 * id_,
        energy_j=0.25 * (id_ + 1) if ok else NAN, power_w=512.5 if ok else NAN,
        sm_clock_mhz=1980.0 if ok else NAN, throttled_runs=id_ % 2, fitness=median if ok else NAN)


EXPECTED = {
    "candidates": [
        candidate(0, 0, 0, "random", "ok", "", '{"TILE": 32, "UNROLL": 1}', "[]", 0.004, 1.5),
        candidate(1, 0, 1, "offspring", "ok", "", '{"TILE": 64, "UNROLL": 4}', "[0]", 0.002, 3.0),
        candidate(2, 1, 0, "random", "wrong_result", 'max rel error 0.25 > 1e-09 (check "ones")',
                  '{"TILE": 8, "UNROLL": 2}', "[]", NAN, NAN),
        candidate(3, 1, 1, "migrant", "compile_error", "error: \u2018tile\u2019 was not declared",
                  '{"TILE": 16, "UNROLL": 8}', "[2]", NAN, NAN),
        candidate(4, 1, 1, "offspring", "timeout", "exceeded 10 s", '{"TILE": 128, "UNROLL": 1}',
                  "[2, 3]", NAN, NAN),
    ],
    "baselines": [
        dict(zip(FIELDS["baselines"],
                 ["naive", "ok", "", "0b1e77", 0.0, 0.006, 0.0055, 2e-5, 11, 0.0, 0.25, 3.5, 600.0,
                  1755.0, 2, 0])),
        dict(zip(FIELDS["baselines"],
                 ["vendor", "crash", "signal 11 (SIGSEGV)", "", NAN, NAN, NAN, NAN, 0, NAN, NAN, NAN,
                  NAN, NAN, 0, 1])),
    ],
    "baseline_timings": [dict(zip(FIELDS["baseline_timings"], row)) for row in
                         [(0, 0, 0, "naive", "ok", 0.006, 0.0055, 2e-5, 11, 1.5),
                          (0, 1, 1, "naive", "timeout", NAN, NAN, NAN, 0, 2.5)]],
    "populations": [dict(zip(FIELDS["populations"], row)) for row in
                    [(0, 1, 0, 1, 0.002), (0, 1, 1, 0, 0.004), (1, 1, 0, 2, INF),
                     (1, 1, 1, 4, INF)]],
    "migrations": [dict(zip(FIELDS["migrations"],
                            (1, 0, 1, 1, '{"TILE": 64, "UNROLL": 4}', 0.002, "5f3a9c")))],
    "generations": [dict(zip(FIELDS["generations"], row)) for row in
                    [(0, 0, 1, 0, 0.004, 1.5, 10.0, 7.5), (0, 1, 1, 0, 0.002, 3.0, 20.5, 16.25),
                     (1, 0, 1, 1, INF, NAN, 11.0, 0.0)]],
    "profiles": [dict(zip(FIELDS["profiles"], row)) for row in
                 [(1, 0, "stencil_kernel<64, 4>(const double*, double*)", 0, "dram__bytes.sum.per_second",
                   "byte/second", 3.5e12),
                  (1, 0, "stencil_kernel<64, 4>(const double*, double*)", 0, "launch__registers_per_thread",
                   "register/thread", 40.0)]],
    "machine": [dict(zip(FIELDS["machine"], row)) for row in
                [(0, "node001", "AMD EPYC 7763 64-Core Processor", 128, 268435456, 204.8, 2048.0, 4096.0),
                 (1, "node002", "Intel\u00ae Xeon\u00ae Platinum 8480+", 112, 110100480, 307.2,
                  3584.0, 7168.0)]],
}

WINNER_ATTRS = {"candidate_id": np.int64(1), "params": '{"TILE": 64, "UNROLL": 4}', "speedup": np.float64(3.0)}

SOURCES = {"5f3a9c": "// candidate 1\nvoid kernel(double* a) { a[0] = 1.0; }\n"}

failures = []


def expect(condition, message):
    if not condition:
        failures.append(message)


def same(got, want):
    if isinstance(want, float):
        return (math.isnan(want) and math.isnan(got)) or got == want
    return got == want


def decode(value):
    """h5py returns variable-length strings inside compounds as bytes."""
    return value.decode("utf-8") if isinstance(value, bytes) else value


def check_table(f, name):
    if name not in f:
        failures.append(f"/{name}: missing")
        return
    ds = f[name]
    expect(ds.ndim == 1 and ds.maxshape == (None,), f"/{name}: not 1-D unlimited: {ds.maxshape}")
    expect(ds.chunks is not None, f"/{name}: not chunked")
    names = list(ds.dtype.names or ())
    expect(names == FIELDS[name], f"/{name}: fields {names} != {FIELDS[name]}")
    expect(isinstance(ds.attrs.get("units"), str) and ds.attrs["units"],
           f"/{name}: no str attribute 'units'")
    try:
        units = json.loads(ds.attrs.get("units", ""))
    except ValueError:
        units = None
    want_units = {field: UNITS[name].get(field, "") for field in FIELDS[name]}
    expect(units == want_units and list(units) == FIELDS[name], f"/{name}: units {units} != {want_units}")
    expect(isinstance(ds.attrs.get("description"), str) and ds.attrs["description"],
           f"/{name}: no str attribute 'description'")
    want_rows = EXPECTED[name]
    expect(ds.shape == (len(want_rows),), f"/{name}: shape {ds.shape} != ({len(want_rows)},)")
    if names != FIELDS[name] or ds.shape != (len(want_rows),):
        return
    for field in names:
        kind = ds.dtype[field]
        if isinstance(want_rows[0][field], str):
            expect(h5py.check_string_dtype(kind) is not None
                   and h5py.check_string_dtype(kind).encoding == "utf-8"
                   and h5py.check_string_dtype(kind).length is None,
                   f"/{name}.{field}: not a variable-length UTF-8 string ({kind})")
        elif isinstance(want_rows[0][field], int):
            expect(kind.kind == "i" and kind.itemsize in (4, 8), f"/{name}.{field}: {kind}")
        else:
            expect(kind == np.float64, f"/{name}.{field}: {kind} is not float64")
    data = ds[()]
    for i, want in enumerate(want_rows):
        for field, value in want.items():
            got = decode(data[i][field])
            if isinstance(value, float):
                got = float(got)
            elif isinstance(value, int):
                got = int(got)
            expect(same(got, value), f"/{name}[{i}].{field}: {got!r} != {value!r}")


def check_pandas(f):
    frame = pd.DataFrame(f["candidates"][()])
    for column in frame.columns:
        if frame[column].dtype == object:
            frame[column] = frame[column].str.decode("utf-8")
    expect(list(frame.columns) == FIELDS["candidates"], f"pandas columns {list(frame.columns)}")
    expect(len(frame) == 5, f"pandas: {len(frame)} rows")
    failed = frame[frame.status != "ok"]
    expect(list(failed.id) == [2, 3, 4], f"pandas: failed ids {list(failed.id)}")
    expect(failed.speedup.isna().all(), "pandas: failed candidates must have NaN speedup")
    best = frame.loc[frame.speedup.idxmax()]
    expect(best.id == 1 and best.params == '{"TILE": 64, "UNROLL": 4}',
           f"pandas: best candidate {best.id} {best.params}")
    expect(frame.reason[3] == "error: \u2018tile\u2019 was not declared",
           f"pandas: reason[3] {frame.reason[3]!r}")


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: check_roundtrip.py FILE")
    path = sys.argv[1]
    try:
        f = h5py.File(path, "r")
    except OSError as e:
        sys.exit(f"{path}: cannot open: {e}")
    with f:
        for key, value in ROOT_ATTRS.items():
            got = f.attrs.get(key)
            expect(type(got) is type(value), f"/ attribute {key}: {type(got).__name__}, not {type(value).__name__}")
            expect(got == value, f"/ attribute {key}: {got!r} != {value!r}")
        for name in FIELDS:
            check_table(f, name)
        expect(sorted(f["sources"].keys()) == sorted(SOURCES), f"/sources: {list(f['sources'])}")
        for key, text in SOURCES.items():
            got = f["sources"][key].asstr()[()]
            expect(got == text, f"/sources/{key}: {got!r} != {text!r}")
        winner = f["winner"].attrs
        for key, value in WINNER_ATTRS.items():
            got = winner.get(key)
            expect(type(got) is type(value) and got == value,
                   f"/winner {key}: {got!r} ({type(got).__name__}) != {value!r}")
        check_pandas(f)
    if failures:
        print(f"{path}: roundtrip FAILED ({len(failures)} mismatches)", file=sys.stderr)
        for message in failures:
            print("  " + message, file=sys.stderr)
        sys.exit(1)
    print("roundtrip ok")


if __name__ == "__main__":
    main()
