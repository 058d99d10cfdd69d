#!/usr/bin/python3
"""report_chromium.py GALAPAGOS RESULTS.h5 WORKDIR: `galapagos report` on a real run's file, then
the page rendered in headless Chromium (Debian's chromium): the page itself records, once
loaded, how many plots it holds and how many decoded; every one must have. What the rendered
page shows is checked from its DOM: the time plots' axes in a named time unit with the fastest
baseline's line in their legend, integer generation ticks, plain tick labels (never 1.7e-2),
the winner's lineage ending at the winner, the histogram's winner marks labelled search-time and
final interleaved, and the noise warning when the file has one. Two files: the run's own (today's
format: a horizontal baseline line, no warning) and a copy given /baseline_timings, the /winner
noise attributes and a migrant winner (report_sample_data.py: a re-timed baseline line, a
warning, a two-step lineage). A copy of the page with one plot damaged must be caught (the check
can fail). Exit 77 (skipped) where chromium is not installed."""
import html
import json
import os
import re
import shutil
import subprocess
import sys

import h5py

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from report_sample_data import add_new_data  # noqa: E402

galapagos, results, work = sys.argv[1:4]
PLOTS = ["best_vs_wallclock.png", "best_vs_evaluations.png", "status_per_generation.png", "speedup_distribution.png",
         "parameter_effects.png", "roofline.png", "migrations.png"]
TIME_PLOTS = ["best_vs_wallclock.png", "best_vs_evaluations.png", "parameter_effects.png"]
GENERATION_AXES = [("status_per_generation.png", "xticks"), ("migrations.png", "xticks"), ("best_vs_evaluations.png", "xticks")]


def fail(msg):
    print(f"FAIL: {msg}")
    sys.exit(1)


chromium = shutil.which("chromium") or shutil.which("chromium-browser")
if not chromium:
    print("SKIP: chromium is not installed (tools/install-deps.sh installs it)")
    sys.exit(77)

shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)


def render(html_file):
    """The DOM Chromium built from the page, and the <body> attributes the page set on itself
    after loading."""
    r = subprocess.run([chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                        f"--user-data-dir={os.path.join(work, 'profile')}", "--virtual-time-budget=10000",
                        "--dump-dom", "file://" + os.path.abspath(html_file)],
                       capture_output=True, text=True, timeout=120)
    body = re.search(r"<body([^>]*)>", r.stdout)
    if r.returncode != 0 or not body:
        fail(f"chromium could not render {html_file} (exit {r.returncode}): {r.stderr[-500:]}")
    return r.stdout, dict(re.findall(r'(data-plots[a-z-]*)="([^"]*)"', body.group(1)))


def figures(dom):
    """{plot file: what its axes show (labels, ticks, legend)}, from the rendered page."""
    found = {name: json.loads(html.unescape(axes)) for axes, name in
             re.findall(r'<figure data-axes="([^"]*)"><img class="plot" data-file="([^"]+)"', dom)}
    if sorted(found) != sorted(PLOTS):
        fail(f"the page's figures {sorted(found)} do not describe every plot {sorted(PLOTS)}")
    return found


def lineage_rows(dom):
    section = re.search(r'<section id="lineage">(.*?)</section>', dom, re.S)
    if not section:
        fail("the rendered page has no lineage section")
    rows = [[html.unescape(c) for c in re.findall(r"<td>(.*?)</td>", tr)] for tr in re.findall(r"<tr>(.*?)</tr>", section.group(1))]
    return [r for r in rows if r]


def check_report(h5, out, new):
    p = subprocess.run([galapagos, "report", h5, "--out", out], capture_output=True, text=True, timeout=180)
    if p.returncode != 0:
        fail(f"galapagos report {h5} exited {p.returncode}: {p.stderr}")
    for name in PLOTS + ["index.html", "report.md"]:
        if not os.path.isfile(os.path.join(out, name)):
            fail(f"{name} missing from {out}")
    for name in PLOTS:
        with open(os.path.join(out, name), "rb") as f:
            data = f.read()
        if not data.startswith(b"\x89PNG\r\n\x1a\n") or len(data) < 5000:
            fail(f"{name} is not a drawn PNG ({len(data)} bytes)")
    if [n for n in os.listdir(os.path.dirname(out)) if n.startswith(".report-")]:
        fail("a scratch folder was left behind")

    page = open(os.path.join(out, "index.html"), encoding="utf-8").read()
    md = open(os.path.join(out, "report.md"), encoding="utf-8").read()
    with h5py.File(h5, "r") as f:
        w = {k: (v.decode() if isinstance(v, bytes) else v) for k, v in f["winner"].attrs.items()}
        baselines = [b.decode() for b in f["baselines"]["name"]]
        n_candidates = len(f["candidates"])
        cand = {int(c["id"]): c for c in f["candidates"][()]}
        retimed = "baseline_timings" in f and len(f["baseline_timings"]) > 0  # every run of this galapagos
    winner = str(w["candidate_id"])
    if f"<td>{winner} (island" not in page or f"| candidate | {winner} (island" not in md:
        fail(f"the winner (candidate {winner}) is not in the report's evidence")
    for k in json.loads(w["params"]):
        if f"<th>{k}</th>" not in page:
            fail(f"the winner's parameter {k} is not in the page")
    for b in baselines:
        if not re.search(rf"<th>{re.escape(b)}</th><td>[0-9.]+x", page):
            fail(f"no speedup over baseline {b} in the page")
    if f"<td>{n_candidates}: " not in page:
        fail("the candidate count is not in the page")
    for name in PLOTS:
        if f"]({name})" not in md:
            fail(f"report.md does not show {name}")
    if re.search(r'<(img|script|link)[^>]+(src|href)="(https?:|//)', page):
        fail("the page loads something from the network: it must be self-contained")

    dom, seen = render(os.path.join(out, "index.html"))
    if seen.get("data-plots") != str(len(PLOTS)) or seen.get("data-plots-loaded") != str(len(PLOTS)):
        fail(f"chromium: not every plot loaded: {seen}")
    print(f"chromium: {seen['data-plots-loaded']} of {seen['data-plots']} plots loaded")
    fig = figures(dom)

    # Times in a named unit, plain tick labels, and the fastest baseline's line on the time plots.
    for name in TIME_PLOTS:
        for ax in fig[name]:
            if ax["ylabel"] and not re.search(r"time \((ns|us|ms|s)\)$", ax["ylabel"]):
                fail(f"{name}: the time axis is labelled {ax['ylabel']!r}, not with a time unit")
    if not re.search(r"\((s|min|h)\)$", fig["best_vs_wallclock.png"][0]["xlabel"]):
        fail(f"best_vs_wallclock.png: the wall-clock axis has no unit: {fig['best_vs_wallclock.png'][0]['xlabel']!r}")
    for name in PLOTS:
        for ax in fig[name]:
            bad = [t for t in ax["xticks"] + ax["yticks"] if re.search(r"[eE][-+]?\d|\^|\$", t)]
            if bad:
                fail(f"{name}: tick labels in scientific notation: {bad}")
    line = f"baseline {w['fastest_baseline']} ({'re-timed each generation' if retimed else 'timed at the start'})"
    for name in ("best_vs_wallclock.png", "best_vs_evaluations.png"):
        if line not in fig[name][0]["legend"]:
            fail(f"{name}: no {line!r} in the legend {fig[name][0]['legend']}")
    for name, key in GENERATION_AXES:
        ticks = fig[name][0][key]
        if not ticks or not all(re.fullmatch(r"−?-?\d+", t) for t in ticks):
            fail(f"{name}: generation ticks are not integers: {ticks}")
    search = float(w.get("search_speedup", cand[int(winner)]["speedup"]))
    legend = fig["speedup_distribution.png"][0]["legend"]
    for want in (f"winner, search-time {search:.2f}x", f"winner, final interleaved {float(w['speedup']):.2f}x"):
        if not any(t.startswith(want) for t in legend):
            fail(f"speedup_distribution.png: no {want!r} in the legend {legend}")
    if "search-time" not in fig["speedup_distribution.png"][0]["xlabel"]:
        fail("speedup_distribution.png: the histogram is not labelled search-time")
    print(f"chromium: time units, baseline line ({line}), integer generation ticks, histogram labels")

    # The winner's lineage, oldest first, ending at the winner.
    rows = lineage_rows(dom)
    chain = [int(winner)]
    while json.loads(cand[chain[-1]]["parents"] or b"[]") and json.loads(cand[chain[-1]]["parents"])[0] in cand:
        chain.append(json.loads(cand[chain[-1]]["parents"])[0])
    chain.reverse()
    got = [(int(r[1]), int(r[2]), r[4]) for r in rows]
    want = [(i, int(cand[i]["island"]), cand[i]["origin"].decode()) for i in chain]
    if got != want:
        fail(f"lineage rows (candidate, island, origin) {got}, expected {want}")
    if new and (len(rows) < 2 or f"sent by island {want[-2][1]}" not in rows[-1][5]):
        fail(f"the migrant winner's lineage does not say which island sent it: {rows}")
    if "### Lineage" not in md or f"| {winner} | {cand[int(winner)]['island']} |" not in md:
        fail("report.md has no lineage ending at the winner")
    print(f"chromium: lineage {' -> '.join(f'{c} (island {i}, {o})' for c, i, o in got)}")

    # The noise warning: shown when /winner noise says something (the augmented file always, a run
    # of today when its node moved), absent otherwise.
    noisy = bool(w.get("noise"))
    if new and not noisy:
        fail("the augmented file has no /winner noise")
    warning = re.search(r'<div class="warning" id="noise-warning">(.*?)</div>', dom, re.S)
    if noisy != bool(warning):
        fail(f"noise warning {'missing' if noisy else 'shown for a file without one'}")
    if noisy and html.escape(w["noise"], quote=False) not in warning.group(1):
        fail(f"the warning does not quote /winner noise: {warning.group(1)}")
    return page


page = check_report(results, os.path.join(work, "report"), new=False)
newer = os.path.join(work, "newer.h5")
add_new_data(results, newer, migrant_winner=True)
check_report(newer, os.path.join(work, "report-newer"), new=True)
print("chromium: the noise warning shows for a file with /winner noise, not for one without")

# The same page with one plot's data damaged: the page must say so.
damaged = os.path.join(work, "report", "damaged.html")
broken = re.sub(r'(data-file="roofline.png" src="data:image/png;base64,)[A-Za-z0-9+/=]{200}', r"\1!!!!garbage", page, count=1)
if broken == page:
    fail("could not damage the roofline plot in a copy of the page")
open(damaged, "w", encoding="utf-8").write(broken)
_, seen = render(damaged)
if seen.get("data-plots-loaded") != str(len(PLOTS) - 1) or seen.get("data-plots-broken") != "roofline.png":
    fail(f"chromium: a damaged plot was not caught: {seen}")
print("chromium: a damaged plot is caught (roofline.png)")
print("PASS")
