#!/usr/bin/python3
"""report_chromium.py GALAPAGOS RESULTS.h5 WORKDIR: `galapagos report` on a real run's file, then
the page rendered in headless Chromium (Debian's chromium): the page itself records, once
loaded, how many plots it holds and how many decoded; every one must have. A copy of the page
with one plot damaged must be caught the same way (the check can fail). Exit 77 (skipped)
where chromium is not installed."""
import os
import re
import shutil
import subprocess
import sys

import h5py

galapagos, results, work = sys.argv[1:4]


def fail(msg):
    print(f"FAIL: {msg}")
    sys.exit(1)


chromium = shutil.which("chromium") or shutil.which("chromium-browser")
if not chromium:
    print("SKIP: chromium is not installed (tools/install-deps.sh installs it)")
    sys.exit(77)

shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
out = os.path.join(work, "report")
p = subprocess.run([galapagos, "report", results, "--out", out], capture_output=True, text=True, timeout=120)
if p.returncode != 0:
    fail(f"galapagos report exited {p.returncode}: {p.stderr}")
plots = ["best_vs_wallclock.png", "best_vs_evaluations.png", "status_per_generation.png", "speedup_distribution.png",
         "parameter_effects.png", "roofline.png", "migrations.png"]
for name in plots + ["index.html", "report.md"]:
    if not os.path.isfile(os.path.join(out, name)):
        fail(f"{name} missing from {out}")
for name in plots:
    with open(os.path.join(out, name), "rb") as f:
        data = f.read()
    if not data.startswith(b"\x89PNG\r\n\x1a\n") or len(data) < 5000:
        fail(f"{name} is not a drawn PNG ({len(data)} bytes)")
if [n for n in os.listdir(work) if n.startswith(".report-")]:
    fail("a scratch folder was left behind")

page = open(os.path.join(out, "index.html"), encoding="utf-8").read()
md = open(os.path.join(out, "report.md"), encoding="utf-8").read()
with h5py.File(results, "r") as f:
    winner = f["winner"].attrs["candidate_id"]
    winner = winner.decode() if isinstance(winner, bytes) else str(winner)
    params = f["winner"].attrs["params"]
    baselines = [b.decode() for b in f["baselines"]["name"]]
    n_candidates = len(f["candidates"])
if f"<td>{winner} (island" not in page or f"| candidate | {winner} (island" not in md:
    fail(f"the winner (candidate {winner}) is not in the report's evidence")
for k in __import__("json").loads(params):
    if f"<th>{k}</th>" not in page:
        fail(f"the winner's parameter {k} is not in the page")
for b in baselines:
    if not re.search(rf"<th>{re.escape(b)}</th><td>[0-9.]+x", page):
        fail(f"no speedup over baseline {b} in the page")
if f"<td>{n_candidates}: " not in page:
    fail("the candidate count is not in the page")
for name in plots:
    if f"]({name})" not in md:
        fail(f"report.md does not show {name}")
if re.search(r'<(img|script|link)[^>]+(src|href)="(https?:|//)', page):
    fail("the page loads something from the network: it must be self-contained")


def render(html_file):
    """The <body> attributes the page set on itself after loading, as Chromium saw them."""
    r = subprocess.run([chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                        f"--user-data-dir={os.path.join(work, 'profile')}", "--virtual-time-budget=10000",
                        "--dump-dom", "file://" + os.path.abspath(html_file)],
                       capture_output=True, text=True, timeout=120)
    body = re.search(r"<body([^>]*)>", r.stdout)
    if r.returncode != 0 or not body:
        fail(f"chromium could not render {html_file} (exit {r.returncode}): {r.stderr[-500:]}")
    return dict(re.findall(r'(data-plots[a-z-]*)="([^"]*)"', body.group(1)))


seen = render(os.path.join(out, "index.html"))
if seen.get("data-plots") != str(len(plots)) or seen.get("data-plots-loaded") != str(len(plots)):
    fail(f"chromium: not every plot loaded: {seen}")
print(f"chromium: {seen['data-plots-loaded']} of {seen['data-plots']} plots loaded")

# The same page with one plot's data damaged: the page must say so.
damaged = os.path.join(out, "damaged.html")
broken = re.sub(r'(data-file="roofline.png" src="data:image/png;base64,)[A-Za-z0-9+/=]{200}', r"\1!!!!garbage", page, count=1)
if broken == page:
    fail("could not damage the roofline plot in a copy of the page")
open(damaged, "w", encoding="utf-8").write(broken)
seen = render(damaged)
if seen.get("data-plots-loaded") != str(len(plots) - 1) or seen.get("data-plots-broken") != "roofline.png":
    fail(f"chromium: a damaged plot was not caught: {seen}")
print("chromium: a damaged plot is caught (roofline.png)")
print("PASS")
