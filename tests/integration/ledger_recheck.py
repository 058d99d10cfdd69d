#!/usr/bin/python3
"""ledger_recheck.py GALAPAGOS SOURCE_DIR WORKDIR: from a search to a patch to a recheck (issue 24).

1. A small one-island search (the CI config, budget 4, with an [export] table naming a user's
   file): /ledger's figures add up (evaluation time within the wall time, device time within
   the evaluation time, evaluations and accepted counts equal /candidates', energy measured or
   marked unavailable with a reason, the winner's saving and break-even from /winner's figures),
   p50 equals the median and p99 is absent under 20 runs; the summary prints the ledger.
2. `export`: winner.patch, whose description is the evidence, applies with `patch -p0` to a copy
   of the user's file, replacing only the region between the markers with the winner's code
   (its parameters written in); a region that is not in the file is exit 2, one line, nothing written.
3. `recheck` three times: unchanged (verdict and exit code agree with the measured speedup: 0
   still faster or 3 no longer faster); every baseline built at -O0 (clearly slower: still
   faster, exit 0); the family's reference changed (a copy whose reference is off by 1e-6: no
   longer correct, exit 4). Each appends a row to /rechecks; the report's ledger sections list
   the ledger, the percentiles and the three rechecks."""
import math
import os
import re
import shutil
import subprocess
import sys

import h5py

galapagos, source, work = sys.argv[1:4]
sys.path.insert(0, os.path.join(source, "python"))
from galapagos.report_ledger import ledger_sections  # noqa: E402


def fail(msg):
    print(f"FAIL: {msg}")
    sys.exit(1)


def run(args, env=None, **kw):
    return subprocess.run(args, capture_output=True, text=True, timeout=400, env=env, **kw)


def text(v):
    return v.decode() if isinstance(v, bytes) else str(v)


shutil.rmtree(work, ignore_errors=True)
os.makedirs(os.path.join(work, "app"))
results = os.path.join(work, "run.h5")
template = open(os.path.join(source, "kernels", "stencil3d7", "cpu", "stencil3d7.cpp")).read()
user = ("// the user's application\n#include <cstdio>\n\n// BEGIN galapagos stencil3d7\n" + template
        + "// END galapagos stencil3d7\n\nint main() { std::puts(\"app\"); }\n")
with open(os.path.join(work, "app", "solver.cpp"), "w") as f:
    f.write(user)
config = open(os.path.join(source, "configs", "stencil3d7-cpu-ci.toml")).read()
config = config.replace('out = "results/stencil3d7-cpu-ci.h5"', f'out = "{results}"').replace("budget = 6", "budget = 4")
config += ('\n[export]\nuser_file = "app/solver.cpp"\nbegin_marker = "BEGIN galapagos stencil3d7"\n'
           'end_marker = "END galapagos stencil3d7"\n')
with open(os.path.join(work, "search.toml"), "w") as f:
    f.write(config)

# 1. The search and its ledger.
p = run([galapagos, "run", os.path.join(work, "search.toml")])
if p.returncode != 0:
    fail(f"search exited {p.returncode}: {p.stdout[-2000:]}{p.stderr[-2000:]}")
for want in ("ledger: ", "winner saves", "break-even", "p50 "):
    if want not in p.stdout:
        fail(f"the summary has no '{want}': {p.stdout[-2500:]}")
with h5py.File(results, "r") as f:
    a = dict(f["ledger"].attrs)
    w = dict(f["winner"].attrs)
    cand = f["candidates"][:]
    session_wall = float(f["sessions/0"].attrs["wall_s"])
ok = sum(1 for s in cand["status"] if text(s) == "ok")
if int(a["evaluations"]) != len(cand) or int(a["accepted"]) != ok or not math.isclose(a["accepted_share"], ok / len(cand)):
    fail(f"ledger counts {a['evaluations']}, {a['accepted']}, {a['accepted_share']} vs {len(cand)} rows, {ok} ok")
if not math.isclose(a["evaluating_s"], float(cand["eval_time_s"].sum()), rel_tol=1e-9):
    fail(f"evaluating_s {a['evaluating_s']} is not the sum of eval_time_s {cand['eval_time_s'].sum()}")
if not 0 < a["evaluating_s"] <= a["wall_time_s"] * int(a["islands"]):
    fail(f"evaluation time {a['evaluating_s']} s not within the wall time {a['wall_time_s']} s x {a['islands']} islands")
if not 0 < a["device_busy_s"] <= a["evaluating_s"] * 1.001 + 0.01 or not math.isclose(a["device_hours"], a["device_busy_s"] / 3600):
    fail(f"device time {a['device_busy_s']} s / {a['device_hours']} h vs evaluating {a['evaluating_s']} s")
if not a["core_hours"] >= a["device_hours"] or text(a["device"]) != "cpu":
    fail(f"core-hours {a['core_hours']} below device-hours {a['device_hours']} on a CPU run ({a['device']})")
if not math.isclose(a["wall_time_s"], session_wall) or int(a["sessions"]) != 1:
    fail(f"wall time {a['wall_time_s']} vs the session's {session_wall}")
for k in ("cpu_energy_j", "gpu_energy_j", "energy_j"):
    if not (math.isfinite(a[k]) or text(a.get(k + "_note", ""))):
        fail(f"{k} is neither measured nor marked unavailable: {a}")
if math.isfinite(a["gpu_energy_j"]) or "CPU run" not in text(a["gpu_energy_j_note"]):
    fail(f"a CPU run's GPU energy: {a['gpu_energy_j']} {a.get('gpu_energy_j_note')}")
if int(a["llm_calls"]) != 0 or int(a["prompt_tokens"]) != 0 or a["money"] != 0:
    fail(f"a run without a model spent tokens or money: {a}")
fastest = text(w["fastest_baseline"])
saving = float(w[f"baseline_{fastest}_median_s"]) - float(w["time_median_s"])
if not math.isclose(a["saving_per_call_s"], saving, rel_tol=1e-9):
    fail(f"saving per call {a['saving_per_call_s']} vs /winner's {saving}")
if saving > 0 and not math.isclose(a["break_even_calls"], a["device_busy_s"] / saving, rel_tol=1e-9):
    fail(f"break-even {a['break_even_calls']} is not device time / saving {a['device_busy_s'] / saving}")
if saving <= 0 and (math.isfinite(a["break_even_calls"]) or "never pays off" not in text(a["break_even_calls_note"])):
    fail(f"a winner that saves nothing has a break-even: {a['break_even_calls']}")
if not 1 <= int(a["improvements"]) <= ok or not math.isclose(a["evaluations_per_improvement"], len(cand) / int(a["improvements"])):
    fail(f"improvements {a['improvements']}, per improvement {a['evaluations_per_improvement']}")
if w["time_p50_s"] != w["time_median_s"] or math.isfinite(w["time_p99_s"]) or int(w["repetitions"]) >= 20:
    fail(f"p50 {w['time_p50_s']} vs median {w['time_median_s']}, p99 {w['time_p99_s']} from {w['repetitions']} runs")

# 2. The patch to the user's file.
pkg = os.path.join(work, "pkg")
p = run([galapagos, "export", results, "--best", "--out", pkg])
if p.returncode != 0:
    fail(f"export exited {p.returncode}: {p.stdout}{p.stderr}")
patch = open(os.path.join(pkg, "winner.patch")).read()
if "verdict: verified" not in patch or "held-out check: ok" not in patch or "--- app/solver.cpp" not in patch:
    fail(f"winner.patch lacks its evidence or names another file:\n{patch[:1500]}")
copy = os.path.join(work, "copy")
os.makedirs(os.path.join(copy, "app"))
shutil.copy(os.path.join(work, "app", "solver.cpp"), os.path.join(copy, "app", "solver.cpp"))
p = run(["patch", "-p0", "-i", os.path.join(pkg, "winner.patch")], cwd=copy)
if p.returncode != 0:
    fail(f"winner.patch does not apply to a copy of the user's file: {p.stdout}{p.stderr}")
patched = open(os.path.join(copy, "app", "solver.cpp")).read()
exported = open(os.path.join(pkg, "stencil3d7.cpp")).read()
if patched != user.replace(template, exported):
    fail("the patched file is not the user's file with the region replaced by the exported winner")
params = __import__("json").loads(text(w["params"]))
if any(f"#define GLP_{k} {v}\n" not in patched for k, v in params.items()):
    fail(f"the patched file does not hold the winner's parameters {params}")
bad = os.path.join(work, "bad-pkg")
p = run([galapagos, "export", results, "--best", "--out", bad, "--user-file", os.path.join(work, "app", "solver.cpp"),
         "--begin-marker", "NO SUCH MARKER", "--end-marker", "END galapagos"])
if p.returncode != 2 or len(p.stderr.strip().splitlines()) != 1 or "solver.cpp" not in p.stderr or os.path.exists(bad):
    fail(f"a missing region: exit {p.returncode}, stderr {p.stderr!r}, package written: {os.path.exists(bad)}")

# 3. Recheck: unchanged, baselines slowed, reference changed.
p = run([galapagos, "recheck", results])
verdict = re.search(r"^verdict: (.*) \(exit (\d)\)$", p.stdout, re.M)
if p.returncode not in (0, 3) or not verdict or int(verdict.group(2)) != p.returncode:
    fail(f"unchanged recheck exited {p.returncode}: {p.stdout[-2000:]}{p.stderr}")
for want in ("recorded", "compiler", "speedup"):
    if want not in p.stdout:
        fail(f"the recheck shows no '{want}' side by side: {p.stdout[-1500:]}")
p = run([galapagos, "recheck", results, "--baseline-flags=-O0"])
if p.returncode != 0 or "verdict: still faster" not in p.stdout:
    fail(f"recheck against -O0 baselines exited {p.returncode}: {p.stdout[-2000:]}{p.stderr}")
fam = os.path.join(work, "kernels", "stencil3d7")
shutil.copytree(os.path.join(source, "kernels", "stencil3d7"), fam)
ref = open(os.path.join(fam, "reference.cpp")).read()
changed = ref.replace("v(c) = (1.0 / 3.0) * u(c) +", "v(c) = 1e-6 * u(c) + (1.0 / 3.0) * u(c) +")
if changed == ref:
    fail("the reference's interior line was not found to change")
open(os.path.join(fam, "reference.cpp"), "w").write(changed)
env = dict(os.environ, GALAPAGOS_KERNEL_PATH=os.path.join(work, "kernels"))
p = run([galapagos, "recheck", results], env=env)
if p.returncode != 4 or "verdict: no longer correct" not in p.stdout:
    fail(f"recheck against a changed reference exited {p.returncode}: {p.stdout[-2000:]}{p.stderr}")
with h5py.File(results, "r") as f:
    rows = f["rechecks"][:]
    if f["winner"].attrs["candidate_id"] != rows["candidate_id"][0]:
        fail("the rechecks are not of the winner")
verdicts = [text(v) for v in rows["verdict"]]
if len(rows) != 3 or verdicts[1:] != ["still_faster", "no_longer_correct"] or "kernel_path" not in text(rows["changes"][2]):
    fail(f"/rechecks verdicts {verdicts}")
first = "still_faster" if rows["speedup"][0] > 1 else "no_longer_faster"
if verdicts[0] != first or not all(text(h) for h in rows["host"]) or text(rows["changes"][1]) != '{"baseline_flags":"-O0"}':
    fail(f"/rechecks rows: {rows}")
if not rows["speedup"][1] > 1 or math.isfinite(rows["speedup"][2]) or text(rows["status"][2]) == "ok":
    fail(f"/rechecks speedups {rows['speedup']}, statuses {rows['status']}")

sections = dict(ledger_sections(results))
if len(sections.get("Rechecks of the winner (galapagos recheck)", [])) != 3 or not any(
        "p50" in v for _, v in sections.get("Timing statistics of the final comparison", [])):
    fail(f"report sections: {sections}")
if "break-even (calls)" not in dict(sections["Ledger: what the search cost, what the winner saves"]):
    fail(f"the report's ledger: {sections}")
print("ok: ledger adds up, winner.patch applies, rechecks: " + ", ".join(verdicts))
