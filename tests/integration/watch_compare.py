#!/usr/bin/python3
"""watch_compare.py GALAPAGOS SOURCE_DIR WORKDIR: `galapagos watch` and `galapagos compare` on small
real runs (replayed over the committed recording of the narrowed stencil3d7 space, so nothing is
compiled): watch --once gives the file's figures; compare gives one row per run with its
strategy, evaluations and best figures (files, a folder, --csv, --plot), and one line with exit 2
for a file it cannot read; watch follows a run while it writes its file, sees it progress, and
ends with it (exit 0)."""
import csv
import json
import math
import os
import re
import shutil
import subprocess
import sys
import time

import h5py

galapagos, src, work = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2]), os.path.abspath(sys.argv[3])
failures = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failures.append(what)


def seconds(s):  # run::format_seconds
    return f"{s * 1e6:.1f} us" if s < 1e-3 else f"{s * 1e3:.3f} ms" if s < 1 else f"{s:.3f} s"


shutil.rmtree(work, ignore_errors=True)
os.makedirs(os.path.join(work, "runs"))
env = {k: v for k, v in os.environ.items() if k not in ("GALAPAGOS_PYTHON",)}
space = os.path.join(src, "tests", "data", "spaces")
recording = os.path.join(space, "stencil3d7-cpu.h5")
config_text = open(os.path.join(space, "stencil3d7-cpu-space.toml"), encoding="utf-8").read()
config_text = config_text.replace('kernel_paths = ["kernels"]', f'kernel_paths = ["{os.path.join(space, "kernels")}"]')


def config(name, extra=""):
    path = os.path.join(work, name + ".toml")
    with open(path, "w", encoding="utf-8") as f:
        f.write(config_text + extra)
    return path


def replayed(name, cfg, budget, *more):
    out = os.path.join(work, "runs", name + ".h5")
    return out, [galapagos, "run", cfg, "--budget", str(budget), "--replay", recording, "--out", out, "--quiet", *more]


def facts(path):
    with h5py.File(path, "r") as f:
        c = f["candidates"][:]
        ok = [r for r in c if r["status"] == b"ok"]
        best = min(ok, key=lambda r: r["time_median_s"])
        w = f["winner"].attrs
        return {"evaluated": len(c), "failed": len(c) - len(ok), "best_time": float(best["time_median_s"]),
                "best_speedup": float(best["speedup"]), "winner_time": float(w["time_median_s"]),
                "winner_speedup": float(w["speedup"]), "roofline": float(w["roofline_fraction"]),
                "baseline": w["fastest_baseline"].decode() if isinstance(w["fastest_baseline"], bytes) else w["fastest_baseline"],
                "session_baseline": f["sessions/0"].attrs["fastest_baseline"]}


# Two small runs: the GA and random search.
a, argv = replayed("ga", config("ga", '\n[strategy]\nkind = "ga"\n'), 12, "--seed", "1")
p = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=300)
check(p.returncode == 0, f"run ga: {p.stderr[-300:]}")
b, argv = replayed("random", config("random", '\n[strategy]\nkinds = ["random"]\n'), 12, "--seed", "2")
p = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=300)
check(p.returncode == 0, f"run random: {p.stderr[-300:]}")
fa, fb = facts(a), facts(b)

# watch --once: one line with the file's figures.
p = subprocess.run([galapagos, "watch", a, "--once"], capture_output=True, text=True, env=env, timeout=60)
line = p.stdout.strip()
baseline = fa["session_baseline"]
baseline = baseline.decode() if isinstance(baseline, bytes) else baseline
want = (f"{a}: generations [", f"evaluated {fa['evaluated']}/12 ({fa['failed']} failed)",
        f"best {seconds(fa['best_time'])} {fa['best_speedup']:.2f}x over {baseline}", "elapsed ")
check(p.returncode == 0 and len(line.splitlines()) == 1 and all(w in line for w in want),
      f"watch --once: {line!r} holds {want} ({p.stderr.strip()})")
p = subprocess.run([galapagos, "watch", os.path.join(work, "none.h5"), "--once"], capture_output=True, text=True, env=env)
check(p.returncode == 2 and len(p.stderr.strip().splitlines()) == 1 and "none.h5: no such file" in p.stderr,
      f"watch of a missing file: one line, exit 2 ({p.returncode}: {p.stderr.strip()!r})")

# compare: one row per run, the fastest best time first.
png, table = os.path.join(work, "compare.png"), os.path.join(work, "compare.csv")
p = subprocess.run([galapagos, "compare", a, b, "--plot", png, "--csv", table], capture_output=True, text=True, env=env,
                   timeout=120)
lines = p.stdout.splitlines()
check(p.returncode == 0 and lines[0].split()[:3] == ["file", "family/backend", "strategy"], f"compare: {p.stdout}{p.stderr}")
rows = [ln for ln in lines[1:] if ln.startswith(os.path.join(work, "runs"))]
order = sorted([(fa["winner_time"], a, fa, "ga"), (fb["winner_time"], b, fb, "random")])
check([r.split()[0] for r in rows] == [o[1] for o in order], f"one row per run, fastest first: {rows}")
for (_, path, f, strategy), row in zip(order, rows):
    cells = re.split(r"\s{2,}", row)
    want = [path, "stencil3d7/cpu", strategy, None, f"{f['evaluated']} ({f['failed']} failed)", seconds(f["winner_time"]),
            f"{f['winner_speedup']:.2f}x over {f['baseline']}", f"{100 * f['roofline']:.0f}%", "finished"]
    check(len(cells) == len(want) and all(w is None or c == w for c, w in zip(cells, want)),
          f"compare row {cells} is {want}")
with open(table, newline="") as f:
    got = {r["file"]: r for r in csv.DictReader(f)}
check(set(got) == {a, b} and all(math.isclose(float(got[p]["speedup"]), f["winner_speedup"]) and
                                 math.isclose(float(got[p]["best_time_s"]), f["winner_time"]) and
                                 int(got[p]["evaluated"]) == 12 for p, f in ((a, fa), (b, fb))),
      f"--csv holds the runs' figures: {got}")
check(os.path.isfile(png) and open(png, "rb").read(8) == b"\x89PNG\r\n\x1a\n", "--plot writes a PNG file")
p = subprocess.run([galapagos, "compare", os.path.join(work, "runs")], capture_output=True, text=True, env=env, timeout=120)
check(p.returncode == 0 and p.stdout.splitlines()[1:] == lines[1:3], f"a folder stands for its .h5 files: {p.stdout}")
bad = os.path.join(work, "runs", "notes.h5")
with open(bad, "w") as f:
    f.write("not a results file\n")
p = subprocess.run([galapagos, "compare", a, bad], capture_output=True, text=True, env=env, timeout=120)
check(p.returncode == 2 and p.stdout == "" and len(p.stderr.strip().splitlines()) == 1 and bad in p.stderr,
      f"a file compare cannot read: one line naming it, exit 2 ({p.returncode}: {p.stderr.strip()!r})")
os.remove(bad)

# The strategy column: each file's strategy_kinds attribute; for a file written before it, the
# stored config's [strategy] kinds, else its kind, else the default, forest.
for path, want in ((a, ["ga"]), (b, ["random"])):
    with h5py.File(path, "r") as f:
        got = f.attrs.get("strategy_kinds")
    check(got is not None and json.loads(got) == want, f"{os.path.basename(path)}: strategy_kinds {got!r} is {want}")
older = os.path.join(work, "older")
os.makedirs(older)
for name, source, strip in (("kind", a, False), ("kinds", b, False), ("default", a, True)):
    copy = os.path.join(older, name + ".h5")
    shutil.copyfile(source, copy)
    with h5py.File(copy, "r+") as f:
        del f.attrs["strategy_kinds"]
        if strip:
            f.attrs["config_toml"] = f.attrs["config_toml"].replace('kind = "ga"', "")
p = subprocess.run([galapagos, "compare", older], capture_output=True, text=True, env=env, timeout=120)
labels = {os.path.basename(re.split(r"\s{2,}", ln)[0]): re.split(r"\s{2,}", ln)[2] for ln in p.stdout.splitlines()[1:]}
check(p.returncode == 0 and labels == {"kind.h5": "ga", "kinds.h5": "random", "default.h5": "forest"},
      f"files without strategy_kinds: the strategy from their configs {labels} ({p.stderr.strip()!r})")

# watch follows a run that is writing its file (each replayed measurement takes 0.25 s).
c, argv = replayed("live", config("live"), 24, "--seed", "4", "--replay-delay", "0.25")
run = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env)
deadline = time.time() + 60
while not os.path.exists(c + ".lock") and not os.path.exists(c) and run.poll() is None and time.time() < deadline:
    time.sleep(0.05)
watch = subprocess.run([galapagos, "watch", c, "--interval", "0.3"], capture_output=True, text=True, env=env, timeout=300)
run_err = run.communicate(timeout=300)[1]
check(run.returncode == 0, f"the watched run ends well: {run_err[-300:]}")
seen = [int(n) for n in re.findall(r"evaluated (\d+)/24", watch.stdout)]
check(watch.returncode == 0 and watch.stdout.strip().splitlines()[-1].startswith("finished: winner "),
      f"watch ends with the run, exit 0: {watch.returncode} {watch.stdout[-300:]!r} {watch.stderr.strip()!r}")
check(len(seen) >= 2 and seen == sorted(seen) and seen[0] < 24 and seen[-1] == 24,
      f"watch saw the run progress, one line per refresh: evaluated {seen}")

if failures:
    print(f"watch_compare: {len(failures)} FAILED")
    sys.exit(1)
shutil.rmtree(work, ignore_errors=True)
print("watch_compare: PASS")
