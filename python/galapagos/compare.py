"""python3 -m galapagos.compare A.h5 B.h5 ... [DIR ...] [--plot FILE.png] [--csv FILE]: one table
across runs (what `galapagos compare` prints): per results file its family and backend, search
strategy, node, evaluations (and how many failed), the best time, its speedup over the run's
fastest baseline, its roofline fraction, and whether the run finished. A folder stands for every
.h5 file in it (the output folder of a Slurm job array). --plot draws the speedups and best times
side by side (matplotlib); --csv writes the table. A file that cannot be read is one line naming
it and exit 2, before anything is printed."""
import argparse
import json
import math
import os
import re
import sys

from .results import ResultsError, load

COLUMNS = ["file", "family", "backend", "strategy", "node", "evaluated", "failed", "best_time_s", "speedup",
           "baseline", "roofline_fraction", "finished"]


def _finite(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def _strategy(attrs):
    """The strategies a run's islands ran, e.g. "forest" or "hybrid+annealing": the root attribute
    strategy_kinds, else (files from before it) the stored config's [strategy] kinds, else its kind,
    else galapagos's default, forest."""
    recorded = attrs.get("strategy_kinds")
    if recorded:
        try:
            kinds = json.loads(recorded)
            if isinstance(kinds, list) and kinds:
                return "+".join(dict.fromkeys(str(k) for k in kinds))
        except ValueError:
            return "?"
    text = attrs.get("config_toml", "") or ""
    try:
        import tomllib
        table = tomllib.loads(text).get("strategy", {})
        kinds = table.get("kinds") or [table.get("kind", "forest")]
        return "+".join(dict.fromkeys(str(k) for k in (kinds if isinstance(kinds, list) else [kinds]))) or "forest"
    except ImportError:  # Python before 3.11: the lines themselves
        m = re.search(r"^\s*kinds\s*=\s*\[([^\]]*)\]", text, re.M)
        if m and re.findall(r'"([^"]+)"', m.group(1)):
            return "+".join(dict.fromkeys(re.findall(r'"([^"]+)"', m.group(1))))
        m = re.search(r'^\s*kind\s*=\s*"([^"]+)"', text, re.M)
        return m.group(1) if m else "forest"
    except ValueError:
        return "?"


def row(r):
    """The comparison row of one loaded run (galapagos.load)."""
    c, w = r.candidates, r.winner
    best = r.best()
    time_s = w.get("time_median_s") if _finite(w.get("time_median_s")) else (best.time_median_s if best is not None else math.nan)
    speedup = w.get("speedup") if _finite(w.get("speedup")) else (best.speedup if best is not None else math.nan)
    roofline = (w.get("roofline_fraction") if _finite(w.get("roofline_fraction"))
                else (best.roofline_fraction if best is not None and "roofline_fraction" in c.columns else math.nan))
    hosts = list(dict.fromkeys(str(h) for h in r.machine.get("host", [])))
    return {"file": r.path, "family": r.attrs.get("family", "?"), "backend": r.attrs.get("backend", "?"),
            "strategy": _strategy(r.attrs), "node": ",".join(hosts) or "?",
            "evaluated": int(len(c)), "failed": int((c.status != "ok").sum()), "best_time_s": float(time_s),
            "speedup": float(speedup), "baseline": w.get("fastest_baseline", ""),
            "roofline_fraction": float(roofline), "finished": bool(r.attrs.get("finished", False))}


def results_files(args):
    """The files named, with each folder replaced by its .h5 files (sorted). ResultsError for a
    folder without any."""
    files = []
    for a in args:
        if os.path.isdir(a):
            found = sorted(os.path.join(a, n) for n in os.listdir(a) if n.endswith(".h5") and
                           os.path.isfile(os.path.join(a, n)))
            if not found:
                raise ResultsError(f"{a}: a folder without .h5 files")
            files += found
        else:
            files.append(a)
    return files


def _seconds(s):
    """As galapagos prints times: "56.0 us", "1.234 ms", "2.500 s"."""
    if not _finite(s):
        return "-"
    return f"{s * 1e6:.1f} us" if s < 1e-3 else f"{s * 1e3:.3f} ms" if s < 1 else f"{s:.3f} s"


def table_lines(rows):
    """The rows as an aligned text table, the fastest best time first."""
    head = ["file", "family/backend", "strategy", "node", "evaluated", "best time", "speedup", "roofline", "state"]
    body = []
    for r in rows:
        body.append([r["file"], f"{r['family']}/{r['backend']}", r["strategy"], r["node"],
                     f"{r['evaluated']} ({r['failed']} failed)", _seconds(r["best_time_s"]),
                     f"{r['speedup']:.2f}x" + (f" over {r['baseline']}" if r["baseline"] else "")
                     if _finite(r["speedup"]) else "-",
                     f"{100 * r['roofline_fraction']:.0f}%" if _finite(r["roofline_fraction"]) else "-",
                     "finished" if r["finished"] else "stopped"])
    widths = [max(len(x) for x in col) for col in zip(head, *body)]
    return ["  ".join(x.ljust(w) for x, w in zip(line, widths)).rstrip() for line in [head] + body]


def plot(rows, path):
    """Speedup and best time per run, side by side, into a PNG file."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    names = [os.path.basename(r["file"]) for r in rows]
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 0.5 * len(rows) + 2), constrained_layout=True)
    left.barh(names, [r["speedup"] if _finite(r["speedup"]) else 0 for r in rows], color="tab:blue")
    left.axvline(1, color="gray", linestyle="--", linewidth=1)
    left.set_xlabel("speedup over the run's fastest baseline")
    right.barh(names, [1e3 * r["best_time_s"] if _finite(r["best_time_s"]) else 0 for r in rows], color="tab:orange")
    right.set_xlabel("best median time (ms)")
    right.set_yticklabels([])
    left.invert_yaxis()
    right.invert_yaxis()
    fig.suptitle(f"galapagos: {len(rows)} runs")
    fig.savefig(path, dpi=100)
    plt.close(fig)


def main(argv):
    ap = argparse.ArgumentParser(prog="galapagos compare", description="one table (and a plot) across galapagos runs")
    ap.add_argument("files", nargs="+", metavar="FILE|DIR", help="results files (HDF5), or folders of them")
    ap.add_argument("--plot", metavar="FILE.png", help="draw speedups and best times into this PNG file (matplotlib)")
    ap.add_argument("--csv", metavar="FILE", help="write the table as CSV")
    a = ap.parse_args(argv[1:])
    try:
        rows = [row(load(f)) for f in results_files(a.files)]
    except ResultsError as e:
        print(f"galapagos compare: {e}", file=sys.stderr)
        return 2
    rows.sort(key=lambda r: (not _finite(r["best_time_s"]), r["best_time_s"] if _finite(r["best_time_s"]) else 0))
    for line in table_lines(rows):
        print(line)
    try:
        if a.csv:
            import pandas as pd
            pd.DataFrame(rows, columns=COLUMNS).to_csv(a.csv, index=False)
            print(f"table: {a.csv}")
        if a.plot:
            plot(rows, a.plot)
            print(f"plot: {a.plot}")
    except OSError as e:
        print(f"galapagos compare: {e.filename or a.plot}: cannot write ({e.strerror or e})", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
