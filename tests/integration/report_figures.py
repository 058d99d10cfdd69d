#!/usr/bin/python3
"""report_figures.py GALAPAGOS RESULTS.h5 WORKDIR: every reader shows the winner's figure the
same way, with what it is relative to, and needs no browser:
- the report (index.html and report.md) and the loader's summary (python/galapagos/results.py
  FILE) give /winner `speedup` as "<x>x over <fastest_baseline> (final interleaved comparison)",
  and the winner's search-time speedup labelled as such; the histogram's legend names both;
- with /baseline_timings and the /winner noise attributes (report_sample_data.py), the report
  shows the baseline drift and the noise warning, and the loader prints them; without them
  (today's file, and the committed older recording tests/data/spaces/stencil3d7-cpu.h5) the
  report is whole: every section and plot, no warning;
- times in the tables are in human units, never 1.7e-2 s;
- the report folder and its files are readable by the group and others under umask 022 (0755,
  0644), and no more than the umask allows under 027 and 077."""
import html
import json
import math
import os
import re
import shutil
import stat
import subprocess
import sys

import h5py

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
from report_sample_data import add_new_data  # noqa: E402

galapagos, results, work = sys.argv[1:4]
loader = os.path.join(here, "..", "..", "python", "galapagos", "results.py")
older = os.path.join(here, "..", "data", "spaces", "stencil3d7-cpu.h5")
PLOTS = ["best_vs_wallclock.png", "best_vs_evaluations.png", "status_per_generation.png", "speedup_distribution.png",
         "parameter_effects.png", "roofline.png", "migrations.png"]
SECTIONS = ["Run", "Winner", "Parameters", "Evidence", "Speedup over each baseline", "Lineage", "Plots"]


def fail(msg):
    print(f"FAIL: {msg}")
    sys.exit(1)


def report(h5, out, umask=0o022):
    p = subprocess.run([galapagos, "report", h5, "--out", out], capture_output=True, text=True, timeout=180,
                       preexec_fn=lambda: os.umask(umask))
    if p.returncode != 0:
        fail(f"galapagos report {h5} (umask {umask:03o}) exited {p.returncode}: {p.stderr}")
    return open(os.path.join(out, "index.html"), encoding="utf-8").read(), open(os.path.join(out, "report.md"), encoding="utf-8").read()


def winner_of(h5):
    with h5py.File(h5, "r") as f:
        w = {k: (v.decode() if isinstance(v, bytes) else v) for k, v in f["winner"].attrs.items()}
        row = [c for c in f["candidates"][()] if str(int(c["id"])) == str(w["candidate_id"])][0]
    w.setdefault("search_speedup", float(row["speedup"]))
    return w


shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
newer = os.path.join(work, "newer.h5")
add_new_data(results, newer)

for name, h5, new in (("today's file", results, False), ("older recording", older, False), ("newer file", newer, True)):
    out = os.path.join(work, name.replace(" ", "-").replace("'", ""))
    page, md = report(h5, out)
    w = winner_of(h5)
    final = f"{float(w['speedup']):.2f}x over {w['fastest_baseline']} (final interleaved comparison)"
    search = f"{float(w['search_speedup']):.2f}x"

    # Every section and plot, whatever the file's age.
    for s in SECTIONS:
        if f">{s}</h" not in page or not re.search(rf"^#+ {re.escape(s)}$", md, re.M):
            fail(f"{name}: the report has no section {s!r}")
    for plot in PLOTS:
        if f'data-file="{plot}"' not in page or f"]({plot})" not in md:
            fail(f"{name}: the report does not show {plot}")

    # The winner's figure, the same in the page, the Markdown, the histogram and the loader.
    if f"<th>speedup</th><td>{html.escape(final)}</td>" not in page or f"| speedup | {final} |" not in md:
        fail(f"{name}: the evidence does not give the winner's figure as {final!r}")
    if f"<th>search-time speedup</th><td>{search} (" not in page or f"| search-time speedup | {search} (" not in md:
        fail(f"{name}: the evidence does not give the search-time speedup {search}")
    figures = re.findall(r'<figure data-axes="([^"]*)"><img class="plot" data-file="([^"]+)"', page)
    axes = {plot: json.loads(html.unescape(a)) for a, plot in figures}
    legend = axes["speedup_distribution.png"][0]["legend"]
    if f"winner, search-time {search}" not in legend or f"winner, final interleaved {final.split(' (')[0]}" not in legend:
        fail(f"{name}: the histogram's winner marks {legend} are not {search} (search-time) and {final}")
    p = subprocess.run(["/usr/bin/python3", loader, h5], capture_output=True, text=True,
                       timeout=120)
    if p.returncode != 0 or final not in p.stdout or f"search-time speedup {search} (" not in p.stdout:
        fail(f"{name}: the loader's summary does not say {final!r} and the search-time {search}: {p.stdout}{p.stderr}")

    # Drift and noise: shown when the file has them (the augmented file always; a run of today
    # when its node moved), absent otherwise (the older recording never has them).
    drift_s = float(w.get("baseline_drift", float("nan")))
    drift = f"{drift_s:.2f}x"
    noisy = bool(w.get("noise"))
    want = (math.isfinite(drift_s),) * 3 + (noisy,) * 3
    has = ("<th>baseline drift</th><td>" + drift in page, f"| baseline drift | {drift}" in md,
           f"baseline drift {drift}" in p.stdout, 'id="noise-warning"' in page, "> **Warning.**" in md,
           f"warning: {w.get('noise')}" in p.stdout)
    if new and not all(want) or (name == "older recording" and any(want)):
        fail(f"{name}: /winner baseline_drift {drift_s} and noise {w.get('noise')!r}: the test data is not what it should be")
    if has != want:
        fail(f"{name}: drift and noise (page, md, loader; warning in page, md, loader) shown {has}, expected {want}")
    if noisy and html.escape(w["noise"]) not in page:
        fail(f"{name}: the page does not quote /winner noise")

    # Times in human units.
    timing = re.search(r"\| timing[^|]*\| median ([^,]+),", md)
    if not timing or not re.fullmatch(r"[0-9.]+ (ns|us|ms|s)", timing.group(1)):
        fail(f"{name}: the winner's timing is not in a time unit: {timing and timing.group(1)}")
    sci = re.search(r".{0,40}\d[eE][-+]?\d+ ?s\b.{0,10}", md + re.sub(r"base64,[A-Za-z0-9+/=]+", "", page))
    if sci:
        fail(f"{name}: a time in scientific notation: {sci.group(0)}")
    print(f"{name}: {final}, search-time {search}; drift {'shown' if want[0] else 'absent'}, noise "
          f"{'shown' if noisy else 'absent'}; every section and plot")

# The folder and its files: readable by the group and others, never more than the umask allows.
for umask, want_dir, want_file in ((0o022, 0o755, 0o644), (0o027, 0o750, 0o640), (0o077, 0o700, 0o600)):
    out = os.path.join(work, f"umask-{umask:03o}")
    report(results, out, umask)
    modes = {n: stat.S_IMODE(os.stat(os.path.join(out, n)).st_mode) for n in os.listdir(out)}
    got = stat.S_IMODE(os.stat(out).st_mode)
    wrong = {n: f"{m:04o}" for n, m in modes.items() if m != want_file}
    if got != want_dir or wrong or len(modes) != len(PLOTS) + 3:
        fail(f"umask {umask:03o}: folder {got:04o} (expected {want_dir:04o}), files not {want_file:04o}: {wrong}")
    print(f"umask {umask:03o}: folder {got:04o}, {len(modes)} files {want_file:04o}")
print("PASS")
