#!/usr/bin/python3
"""galapagos_report.py RESULTS.h5 [--out DIR] [--cost JSON]: the report of one galapagos run, as a
self-contained HTML page (index.html), the same in Markdown (report.md), and every plot as a PNG
file beside them. `galapagos report` runs it and passes --cost: the family's bytes and flops at
the fitness size (for the roofline chart) and the sizes the search checked. Needs no GPU.
docs/report.md describes every part."""
import argparse
import base64
import html
import json
import math
import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from galapagos_results import ResultsError, load  # noqa: E402

PLOTS = [  # file, title, what it shows
    ("best_vs_wallclock.png", "Best time against wall-clock time", "best median time so far on each island"),
    ("best_vs_evaluations.png", "Best time against evaluations", "best median time after each island's n-th evaluation"),
    ("status_per_generation.png", "Status counts per generation", "outcome of every candidate, by generation (all islands)"),
    ("speedup_distribution.png", "Speedup distribution", "speedup over the fastest baseline of every correct candidate"),
    ("parameter_effects.png", "Each parameter's effect on time", "median time of the correct candidates by parameter value"),
    ("roofline.png", "Roofline", "baselines, winner and population under the measured ceilings at the fitness size"),
    ("migrations.png", "Migration events", "individuals sent between islands, by the sender's generation"),
]


def fmt_time(s):
    if s is None or not isinstance(s, (int, float)) or not math.isfinite(s):
        return "-"
    if s < 1e-3:
        return f"{s * 1e6:.1f} us"
    if s < 1:
        return f"{s * 1e3:.3f} ms"
    return f"{s:.3f} s"


def fmt_num(v, spec=".3g"):
    return format(v, spec) if isinstance(v, (int, float)) and math.isfinite(v) else "-"


# --- plots -----------------------------------------------------------------------------------

def _plt():
    import matplotlib
    matplotlib.use("Agg")  # files only: no display, no GPU
    import matplotlib.pyplot as plt
    plt.rcParams.update({"figure.dpi": 100, "savefig.dpi": 100, "font.size": 9})
    return plt


def _empty(ax, text):
    ax.text(0.5, 0.5, text, ha="center", va="center", transform=ax.transAxes, color="0.4")
    ax.set_xticks([])
    ax.set_yticks([])


def plot_best_vs_wallclock(r, ax):
    g = r.generations
    if g.empty:
        return _empty(ax, "no generation completed")
    for island, rows in g.sort_values(["island", "generation"]).groupby("island"):
        t = rows.best_time_s.where(rows.best_time_s.map(math.isfinite))
        ax.step(rows.wall_time_s, t, where="post", marker="o", ms=3, label=f"island {island}")
    ax.set_xlabel("wall-clock time of the search (s)")
    ax.set_ylabel("best median time (s)")
    ax.set_yscale("log")
    ax.legend(fontsize=7)


def plot_best_vs_evaluations(r, ax):
    c = r.candidates
    if c.empty:
        return _empty(ax, "no candidate evaluated")
    for island, rows in c.sort_values(["island", "generation", "id"]).groupby("island"):
        t = rows.time_median_s.where(rows.status == "ok").astype(float).fillna(math.inf).cummin()
        t = t.where(t.map(math.isfinite))
        ax.step(range(1, len(rows) + 1), t, where="post", label=f"island {island}")
    ax.set_xlabel("evaluations on the island")
    ax.set_ylabel("best median time (s)")
    ax.set_yscale("log")
    ax.legend(fontsize=7)


def plot_status(r, ax):
    c = r.candidates
    if c.empty:
        return _empty(ax, "no candidate evaluated")
    counts = c.groupby(["generation", "status"]).size().unstack(fill_value=0)
    order = (["ok"] if "ok" in counts else []) + sorted(s for s in counts.columns if s != "ok")
    counts = counts[order]
    bottom = [0] * len(counts)
    colors = {"ok": "tab:green"}
    for status in order:
        ax.bar(counts.index, counts[status], bottom=bottom, label=status, color=colors.get(status))
        bottom = [b + v for b, v in zip(bottom, counts[status])]
    ax.set_xlabel("generation")
    ax.set_ylabel("candidates")
    ax.legend(fontsize=7)


def plot_speedup(r, ax):
    s = r.ok().speedup.astype(float)
    s = s[s.map(math.isfinite)]
    if s.empty:
        return _empty(ax, "no speedup measured")
    ax.hist(s, bins=min(30, max(5, len(s) // 2)), color="tab:blue", alpha=0.8)
    ax.axvline(1.0, color="k", ls="--", lw=1, label="fastest baseline")
    best = r.best()
    if best is not None and math.isfinite(best.speedup):
        ax.axvline(best.speedup, color="tab:red", lw=1.5, label=f"winner ({best.speedup:.2f}x)")
    ax.set_xlabel("speedup over the fastest baseline")
    ax.set_ylabel("correct candidates")
    ax.legend(fontsize=7)


def plot_parameters(r, fig):
    ok = r.ok()
    names = [p for p in r.parameters if ok["param_" + p].nunique(dropna=True) > 0] if not ok.empty else []
    if not names:
        return _empty(fig.add_subplot(1, 1, 1), "no correct candidate with parameters")
    cols = min(3, len(names))
    rows = math.ceil(len(names) / cols)
    fig.set_size_inches(4.2 * cols, 2.8 * rows)
    for i, name in enumerate(names):
        ax = fig.add_subplot(rows, cols, i + 1)
        col = ok["param_" + name]
        values = sorted(col.dropna().unique(), key=lambda v: (isinstance(v, str), v))
        data = [ok.time_median_s[col == v].astype(float).values for v in values]
        ax.boxplot(data, labels=[str(v) for v in values], showfliers=False)
        for k, d in enumerate(data):
            ax.scatter([k + 1] * len(d), d, s=8, alpha=0.5, color="tab:blue")
        ax.set_title(name, fontsize=9)
        ax.set_yscale("log")
        if i % cols == 0:
            ax.set_ylabel("median time (s)")
    fig.tight_layout()


def plot_roofline(r, ax, cost):
    m = r.machine
    bw = float(m.bandwidth_gbs.max()) if not m.empty else float("nan")
    f32 = cost and cost.get("dtype") == "float32" and "peak_gflops_f32" in m.columns
    peak = float((m.peak_gflops_f32 if f32 else m.peak_gflops).max()) if not m.empty else float("nan")
    if not cost or not cost.get("bytes") or not (bw > 0 and peak > 0):
        return _empty(ax, "no cost model or measured ceilings: run through `galapagos report`")
    nbytes, flops = float(cost["bytes"]), float(cost.get("flops") or 0)
    points = []  # (label, time, style)
    for _, c in r.ok().iterrows():
        points.append(("population", float(c.time_median_s)))
    for _, b in r.baselines[r.baselines.status == "ok"].iterrows():
        points.append(("baseline " + b["name"], float(b.time_median_s)))
    best = r.best()
    wt = r.winner.get("time_median_s")
    if best is not None:
        points.append(("winner", float(wt) if isinstance(wt, float) and math.isfinite(wt) else float(best.time_median_s)))
    if flops > 0:  # classic roofline: attained GFLOP/s against arithmetic intensity
        ai = flops / nbytes
        xs = [ai / 64, ai * 64, peak / bw]
        x = sorted(set([min(xs), max(xs)] + [peak / bw]))
        ax.plot(x, [min(peak, bw * v) for v in x], color="k", lw=1.5, label=f"ceilings: {bw:.0f} GB/s, {peak:.0f} GFLOP/s")
        y = lambda t: flops / t / 1e9  # noqa: E731
        ax.set_xlabel("arithmetic intensity (flop/byte, cost model)")
        ax.set_ylabel("attained GFLOP/s")
        ax.set_xscale("log")
        xpos = ai
    else:  # no flops in the cost model: attained bandwidth against the bandwidth ceiling
        ax.axhline(bw, color="k", lw=1.5, label=f"bandwidth ceiling {bw:.0f} GB/s")
        y = lambda t: nbytes / t / 1e9  # noqa: E731
        ax.set_ylabel("attained GB/s (cost model bytes / time)")
        ax.set_xticks([])
        xpos = 0.5
    pop = [y(t) for label, t in points if label == "population" and t > 0]
    if pop:
        ax.scatter([xpos] * len(pop), pop, s=14, alpha=0.4, color="tab:blue", label="population (correct)")
    markers = iter("sD^v<>phH8")
    for label, t in points:
        if label.startswith("baseline") and t > 0:
            ax.scatter([xpos], [y(t)], marker=next(markers, "s"), s=50, label=label, zorder=3)
    for label, t in points:
        if label == "winner" and t > 0:
            ax.scatter([xpos], [y(t)], marker="*", s=160, color="tab:red", label="winner", zorder=4)
    ax.set_yscale("log")
    ax.legend(fontsize=7, loc="lower right")


def plot_migrations(r, ax):
    mg = r.migrations
    if mg.empty:
        return _empty(ax, "no migration (one island, or migration off)")
    islands = sorted(set(mg.from_island) | set(mg.to_island))
    for _, row in mg.iterrows():
        ok = math.isfinite(row.fitness)
        ax.annotate("", xy=(row.generation + 0.8, row.to_island), xytext=(row.generation, row.from_island),
                    arrowprops=dict(arrowstyle="->", color="tab:green" if ok else "tab:red", alpha=0.6))
    ax.scatter(mg.generation, mg.from_island, s=10, color="k")
    ax.set_xlim(mg.generation.min() - 0.5, mg.generation.max() + 1.5)
    ax.set_ylim(min(islands) - 0.5, max(islands) + 0.5)
    ax.set_yticks(islands)
    ax.set_xlabel("generation of the sender (arrow: sender -> receiver; red: a failed individual)")
    ax.set_ylabel("island")


def make_plots(r, out, cost):
    plt = _plt()
    simple = {"best_vs_wallclock.png": plot_best_vs_wallclock, "best_vs_evaluations.png": plot_best_vs_evaluations,
              "status_per_generation.png": plot_status, "speedup_distribution.png": plot_speedup,
              "migrations.png": plot_migrations}
    for name, title, _ in PLOTS:
        fig = plt.figure(figsize=(6.4, 3.8))
        if name == "parameter_effects.png":
            plot_parameters(r, fig)
        else:
            ax = fig.add_subplot(1, 1, 1)
            if name == "roofline.png":
                plot_roofline(r, ax, cost)
            else:
                simple[name](r, ax)
            ax.set_title(title, fontsize=10)
            fig.tight_layout()
        fig.savefig(os.path.join(out, name))
        plt.close(fig)


# --- text ------------------------------------------------------------------------------------

def winner_facts(r, cost):
    """The winner's parameters and evidence as (title, [(key, value)]) sections."""
    best = r.best()
    w = r.winner
    params = json.loads(best.params) if best.params else {}
    sections = [("Parameters", [(k, str(v)) for k, v in params.items()] or [("(none)", "")])]
    ev = [("candidate", f"{best.id} (island {best.island}, generation {best.generation}, {best.origin})")]
    if w:
        ev.append(("final check", f"{w.get('status', '-')}" + (f": {w['reason']}" if w.get("reason") else "")))
        ev.append(("method", str(w.get("method", "-"))))
        if w.get("beat_baseline") in (0, 1):
            ev.append(("outcome", f"{'beat' if w['beat_baseline'] == 1 else 'did not beat'} the fastest baseline, "
                                  f"{w.get('fastest_baseline', '?')}, in the final interleaved comparison"))
    seeds = (cost or {}).get("seeds")
    sizes = (cost or {}).get("accept_sizes")
    if sizes:
        ev.append(("sizes checked", f"{len(sizes)} acceptance sizes x {seeds or '?'} seed{'' if seeds == 1 else 's'} each: " + "; ".join(sizes)))
    if (cost or {}).get("fitness"):
        ev.append(("timed at", cost["fitness"]))
    src = w if w else {}
    rel = src.get("rel_error", best.rel_error)
    ev.append(("error against the reference", f"{fmt_num(rel, '.3e')} (max |out-ref| / max |ref|; tolerance "
                                               f"{r.attrs.get('tolerance', '?')})"))
    t = {k: src.get(k, best.get(k)) for k in ("time_median_s", "time_min_s", "time_spread_s", "repetitions")}
    spread = t["time_spread_s"] / t["time_median_s"] if t["time_median_s"] else float("nan")
    ev.append(("timing", f"median {fmt_time(t['time_median_s'])}, min {fmt_time(t['time_min_s'])}, IQR "
                         f"{fmt_time(t['time_spread_s'])} ({fmt_num(100 * spread, '.1f')}% of the median) over "
                         f"{int(t['repetitions']) if isinstance(t['repetitions'], (int, float)) and math.isfinite(t['repetitions']) else '-'} runs"))
    ev.append(("roofline fraction", fmt_num(100 * float(src.get("roofline_fraction", best.roofline_fraction)), ".0f") + "%"))
    sp = []
    for k, v in sorted(w.items()):
        if k.startswith("baseline_") and k.endswith("_median_s") and isinstance(v, float):
            name = k[len("baseline_"):-len("_median_s")]
            sp.append((name, f"{v / t['time_median_s']:.2f}x (baseline {fmt_time(v)}, timed interleaved with the winner)"
                       if math.isfinite(v) and t["time_median_s"] else "baseline failed"))
    if not sp:  # no final comparison: against the baselines measured at the start
        for _, b in r.baselines.iterrows():
            ok = b.status == "ok" and best.time_median_s > 0
            sp.append((b["name"], f"{b.time_median_s / best.time_median_s:.2f}x (baseline {fmt_time(b.time_median_s)})"
                       if ok else f"baseline {b.status}"))
    sections.append(("Evidence", ev))
    sections.append(("Speedup over each baseline", sp or [("(no baseline)", "")]))
    return sections


def run_facts(r):
    a, c = r.attrs, r.candidates
    counts = ", ".join(f"{k} {v}" for k, v in c.status.value_counts().sort_index().items())
    wall = r.generations.groupby("island").wall_time_s.max().max() if not r.generations.empty else float("nan")
    rows = [("family / backend", f"{a.get('family')} / {a.get('backend')}"),
            ("fitness problem", str(a.get("fitness_size", "-"))),
            ("islands", str(a.get("islands", "-"))), ("seed", str(a.get("seed", "-"))),
            ("galapagos", f"{a.get('galapagos_version')} ({a.get('git_revision')})"),
            ("created", str(a.get("created_utc", "-"))),
            ("finished", {True: "yes", False: "no"}.get(a.get("finished"), "-")),
            ("candidates", f"{len(c)}: {counts}"), ("search wall-clock", f"{fmt_num(wall, '.1f')} s (longest island)")]
    for _, m in r.machine.iterrows():
        rows.append((f"island {m.island} machine", f"{m.cpu_model}, {m.cores} cores, {m.bandwidth_gbs:.1f} GB/s, "
                                                    f"{m.peak_gflops:.1f} GFLOP/s"))
    if not r.llm_calls.empty:
        rows.append(("LLM calls", f"{len(r.llm_calls)}"))
    return rows


def _cell(v):
    return str(v).replace("|", "\\|").replace("\n", " ")


def write_markdown(r, out, sections, run_rows, notes):
    lines = [f"# galapagos report: {r.attrs.get('family')} on {r.attrs.get('backend')}", "",
             f"Results file: `{os.path.abspath(r.path)}`", "", "## Run", "", "| | |", "|---|---|"]
    lines += [f"| {_cell(k)} | {_cell(v)} |" for k, v in run_rows]
    lines += ["", "## Winner", ""]
    for title, rows in sections:
        lines += [f"### {title}", "", "| | |", "|---|---|"] + [f"| {_cell(k)} | {_cell(v)} |" for k, v in rows] + [""]
    lines += ["## Plots", ""]
    for name, title, what in PLOTS:
        lines += [f"### {title}", "", f"{what}.", "", f"![{title}]({name})", ""]
    lines += [f"- {n}" for n in notes]
    with open(os.path.join(out, "report.md"), "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")


# Once the page has loaded it records on <body> how many plots it has, how many decoded, and the
# files of those that did not (data-plots, data-plots-loaded, data-plots-broken): a browser
# (tests/integration/report_chromium.py) reads the verdict from the page itself.
CHECK = ("window.addEventListener('load',function(){var p=[].slice.call(document.querySelectorAll('img.plot'));"
         "var bad=p.filter(function(i){return !(i.complete&&i.naturalWidth>0);});"
         "document.body.setAttribute('data-plots',p.length);document.body.setAttribute('data-plots-loaded',p.length-bad.length);"
         "document.body.setAttribute('data-plots-broken',bad.map(function(i){return i.getAttribute('data-file');}).join(' '));});")


def write_html(r, out, sections, run_rows, notes):
    e = html.escape

    def table(rows):
        return "<table>" + "".join(f"<tr><th>{e(k)}</th><td>{e(v)}</td></tr>" for k, v in rows) + "</table>"

    parts = [f"<h1>galapagos report: {e(str(r.attrs.get('family')))} on {e(str(r.attrs.get('backend')))}</h1>",
             f"<p>Results file: <code>{e(os.path.abspath(r.path))}</code></p>", "<h2>Run</h2>", table(run_rows),
             "<h2>Winner</h2>"]
    for title, rows in sections:
        parts += [f"<h3>{e(title)}</h3>", table(rows)]
    parts.append("<h2>Plots</h2>")
    for name, title, what in PLOTS:
        with open(os.path.join(out, name), "rb") as f:  # embedded: the page stands alone
            data = base64.b64encode(f.read()).decode("ascii")
        parts.append(f'<figure><img class="plot" data-file="{name}" src="data:image/png;base64,{data}" alt="{e(title)}">'
                     f"<figcaption>{e(title)}: {e(what)}.</figcaption></figure>")
    if notes:
        parts.append("<ul>" + "".join(f"<li>{e(n)}</li>" for n in notes) + "</ul>")
    style = ("body{font-family:sans-serif;max-width:1100px;margin:2em auto;color:#222}"
             "table{border-collapse:collapse;margin:.5em 0}th,td{border:1px solid #ccc;padding:3px 8px;"
             "text-align:left;vertical-align:top}th{background:#f4f4f4;font-weight:normal}"
             "img.plot{max-width:100%;border:1px solid #eee}figure{margin:1em 0}")
    page = ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>galapagos report: {e(str(r.attrs.get('family')))}</title><style>{style}</style></head>"
            "<body>\n" + "\n".join(parts) + f"\n<script>{CHECK}</script>\n</body></html>\n")
    with open(os.path.join(out, "index.html"), "w", encoding="utf-8") as f:
        f.write(page)


MARKER = ".galapagos-output"  # as apps/galapagos/output_folder.hpp: lists every file galapagos wrote


def check_output_folder(out, option):
    """Raises ResultsError unless `out` may receive the report: absent (in an existing folder), an
    empty folder, or a folder galapagos made (its marker lists every file in it)."""
    if os.path.islink(out):
        raise ResultsError(f"{out}: is a symbolic link: galapagos does not replace it; choose another {option}")
    if not os.path.lexists(out):
        parent = os.path.dirname(os.path.abspath(out))
        if not os.path.isdir(parent):
            raise ResultsError(f"{out}: its folder {parent} does not exist: create it first or choose another {option}")
        if not os.access(parent, os.W_OK | os.X_OK):
            raise ResultsError(f"{out}: cannot write in its folder {parent}: choose another {option}")
        return
    if not os.path.isdir(out):
        raise ResultsError(f"{out}: exists and is not a folder: galapagos does not replace it; choose another {option}")
    entries = sorted(os.listdir(out))
    if not entries:
        return
    mine = None
    try:
        with open(os.path.join(out, MARKER), encoding="utf-8") as f:
            lines = f.read().splitlines()
        if lines and lines[0].startswith("galapagos-output") and "files:" in lines:
            mine = {x for x in lines[lines.index("files:") + 1:] if x}
    except (OSError, UnicodeDecodeError):
        pass
    if mine is None:
        raise ResultsError(f"{out}: is a folder galapagos did not make (no {MARKER} in it): galapagos does not replace it; "
                           f"move it away or choose another {option}")
    for e in entries:
        p = os.path.join(out, e)
        if e != MARKER and (e not in mine or os.path.islink(p) or not os.path.isfile(p)):
            raise ResultsError(f"{out}: holds '{e}', which galapagos did not write there: galapagos does not replace the "
                               f"folder; move your files out of it or choose another {option}")


def write_marker(work, made_by):
    files = sorted(os.listdir(work))
    with open(os.path.join(work, MARKER), "w", encoding="utf-8") as f:
        f.write(f"galapagos-output 1\nThis folder was made by {made_by}. galapagos replaces it only while it holds no "
                "other files than\nthese; keep your own files elsewhere.\nfiles:\n" + "".join(x + "\n" for x in files))


def main(argv):
    ap = argparse.ArgumentParser(prog="galapagos report", description="report of one galapagos run: HTML, Markdown, PNG plots")
    ap.add_argument("file", help="results file (HDF5)")
    ap.add_argument("--out", help="output folder (default: FILE without .h5, plus -report)")
    ap.add_argument("--cost", help="JSON: bytes, flops, dtype at the fitness size; accept_sizes, seeds, fitness")
    a = ap.parse_args(argv[1:])
    out = a.out.rstrip("/") or a.out if a.out is not None else os.path.splitext(a.file)[0] + "-report"
    option = "--out"
    try:
        if out == "":
            raise ResultsError("--out '': an empty path: name the output folder")
        cost = json.loads(a.cost) if a.cost else None
        r = load(a.file, require_success=True)
        check_output_folder(out, option)
    except ResultsError as e:
        print(f"galapagos report: {e}", file=sys.stderr)
        return 2
    except ValueError as e:
        print(f"galapagos report: --cost: not JSON ({e})", file=sys.stderr)
        return 2
    # Everything is written to a folder beside the target and renamed into place: an interrupted
    # report never leaves half a page.
    parent = os.path.dirname(os.path.abspath(out))
    try:
        work = tempfile.mkdtemp(prefix=".report-", dir=parent)
    except OSError as e:
        print(f"galapagos report: {out}: cannot write there ({e.strerror or e})", file=sys.stderr)
        return 2
    try:
        notes = []
        if r.attrs.get("finished") is not True:
            notes.append("The run is not finished (stopped or still running): this is its last checkpoint.")
        if not r.winner:
            notes.append("No /winner: the winner was never timed interleaved with the baselines; figures are the search's.")
        elif r.winner.get("beat_baseline") == 0:
            speedup = r.winner.get("speedup")
            slower = f" the winner takes {1 / speedup:.2f}x its time" if isinstance(speedup, float) and speedup > 0 else ""
            notes.append(f"No candidate beat {r.winner.get('fastest_baseline', 'the fastest baseline')}: in the final interleaved "
                         f"comparison{slower or ' the winner was not faster'}. Keep the baseline.")
        make_plots(r, work, cost)
        sections = winner_facts(r, cost)
        run_rows = run_facts(r)
        write_markdown(r, work, sections, run_rows, notes)
        write_html(r, work, sections, run_rows, notes)
        write_marker(work, f"galapagos report {os.environ.get('GALAPAGOS_VERSION', '')} from {os.path.abspath(a.file)}")
        check_output_folder(out, option)  # again: it may have changed while the report was drawn
        if os.path.isdir(out):
            shutil.rmtree(out)
        os.rename(work, out)
    except ResultsError as e:
        shutil.rmtree(work, ignore_errors=True)
        print(f"galapagos report: {e}", file=sys.stderr)
        return 2
    except BaseException:
        shutil.rmtree(work, ignore_errors=True)
        raise
    print(f"report: {os.path.join(out, 'index.html')} (and report.md, {len(PLOTS)} plots)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
