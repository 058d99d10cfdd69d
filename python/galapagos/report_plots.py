"""The plots of `galapagos report` (galapagos/report.py), drawn with matplotlib into PNG
files. Times are shown in the unit that suits each plot's data (ns, us, ms or s, named on the
axis); generations and evaluations get integer ticks; the time plots carry the fastest
baseline's line. describe_axes() reads back from each drawn figure what a reader sees (axis
labels, tick labels, legend entries), so that the page can state it and a test can check it."""
import json
import math
import os

from .report_facts import baseline_retimings, fastest_baseline, finite, search_speedup

PLOTS = [  # file, title, what it shows
    ("best_vs_wallclock.png", "Best time against wall-clock time",
     "best median time so far on each island, and the fastest baseline's time, against the search's wall-clock time"),
    ("best_vs_evaluations.png", "Best time against evaluations",
     "best median time after each island's n-th evaluation, and the fastest baseline's time"),
    ("status_per_generation.png", "Status counts per generation", "outcome of every candidate, by generation (all islands)"),
    ("speedup_distribution.png", "Search-time speedup distribution",
     "search-time speedup of every correct candidate: the fastest baseline's time during the search over the "
     "candidate's; the winner marked with its search-time and its final interleaved figure"),
    ("parameter_effects.png", "Each parameter's effect on time", "median time of the correct candidates by parameter value"),
    ("roofline.png", "Roofline", "baselines, winner and population under the measured ceilings at the fitness size"),
    ("migrations.png", "Migration events", "individuals sent between islands, by the sender's generation"),
]

BASELINE_STYLE = dict(color="0.25", ls="--", lw=1.3)


def time_unit(values):
    """(factor, name): the unit in which the median of these times (in seconds) reads between 1
    and 999; seconds when none is a positive finite number."""
    v = sorted(float(x) for x in values if finite(x) and x > 0)
    if not v:
        return 1.0, "s"
    m = v[len(v) // 2]
    for factor, name in ((1e9, "ns"), (1e6, "us"), (1e3, "ms")):
        if m * factor < 1e3:
            return factor, name
    return 1.0, "s"


def run_time_unit(r):
    """The one time unit of every time plot of the report: from the correct candidates' and the
    baselines' times, so that the plots read alike."""
    b = r.baselines[r.baselines.status == "ok"].time_median_s if not r.baselines.empty else []
    return time_unit(list(r.ok().time_median_s) + list(b))


def wall_unit(longest_s):
    """(factor, name) for a wall-clock axis whose longest time is `longest_s` seconds."""
    if finite(longest_s) and longest_s >= 2 * 3600:
        return 1 / 3600, "h"
    if finite(longest_s) and longest_s >= 120:
        return 1 / 60, "min"
    return 1.0, "s"


def _plt():
    import matplotlib
    matplotlib.use("Agg")  # files only: no display, no GPU
    import matplotlib.pyplot as plt
    plt.rcParams.update({"figure.dpi": 100, "savefig.dpi": 100, "font.size": 9})
    return plt


def _plain(v, _pos=None):
    return f"{v:g}"


def _time_axis(ax, scaled, unit, what="median time"):
    """Labels the y axis with the unit; a log scale only when the times span more than a factor 30,
    and plain numbers on the ticks either way (never 1.7e-2 or 10^-2)."""
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter
    ax.set_ylabel(f"{what} ({unit})")
    v = [x for x in scaled if finite(x) and x > 0]
    if v and max(v) / min(v) > 30:
        ax.set_yscale("log")
        ax.yaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
        ax.yaxis.set_major_formatter(FuncFormatter(_plain))
        ax.yaxis.set_minor_formatter(NullFormatter())
    else:
        ax.yaxis.set_major_formatter(FuncFormatter(_plain))


def _integer_ticks(axis):
    from matplotlib.ticker import MaxNLocator
    axis.set_major_locator(MaxNLocator(integer=True))


def _empty(ax, text):
    ax.text(0.5, 0.5, text, ha="center", va="center", transform=ax.transAxes, color="0.4")
    ax.set_xticks([])
    ax.set_yticks([])


def _steps_to(xs, ys, x_end):
    """A step line's points carried on to x_end, so the last value shows as a segment."""
    xs, ys = list(xs), list(ys)
    if xs and finite(x_end) and x_end > xs[-1]:
        xs.append(x_end)
        ys.append(ys[-1])
    return xs, ys


def _baseline_line(ax, r, factor, positions):
    """The fastest baseline on a time plot: a step line per island through its re-timings
    (`positions(island, rows)` gives their x and where the island's line ends), else a horizontal
    line at its start-up time. Returns the plotted times (for the axis range)."""
    name, base_s = fastest_baseline(r)
    retimed = baseline_retimings(r, name)
    scaled = []
    if not retimed.empty:
        label = f"baseline {name} (re-timed each generation)"
        for island, rows in retimed.sort_values(["island", "generation"]).groupby("island"):
            xs, end = positions(island, rows)
            xs, ys = _steps_to(xs, rows.time_median_s * factor, end)
            ax.step(xs, ys, where="post", label=label, **BASELINE_STYLE)
            scaled += ys
            label = None  # one legend entry for every island's line
    elif finite(base_s):
        ax.axhline(base_s * factor, label=f"baseline {name} (timed at the start)", **BASELINE_STYLE)
        scaled.append(base_s * factor)
    return scaled


def plot_best_vs_wallclock(r, ax):
    g = r.generations.sort_values(["island", "generation"])
    if g.empty:
        return _empty(ax, "no generation completed")
    factor, unit = run_time_unit(r)
    wfactor, wname = wall_unit(g.wall_time_s.max())
    scaled = []
    for island, rows in g.groupby("island"):
        t = [x * factor if finite(x) else float("nan") for x in rows.best_time_s]
        scaled += t
        ax.step(rows.wall_time_s * wfactor, t, where="post", marker="o", ms=3, label=f"island {island}")
    scaled += _baseline_line(ax, r, factor, lambda island, rows: (
        rows.wall_time_s * wfactor, g[g.island == island].wall_time_s.max() * wfactor))
    ax.set_xlabel(f"wall-clock time of the search ({wname})")
    _time_axis(ax, scaled, unit, "best median time")
    ax.legend(fontsize=7)


def plot_best_vs_evaluations(r, ax):
    c = r.candidates
    if c.empty:
        return _empty(ax, "no candidate evaluated")
    factor, unit = run_time_unit(r)
    scaled = []
    longest = {}
    for island, rows in c.sort_values(["island", "generation", "id"]).groupby("island"):
        t = rows.time_median_s.where(rows.status == "ok").astype(float).fillna(math.inf).cummin()
        t = [x * factor if finite(x) else float("nan") for x in t]
        scaled += t
        longest[island] = len(rows)
        ax.step(range(1, len(rows) + 1), t, where="post", label=f"island {island}")
    # The re-timing at the start of generation g holds from the island's first evaluation in g.
    scaled += _baseline_line(ax, r, factor, lambda island, rows: (
        [int((c[c.island == island].generation < gen).sum()) + 1 for gen in rows.generation], longest.get(island, 0)))
    ax.set_xlabel("evaluations on the island")
    _integer_ticks(ax.xaxis)
    _time_axis(ax, scaled, unit, "best median time")
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
    _integer_ticks(ax.xaxis)
    _integer_ticks(ax.yaxis)
    ax.legend(fontsize=7)


def plot_speedup(r, ax):
    s = r.ok().speedup.astype(float)
    s = s[s.map(finite)]
    if s.empty:
        return _empty(ax, "no speedup measured")
    ax.hist(s, bins=min(30, max(5, len(s) // 2)), color="tab:blue", alpha=0.8)
    ax.axvline(1.0, color="k", ls="--", lw=1, label="1x: the fastest baseline")
    marks = [1.0, float(s.min()), float(s.max())]
    searched = search_speedup(r)
    if finite(searched):
        ax.axvline(searched, color="tab:red", lw=1.5, label=f"winner, search-time {searched:.2f}x")
        marks.append(searched)
    final = r.winner.get("speedup")
    if finite(final):
        ax.axvline(final, color="tab:purple", ls=":", lw=2,
                   label=f"winner, final interleaved {final:.2f}x over {r.winner.get('fastest_baseline', '?')}")
        marks.append(final)
    lo, hi = min(marks), max(marks)
    pad = 0.05 * (hi - lo or 1)
    ax.set_xlim(lo - pad, hi + pad)
    ax.set_xlabel("search-time speedup over the fastest baseline (x)")
    ax.set_ylabel("correct candidates")
    _integer_ticks(ax.yaxis)
    ax.legend(fontsize=7)


def plot_parameters(r, fig):
    ok = r.ok()
    names = [p for p in r.parameters if ok["param_" + p].nunique(dropna=True) > 0] if not ok.empty else []
    if not names:
        return _empty(fig.add_subplot(1, 1, 1), "no correct candidate with parameters")
    cols = min(3, len(names))
    rows = math.ceil(len(names) / cols)
    fig.set_size_inches(4.2 * cols, 2.8 * rows)
    factor, unit = run_time_unit(r)
    for i, name in enumerate(names):
        ax = fig.add_subplot(rows, cols, i + 1)
        col = ok["param_" + name]
        values = sorted(col.dropna().unique(), key=lambda v: (isinstance(v, str), v))
        data = [ok.time_median_s[col == v].astype(float).values * factor for v in values]
        # Tick labels set apart: boxplot's keyword for them was renamed in matplotlib 3.9
        # (`labels` -> `tick_labels`) and the old one removed later.
        ax.boxplot(data, showfliers=False)
        ax.set_xticks(range(1, len(values) + 1))
        ax.set_xticklabels([str(v) for v in values])
        for k, d in enumerate(data):
            ax.scatter([k + 1] * len(d), d, s=8, alpha=0.5, color="tab:blue")
        ax.set_title(name, fontsize=9)
        _time_axis(ax, [x for d in data for x in d], unit)
        if i % cols:
            ax.set_ylabel("")
    fig.tight_layout()


def plot_roofline(r, ax, cost):
    m = r.machine
    bw = float(m.bandwidth_gbs.max()) if not m.empty else float("nan")
    f32 = cost and cost.get("dtype") == "float32" and "peak_gflops_f32" in m.columns
    peak = float((m.peak_gflops_f32 if f32 else m.peak_gflops).max()) if not m.empty else float("nan")
    if not cost or not cost.get("bytes") or not (bw > 0 and peak > 0):
        return _empty(ax, "no cost model or measured ceilings: run through `galapagos report`")
    nbytes, flops = float(cost["bytes"]), float(cost.get("flops") or 0)
    points = []  # (label, time)
    for _, c in r.ok().iterrows():
        points.append(("population", float(c.time_median_s)))
    for _, b in r.baselines[r.baselines.status == "ok"].iterrows():
        points.append(("baseline " + b["name"], float(b.time_median_s)))
    best = r.best()
    wt = r.winner.get("time_median_s")
    if best is not None:
        points.append(("winner", float(wt) if finite(wt) else float(best.time_median_s)))
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
    _plain_log_ticks(ax)
    ax.legend(fontsize=7, loc="lower right")


def _plain_log_ticks(ax):
    """Plain numbers (0.1, 1, 10) on the log axes of a plot, never 10^-1."""
    from matplotlib.ticker import FuncFormatter, NullFormatter
    for axis, scale in ((ax.xaxis, ax.get_xscale()), (ax.yaxis, ax.get_yscale())):
        if scale == "log":
            axis.set_major_formatter(FuncFormatter(_plain))
            axis.set_minor_formatter(NullFormatter())


def plot_migrations(r, ax):
    mg = r.migrations
    if mg.empty:
        return _empty(ax, "no migration (one island, or migration off)")
    islands = sorted(set(mg.from_island) | set(mg.to_island))
    for _, row in mg.iterrows():
        ok = finite(row.fitness)
        ax.annotate("", xy=(row.generation + 0.8, row.to_island), xytext=(row.generation, row.from_island),
                    arrowprops=dict(arrowstyle="->", color="tab:green" if ok else "tab:red", alpha=0.6))
    ax.scatter(mg.generation, mg.from_island, s=10, color="k")
    ax.set_xlim(mg.generation.min() - 0.5, mg.generation.max() + 1.5)
    ax.set_ylim(min(islands) - 0.5, max(islands) + 0.5)
    ax.set_yticks(islands)
    _integer_ticks(ax.xaxis)
    ax.set_xlabel("generation of the sender (arrow: sender -> receiver; red: a failed individual)")
    ax.set_ylabel("island")


def describe_axes(fig):
    """What a reader sees on each of the figure's axes: labels, tick labels and legend entries."""
    fig.canvas.draw()
    found = []
    for ax in fig.axes:
        legend = ax.get_legend()

        def ticks(axis, lo, hi):
            return [t.get_text() for t, v in zip(axis.get_ticklabels(), axis.get_ticklocs()) if t.get_text() and lo <= v <= hi]
        (x0, x1), (y0, y1) = sorted(ax.get_xlim()), sorted(ax.get_ylim())
        found.append({"title": ax.get_title(), "xlabel": ax.get_xlabel(), "ylabel": ax.get_ylabel(),
                      "xticks": ticks(ax.xaxis, x0, x1), "yticks": ticks(ax.yaxis, y0, y1),
                      "legend": [t.get_text() for t in legend.get_texts()] if legend else []})
    return found


def make_plots(r, out, cost):
    """Draws every plot of PLOTS into `out`; returns {file: describe_axes() of its figure}."""
    plt = _plt()
    simple = {"best_vs_wallclock.png": plot_best_vs_wallclock, "best_vs_evaluations.png": plot_best_vs_evaluations,
              "status_per_generation.png": plot_status, "speedup_distribution.png": plot_speedup,
              "migrations.png": plot_migrations}
    seen = {}
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
        seen[name] = describe_axes(fig)
        plt.close(fig)
    return seen


def axes_json(axes):
    return json.dumps(axes, separators=(",", ":"))
