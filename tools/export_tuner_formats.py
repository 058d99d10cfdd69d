#!/usr/bin/env python3
"""Exports the measured candidates of a galapagos results file to other tuners' formats.

    tools/export_tuner_formats.py RESULTS.h5 --kernel-tuner OUT.json   # Kernel Tuner cache 1.0.0
    tools/export_tuner_formats.py RESULTS.h5 --t4 OUT.json             # T4 results schema 1.0.0

Kernel Tuner cache: one entry per distinct point (its first measurement, as `galapagos
simulate` and replay read it), keyed by the parameter values in tune_params_keys order; times in
milliseconds (`time` = the median, `compile_time` = compile_time_s, `benchmark_time` = the rest
of the evaluation); a failed candidate's `time` is CompilationFailedConfig (compile_error) or
RuntimeFailedConfig (every other failure). tune_params lists the values that were measured, so
Kernel Tuner and `galapagos simulate` infer the same restrictions from the recorded keys.

T4 (the open autotuning results schema): one result per candidate row, with `configuration`,
`times` (seconds), `invalidity` (correct, compile, runtime, correctness, timeout) and the median
as the `time` measurement.

Bad input: one line naming the file and the problem, exit code 2.
"""
import argparse
import json
import math
import os
import sys

# The galapagos package of this tree or installation (python/ beside tools/, share/galapagos/python
# beside share/galapagos/tools), else the one installed in this interpreter.
_package = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "python")
if os.path.isfile(os.path.join(_package, "galapagos", "__init__.py")):
    sys.path.insert(0, _package)
from galapagos import ResultsError, load  # noqa: E402


def fail(path, problem):
    print(f"{path}: {problem}", file=sys.stderr)
    sys.exit(2)


def text(v):
    return v.decode("utf-8") if isinstance(v, bytes) else str(v)


def py_str(v):
    """A value as Python's str() writes it, which is how Kernel Tuner writes cache keys."""
    if isinstance(v, bool):
        return "True" if v else "False"
    return str(v)


def sort_values(values):
    if all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values):
        return sorted(values)
    return sorted(values, key=py_str)


def read_rows(path):
    try:
        r = load(path)  # in a child process: a damaged file is an error naming it, never a crash
    except ResultsError as e:
        fail(path, str(e).split(": ", 1)[-1] if str(e).startswith(f"{path}: ") else str(e))
    meta = {k: str(r.attrs[k]) for k in ("family", "backend", "fitness_size", "galapagos_version", "created_utc") if k in r.attrs}
    machine = str(r.machine.cpu_model.iloc[0]) if "cpu_model" in r.machine.columns and len(r.machine) else ""
    c = r.candidates
    names = list(c.columns)
    for field in ("params", "status", "time_median_s", "compile_time_s", "eval_time_s", "origin"):
        if field not in names:
            fail(path, f"/candidates has no field '{field}'")
    rows = []
    for r in c.to_dict("records"):
        status, origin = text(r["status"]), text(r["origin"])
        if status == "not_recorded" or origin == "winner_recheck":
            continue
        try:
            params = json.loads(text(r["params"]))
        except json.JSONDecodeError:
            fail(path, f"/candidates row {len(rows)}: params is not JSON")
        rows.append({"params": params, "status": status, "reason": text(r["reason"]) if "reason" in names else "",
                     "median_s": float(r["time_median_s"]), "compile_s": float(r["compile_time_s"]),
                     "eval_s": float(r["eval_time_s"]), "rel_error": float(r["rel_error"]) if "rel_error" in names else math.nan})
    if not rows:
        fail(path, "/candidates: no measured candidates to export")
    keys = list(rows[0]["params"])
    for i, row in enumerate(rows):
        if set(row["params"]) != set(keys):
            fail(path, f"/candidates row {i}: other parameters than row 0 (a mixed recording cannot be one space)")
    return rows, keys, meta, machine


def finite(v, default=0.0):
    return v if isinstance(v, float) and math.isfinite(v) else default


def kernel_tuner_cache(rows, keys, meta, machine):
    values = {k: sort_values(list({json.dumps(r["params"][k]): r["params"][k] for r in rows}.values())) for k in keys}
    cache = {}
    for r in rows:
        key = ",".join(py_str(r["params"][k]) for k in keys)
        if key in cache:
            continue  # the first measurement of a point wins
        compile_ms = finite(r["compile_s"]) * 1e3
        bench_ms = max(0.0, finite(r["eval_s"]) * 1e3 - compile_ms)  # eval_time_s includes the build
        entry = dict(r["params"])
        if r["status"] == "ok" and math.isfinite(r["median_s"]):
            entry["time"] = r["median_s"] * 1e3
        else:
            entry["time"] = "CompilationFailedConfig" if r["status"] == "compile_error" else "RuntimeFailedConfig"
        entry.update({"compile_time": compile_ms, "verification_time": 0, "benchmark_time": bench_ms,
                      "strategy_time": 0, "framework_time": 0,
                      "timestamp": meta.get("created_utc", "1970-01-01T00:00:00Z")})
        cache[key] = entry
    return {
        "schema_version": "1.0.0",
        "device_name": machine or "unknown",
        "kernel_name": f"{meta.get('family', 'kernel')}-{meta.get('backend', '')}".rstrip("-"),
        "problem_size": meta.get("fitness_size", ""),
        "tune_params_keys": keys,
        "tune_params": values,
        "objective": "time",
        "cache": cache,
    }


def t4_results(rows, keys, meta):
    invalidity = {"ok": "correct", "compile_error": "compile", "timeout": "timeout", "wrong_result": "correctness"}
    results = []
    for r in rows:
        ok = r["status"] == "ok" and math.isfinite(r["median_s"])
        results.append({
            "timestamp": meta.get("created_utc", ""),
            "configuration": {k: r["params"][k] for k in keys},
            "objectives": ["time"],
            "times": {"compilation_time": finite(r["compile_s"]), "runtimes": [r["median_s"]] if ok else [],
                      "framework": 0.0, "search_algorithm": 0.0,
                      "validation": max(0.0, finite(r["eval_s"]) - finite(r["compile_s"]))},
            "invalidity": "correct" if ok else invalidity.get(r["status"], "runtime"),
            "correctness": 1 if ok else 0,
            "measurements": [{"name": "time", "value": r["median_s"] if ok else "NaN", "unit": "s"}],
        })
    return {"schema_version": "1.0.0", "results": results,
            "metadata": {"timeunit": "seconds", "tool": f"galapagos {meta.get('galapagos_version', '')}".strip()}}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("results")
    ap.add_argument("--kernel-tuner", metavar="OUT.json")
    ap.add_argument("--t4", metavar="OUT.json")
    ap.add_argument("--force", action="store_true", help="replace existing OUT.json files")
    a = ap.parse_args()
    if not a.kernel_tuner and not a.t4:
        ap.error("give --kernel-tuner OUT.json and/or --t4 OUT.json")
    for out in (a.kernel_tuner, a.t4):  # a user's file is never replaced unasked
        if out and (os.path.isdir(out) or (os.path.lexists(out) and not (a.force and os.path.isfile(out)))):
            print(f"export_tuner_formats: {out}: exists{'' if os.path.isfile(out) else ' and is not a file'}: "
                  "choose another name" + (" or pass --force to replace it" if os.path.isfile(out) else ""), file=sys.stderr)
            return 2
    rows, keys, meta, machine = read_rows(a.results)
    if a.kernel_tuner:
        doc = kernel_tuner_cache(rows, keys, meta, machine)
        with open(a.kernel_tuner, "w") as f:
            json.dump(doc, f, indent=1)
        print(f"{a.kernel_tuner}: Kernel Tuner cache, {len(doc['cache'])} points")
    if a.t4:
        doc = t4_results(rows, keys, meta)
        with open(a.t4, "w") as f:
            json.dump(doc, f, indent=1)
        print(f"{a.t4}: T4 results, {len(doc['results'])} rows")


if __name__ == "__main__":
    sys.exit(main())
