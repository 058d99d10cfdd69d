"""Loads a galapagos results file (docs/hdf5-schema.md) into pandas DataFrames in one call.

    from galapagos import load      # pip install ./python, or python/ on PYTHONPATH
    r = load("results/stencil3d7-cpu.h5")
    r.candidates          # one row per candidate; strings decoded, params as param_<NAME> columns
    r.generations, r.baselines, r.llm_calls, r.populations, r.migrations, r.machine, r.profiles,
    r.baseline_timings    # the fastest baseline re-timed per island and generation (newer files)
    r.attrs, r.winner     # root attributes and /winner, as dicts of typed values (str, int, float, bool)
    r.units               # {table: {column: unit}}: "s", "J", "W", "MHz", "GB/s", "GFLOP/s", "byte",
                          # "count", "1" (ratio), "money", "" (texts, ids), "[unit]" (the row's `unit`)
    r.schema_version      # the file's results schema (1: files without the root attribute)
    r.source(hash)        # a text of /sources

Tables a file lacks (an older file, a run without LLM calls) come back as empty DataFrames with
their usual columns. A file that cannot be read raises ResultsError, whose message is one line
naming the file and the problem. `python3 -m galapagos.results FILE` prints a summary.
docs/analysis.md has a worked example."""
import json
import math
import os
import pickle
import re
import signal
import subprocess
import sys
from dataclasses import dataclass, field, fields

import numpy as np
import pandas as pd

__all__ = ["load", "Results", "ResultsError", "reader_version"]

# Columns of the tables a file may lack, so that an empty frame still has them.
_COLUMNS = {
    "llm_calls": ["id", "island", "generation", "variation", "turn", "tool", "model", "status", "reason", "http_status",
                  "attempts", "prompt_tokens", "completion_tokens", "cost", "latency_s", "edits_applied",
                  "edits_failed", "outcome", "candidate_id", "prompt", "response"],
    "profiles": ["candidate_id", "island", "kernel", "launch", "metric", "unit", "value"],
    "migrations": ["generation", "from_island", "to_island", "candidate_id", "params", "fitness", "source_hash"],
    "populations": ["island", "generation", "rank", "candidate_id", "fitness"],
    "generations": ["island", "generation", "evaluated", "failed", "best_time_s", "best_speedup", "wall_time_s",
                    "device_busy_s"],
    "baselines": ["name", "status", "reason", "source_hash", "time_median_s", "time_min_s", "time_spread_s",
                  "repetitions", "rel_error", "roofline_fraction", "island"],
    "machine": ["island", "host", "cpu_model", "cores", "llc_bytes", "bandwidth_gbs", "peak_gflops"],
    "baseline_timings": ["session", "island", "generation", "name", "status", "time_median_s", "time_min_s",
                         "time_spread_s", "repetitions", "wall_time_s"],
}


class ResultsError(Exception):
    """A results file that cannot be read: the message names the file and the problem."""


def _version_tuple(text):
    parts = re.findall(r"\d+", str(text))[:3]
    return tuple(int(p) for p in parts) + (0,) * (3 - len(parts))


def reader_version():
    """This galapagos's version: $GALAPAGOS_VERSION (set by `galapagos report`), else the
    project() version of the source tree this package belongs to (python/galapagos/ in it);
    None when neither is known (an installed package: then every file is read)."""
    if os.environ.get("GALAPAGOS_VERSION"):
        return os.environ["GALAPAGOS_VERSION"]
    cmake = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, os.pardir, "CMakeLists.txt")
    try:
        with open(cmake, encoding="utf-8") as f:
            m = re.search(r"project\(\s*galapagos\s+VERSION\s+([0-9.]+)", f.read())
        return m.group(1) if m else None
    except OSError:
        return None


def _text(v):
    return v.decode("utf-8", "replace") if isinstance(v, bytes) else v


def _attr(v):
    """An attribute as a Python value: str, int, float or bool (numpy scalars unwrapped)."""
    v = _text(v)
    if isinstance(v, np.generic):
        v = v.item()
    return v


# Attributes that are not texts (schema 2 stores them typed). Schema 1 held the root ones as texts
# ("true", "4", "0.001"), /winner's candidate_id as text and its counts as floats: they are read
# into the same types, so a program sees one form whatever wrote the file.
_KINDS = {
    "/": {"islands": int, "seed": int, "tolerance": float, "finished": bool, "schema_version": int},
    "/winner": {"candidate_id": int, "repetitions": int, "throttled_runs": int},
}

# The unit of each column in files of schema 1, whose `units` attribute was a sentence: a column
# has one unit whatever its table. Frozen: schema 2 files carry their own map.
_UNITS_SCHEMA_1 = {
    **dict.fromkeys(("compile_time_s", "setup_time_s", "eval_time_s", "time_median_s", "time_min_s", "time_spread_s",
                     "device_time_s", "fitness", "best_time_s", "wall_time_s", "device_busy_s", "latency_s",
                     "search_s", "evaluating_s", "model_s", "orchestration_s", "mpi_s", "migration_s", "hdf5_s",
                     "logic_s", "baseline_time_s"), "s"),
    **dict.fromkeys(("repetitions", "throttled_runs", "evaluated", "failed", "cores", "attempts", "prompt_tokens",
                     "completion_tokens", "edits_applied", "edits_failed"), "count"),
    **dict.fromkeys(("rel_error", "speedup", "roofline_fraction", "best_speedup"), "1"),
    "energy_j": "J", "power_w": "W", "sm_clock_mhz": "MHz", "llc_bytes": "byte", "bandwidth_gbs": "GB/s",
    "peak_gflops": "GFLOP/s", "peak_gflops_f32": "GFLOP/s", "cost": "money", "value": "[unit]",
    # Columns of /rechecks, newer than schema 1 (its files lack the table; a copy converted to
    # schema 1's forms keeps it, empty).
    **dict.fromkeys(("time_p50_s", "time_p99_s", "baseline_median_s"), "s"), "recorded_speedup": "1",
}


def _as(kind, v):
    """v as kind (bool, int or float), from either schema's form; None when it is not one."""
    if isinstance(v, str):
        v = v.strip()
        if kind is bool:
            return {"true": True, "false": False, "1": True, "0": False}.get(v)
        try:
            return int(v) if kind is int and re.fullmatch(r"[+-]?[0-9]+", v) else _as(kind, float(v))
        except ValueError:
            return None
    if kind is bool:
        return bool(v) if v in (0, 1) else None
    if kind is int:
        return int(v) if isinstance(v, int) or (isinstance(v, float) and v.is_integer()) else None
    return float(v) if isinstance(v, (int, float)) else None


def _typed(path, where, attrs):
    """attrs with the attributes of _KINDS[where] in their types, from either schema's form."""
    out = dict(attrs)
    for key, kind in _KINDS.get(where, {}).items():
        if key in out:
            out[key] = _as(kind, out[key])
            if out[key] is None:
                what = {bool: "a flag", int: "an integer", float: "a number"}[kind]
                raise ResultsError(f"{path}: attribute '{key}' of {where} is not {what} ({attrs[key]!r})")
    return out


def _units(ds, version):
    """A table's {column: unit}: its `units` attribute (schema 2), else schema 1's units."""
    if version >= 2:
        try:
            units = json.loads(_text(ds.attrs.get("units", "")))
        except ValueError:
            units = None
        if isinstance(units, dict):
            return units
    units = {c: _UNITS_SCHEMA_1.get(c, "") for c in (ds.dtype.names or ())}
    if ds.name == "/candidates" and "fitness" in units:  # the objective's unit, a root attribute
        units["fitness"] = "[/fitness_unit]"
    return units


def _frame(ds, name):
    rows = ds[()]
    df = pd.DataFrame(rows) if len(rows) else pd.DataFrame(
        {n: pd.Series(dtype=(object if ds.dtype[n].kind == "O" else ds.dtype[n])) for n in ds.dtype.names})
    for c in df.columns:
        if df[c].dtype == object:
            df[c] = df[c].map(_text)
    return df


@dataclass
class Results:
    path: str
    attrs: dict
    winner: dict
    candidates: pd.DataFrame
    generations: pd.DataFrame
    baselines: pd.DataFrame
    llm_calls: pd.DataFrame
    populations: pd.DataFrame
    migrations: pd.DataFrame
    machine: pd.DataFrame
    profiles: pd.DataFrame
    baseline_timings: pd.DataFrame = field(default_factory=pd.DataFrame)  # empty in files before the table
    parameters: list = field(default_factory=list)  # names of the param_<NAME> columns' parameters
    _sources: dict = field(default_factory=dict, repr=False)
    units: dict = field(default_factory=dict)  # {table: {column: unit}} of every table in the file
    schema_version: int = 1

    def source(self, source_hash):
        """The source text stored under this hash in /sources (None when absent). Raises
        ResultsError when the text does not match its hash (damaged on disk)."""
        text = self._sources.get(source_hash)
        if text is not None and content_hash(text) != source_hash:
            raise ResultsError(f"{self.path}: damaged dataset /sources/{source_hash}: its text does not match its hash; "
                               "the file cannot be read (restore it from a copy)")
        return text

    def ok(self):
        """The candidates that passed every check, fastest first."""
        c = self.candidates
        return c[c.status == "ok"].sort_values(["time_median_s", "id"])

    def best(self):
        """The winner's row of /candidates (/winner's candidate_id), else the fastest correct
        candidate; None when no candidate succeeded."""
        ok = self.ok()
        if ok.empty:
            return None
        try:
            cid = int(self.winner.get("candidate_id"))
        except (TypeError, ValueError, OverflowError):
            cid = None
        if cid is not None and (ok.id == cid).any():
            return ok[ok.id == cid].iloc[0]
        return ok.iloc[0]


def _read_everything(path):
    """Reads every attribute and every dataset of the file whole (in load()'s child).
    Returns None, or one line naming the first object that does not read."""
    import h5py
    try:
        f = h5py.File(path, "r")
    except Exception:  # noqa: BLE001 (not HDF5 at all: the reader says so)
        return None
    reading = "/"
    try:
        with f:
            for _ in f.attrs.items():
                pass
            names = []
            f.visit(names.append)
            for name in names:
                reading = "/" + name
                obj = f[name]
                for _ in obj.attrs.items():
                    pass
                if isinstance(obj, h5py.Dataset):
                    obj[()]
    except Exception as e:  # noqa: BLE001 (the file is damaged: whatever h5py raises)
        checked = False
        try:
            with h5py.File(path, "r") as again:
                checked = reading != "/" and bool(getattr(again[reading], "fletcher32", False))
        except Exception:  # noqa: BLE001
            pass
        kind = "checksum mismatch" if checked and isinstance(e, OSError) else "unreadable"
        first = (str(e).splitlines() or [type(e).__name__])[0]
        return f"damaged dataset {reading} ({kind}): {first}" if reading != "/" else f"damaged file: {first}"
    return None


def content_hash(text):
    """galapagos' content hash of a text (src/util/hash.cpp): the name a source is stored under."""
    mask, prime = (1 << 64) - 1, 0x100000001b3
    a, b = 0xcbf29ce484222325, 0x84222325cbf29ce4
    data = text.encode("utf-8") if isinstance(text, str) else bytes(text)
    for c in data + len(data).to_bytes(8, "little"):
        a = ((a ^ c) * prime) & mask
        b = ((b ^ ((c + 0x5B) & 0xFF)) * prime) & mask
    return f"{a:016x}{b:016x}"


def _open(path):
    import h5py  # Debian's python3-h5py
    if not os.path.exists(path):
        raise ResultsError(f"{path}: no such file")
    if os.path.isdir(path):
        raise ResultsError(f"{path}: is a folder, not a results file")
    try:
        if not h5py.is_hdf5(path):
            raise ResultsError(f"{path}: not an HDF5 file, so not a galapagos results file")
        return h5py.File(path, "r")
    except ResultsError:
        raise
    except (OSError, ValueError) as e:
        raise ResultsError(f"{path}: cannot be read as HDF5 ({str(e).splitlines()[0]})") from None


_TAIL = "; the file cannot be read (restore it from a copy)"


def load(path, require_success=False):
    """Reads the whole results file at `path`. require_success: raise ResultsError when no
    candidate passed its checks (nothing to report or export).

    The file is read in a child process and its tables come back pickled: libhdf5 can crash on a
    damaged file (a flipped bit in a global heap or an object header, which no dataset checksum
    covers), and where it crashes depends on the process's memory, so no check made first could
    promise that reading it here is safe. A crash there is a ResultsError naming the file."""
    path = os.fspath(path)
    if not os.path.exists(path):
        raise ResultsError(f"{path}: no such file")
    if os.path.isdir(path):
        raise ResultsError(f"{path}: is a folder, not a results file")
    # This file run as a script (it imports nothing of the package), so the child finds it however
    # the package was imported.
    argv = [sys.executable, os.path.abspath(__file__), "--load", path] + (["--require-success"] if require_success else [])
    try:
        p = subprocess.run(argv, capture_output=True, timeout=600, env=dict(os.environ, PYTHONDONTWRITEBYTECODE="1"))
    except subprocess.TimeoutExpired:
        raise ResultsError(f"{path}: damaged file: reading it did not finish within 600 s{_TAIL}") from None
    if p.returncode < 0:
        try:
            name = signal.Signals(-p.returncode).name
        except ValueError:
            name = f"signal {-p.returncode}"
        raise ResultsError(f"{path}: damaged file: reading it crashed the HDF5 library ({name}){_TAIL}")
    err = [line for line in p.stderr.decode("utf-8", "replace").splitlines() if line.strip()]
    if p.returncode == 2 and err:
        raise ResultsError(err[-1])
    if p.returncode != 0:
        raise ResultsError(f"{path}: cannot be read (the reading process ended with status {p.returncode}"
                           f"{': ' + err[-1] if err else ''})")
    return Results(**pickle.loads(p.stdout))


def _load_child(path, require_success):
    """load()'s child: reads every object once (the damaged one is named), then the tables;
    writes them pickled to stdout. Exit 2 with the message on stderr for a ResultsError."""
    try:
        problem = _read_everything(path)
        if problem:
            raise ResultsError(f"{path}: {problem}{_TAIL}")
        r = _load_here(path, require_success)
    except ResultsError as e:
        print(str(e), file=sys.stderr)
        return 2
    sys.stdout.buffer.write(pickle.dumps({f.name: getattr(r, f.name) for f in fields(r)}, protocol=pickle.HIGHEST_PROTOCOL))
    return 0


def _load_here(path, require_success=False):
    with _open(path) as f:
        attrs = _typed(path, "/", {k: _attr(v) for k, v in f.attrs.items()})
        if "galapagos_version" not in attrs or "candidates" not in f:
            raise ResultsError(f"{path}: not a galapagos results file (no root attribute galapagos_version "
                               "or no /candidates table)")
        mine = reader_version()
        if mine and _version_tuple(attrs["galapagos_version"]) > _version_tuple(mine):
            raise ResultsError(f"{path}: written by galapagos {attrs['galapagos_version']}, newer than this "
                               f"galapagos {mine}: read it with galapagos {attrs['galapagos_version']} or later")
        reading = "/"
        try:
            tables = {}
            for name in ("candidates", *_COLUMNS):
                reading = "/" + name
                if name in f and hasattr(f[name], "dtype") and f[name].dtype.names:
                    tables[name] = _frame(f[name], name)
                else:
                    tables[name] = pd.DataFrame({c: pd.Series(dtype=object) for c in _COLUMNS[name]})
            reading = "/winner"
            winner = _typed(path, "/winner", {k: _attr(v) for k, v in f["winner"].attrs.items()}) if "winner" in f else {}
            version = attrs.get("schema_version", 1)
            units = {}
            for name in f:
                reading = "/" + name
                if hasattr(f[name], "dtype") and f[name].dtype.names:
                    units[name] = _units(f[name], version)
            sources = {}
            for k in (f["sources"] if "sources" in f else []):
                reading = "/sources/" + k
                sources[k] = _text(f["sources"][k][()])
        except (OSError, KeyError, ValueError, RuntimeError) as e:
            # A chunk that fails its Fletcher-32 checksum (docs/hdf5-schema.md) ends up here.
            try:
                checked = reading != "/" and bool(getattr(f[reading], "fletcher32", False))
            except Exception:  # noqa: BLE001 (the file is damaged: whatever h5py raises)
                checked = False
            kind = "checksum mismatch" if checked and isinstance(e, OSError) else "unreadable"
            raise ResultsError(f"{path}: damaged dataset {reading} ({kind}): {str(e).splitlines()[0]}; the file cannot be "
                               "read (restore it from a copy)") from None
    cand = tables["candidates"]
    for need in ("id", "island", "generation", "status", "params", "time_median_s"):
        if need not in cand.columns:
            raise ResultsError(f"{path}: /candidates has no field '{need}': not a galapagos results file")
    params = []
    decoded = []
    for text in cand["params"]:
        try:
            p = json.loads(text) if text else {}
        except ValueError:
            raise ResultsError(f"{path}: /candidates has a params value that is not JSON: {text[:60]!r}") from None
        decoded.append(p)
        params.extend(k for k in p if k not in params)
    for name in params:
        cand["param_" + name] = [p.get(name) for p in decoded]
    if "parents" in cand.columns:
        cand["parents"] = [json.loads(t) if t else [] for t in cand["parents"]]
    r = Results(path, attrs, winner, cand, tables["generations"], tables["baselines"], tables["llm_calls"],
                tables["populations"], tables["migrations"], tables["machine"], tables["profiles"],
                tables["baseline_timings"], params, sources)
    r.units, r.schema_version = units, version
    if require_success and r.best() is None:
        counts = ", ".join(f"{k} {v}" for k, v in cand.status.value_counts().sort_index().items()) or "none evaluated"
        raise ResultsError(f"{path}: no candidate succeeded ({len(cand)} candidates: {counts}): nothing to report")
    return r


def main(argv):
    if len(argv) in (3, 4) and argv[1] == "--load":  # load()'s child
        return _load_child(argv[2], argv[3:] == ["--require-success"])
    if len(argv) != 2 or argv[1] in ("-h", "--help"):
        print("usage: python3 -m galapagos.results RESULTS.h5   (prints the tables' sizes and the best candidate)",
              file=sys.stderr if len(argv) != 2 else sys.stdout)
        return 2 if len(argv) != 2 else 0
    try:
        r = load(argv[1])
    except ResultsError as e:
        print(f"galapagos.results: {e}", file=sys.stderr)
        return 2
    print(f"{r.path}: {r.attrs.get('family')} on {r.attrs.get('backend')}, galapagos {r.attrs.get('galapagos_version')}")
    for name in ("candidates", "generations", "baselines", "baseline_timings", "llm_calls", "populations", "migrations",
                 "machine", "profiles"):
        print(f"  {name:16s} {len(getattr(r, name)):6d} rows")
    for line in summary_lines(r):
        print("  " + line)
    return 0


def _finite(v):
    return isinstance(v, (int, float, np.number)) and not isinstance(v, bool) and math.isfinite(v)


def _seconds(s):
    if not _finite(s):
        return "-"
    for factor, unit in ((1e9, "ns"), (1e6, "us"), (1e3, "ms")):
        if s * factor < 1e3:
            return f"{s * factor:.4g} {unit}"
    return f"{s:.4g} s"


def summary_lines(r):
    """The winner's figures, each with what it is relative to: /winner `speedup` from the final
    interleaved comparison over /winner `fastest_baseline`; the search-time speedup of its
    /candidates row beside it; the node's noise warning when the run recorded one."""
    b = r.best()
    if b is None:
        return ["no candidate succeeded"]
    w = r.winner
    lines = []
    if _finite(w.get("speedup")):
        lines.append(f"winner: candidate {b.id} {b.params}, median {_seconds(w.get('time_median_s'))}: "
                     f"{w['speedup']:.2f}x over {w.get('fastest_baseline', 'the fastest baseline')} "
                     "(final interleaved comparison)")
        search = w.get("search_speedup") if _finite(w.get("search_speedup")) else b.speedup
        if _finite(search):
            lines.append(f"        search-time speedup {search:.2f}x (over the fastest baseline as timed during the search)")
    else:
        lines.append(f"best: candidate {b.id} {b.params}, median {_seconds(b.time_median_s)}: search-time speedup "
                     f"{b.speedup:.2f}x over the fastest baseline as timed during the search (no final interleaved "
                     "comparison in the file)")
    if _finite(w.get("baseline_drift")):
        lines.append(f"baseline drift {w['baseline_drift']:.2f}x (slowest / fastest re-timing of "
                     f"{w.get('fastest_baseline', 'the fastest baseline')})")
    if isinstance(w.get("noise"), str) and w["noise"].strip():
        lines.append("warning: " + w["noise"].strip())
    return lines


if __name__ == "__main__":
    sys.exit(main(sys.argv))
