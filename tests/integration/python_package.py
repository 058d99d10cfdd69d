#!/usr/bin/python3
"""python_package.py GALAPAGOS SOURCE_DIR WORKDIR: the Python package installed the way a user
would, offline: a virtual environment of Debian's python3-venv over the system's packages
(--system-site-packages: h5py, pandas, matplotlib), `pip install --no-deps --no-build-isolation`
of a copy of python/. From a folder outside the source tree, that environment's python loads a
real (replayed) run with galapagos.load (columns, decoded strings, typed attributes, against
h5py), runs galapagos.run, and to_xarray answers as documented; `galapagos report` with only the
environment's python3 first on PATH (no GALAPAGOS_PYTHON, no PYTHONPATH) draws with the package
installed there; an interpreter that cannot import it is one line and exit 2."""
import os
import re
import shutil
import subprocess
import sys

import h5py

galapagos, src, work = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2]), os.path.abspath(sys.argv[3])
failures = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failures.append(what)


shutil.rmtree(work, ignore_errors=True)
os.makedirs(os.path.join(work, "elsewhere"))
env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "GALAPAGOS_PYTHON", "PYTHONHOME", "VIRTUAL_ENV")}

# The environment and the package, offline (pip may not reach any index).
venv = os.path.join(work, "venv")
subprocess.run(["/usr/bin/python3", "-m", "venv", "--system-site-packages", venv], check=True, env=env, timeout=120)
copy = os.path.join(work, "python")  # pip builds in the folder it installs from: not in the source tree
shutil.copytree(os.path.join(src, "python"), copy, ignore=shutil.ignore_patterns("__pycache__", "build", "*.egg-info"))
p = subprocess.run([os.path.join(venv, "bin", "pip"), "install", "--no-deps", "--no-build-isolation", "--no-index", copy],
                   capture_output=True, text=True, env=env, timeout=300)
check(p.returncode == 0, "pip install --no-deps --no-build-isolation --no-index ./python" +
      ("" if p.returncode == 0 else f": {p.stdout[-300:]}{p.stderr[-600:]}"))
python = os.path.join(venv, "bin", "python")
site = subprocess.run([python, "-c", "import galapagos, os; print(os.path.dirname(galapagos.__file__))"],
                      capture_output=True, text=True, cwd=os.path.join(work, "elsewhere"), env=env).stdout.strip()
check(site.startswith(venv + "/"), f"import galapagos finds the installed package ({site!r})")

# A small real results file: a replayed run over the committed recording of the narrowed space.
space = os.path.join(src, "tests", "data", "spaces")
recording = os.path.join(space, "stencil3d7-cpu.h5")
results = os.path.join(work, "run.h5")
p = subprocess.run([galapagos, "run", os.path.join(space, "stencil3d7-cpu-space.toml"), "--budget", "12", "--replay", recording,
                    "--out", results, "--quiet"], capture_output=True, text=True, env=env, timeout=300)
check(p.returncode == 0 and os.path.isfile(results), f"a replayed run writes {results}: {p.stderr[-400:]}")

with h5py.File(results, "r") as f:
    ids = [int(x) for x in f["candidates"]["id"]]
    statuses = [s.decode() for s in f["candidates"]["status"]]
    islands, finished = int(f.attrs["islands"]), bool(f.attrs["finished"])
    winner = int(f["winner"].attrs["candidate_id"])
    family = f.attrs["family"]
    family = family.decode() if isinstance(family, bytes) else family
script = f"""
import json, galapagos
r = galapagos.load({results!r})
c = r.candidates
out = {{"ids": [int(x) for x in c.id], "statuses": list(c.status), "islands": r.attrs["islands"],
       "islands_type": type(r.attrs["islands"]).__name__, "finished": r.attrs["finished"],
       "finished_type": type(r.attrs["finished"]).__name__, "family": r.attrs["family"],
       "status_type": type(c.status.iloc[0]).__name__, "params": r.parameters,
       "param_columns": [k for k in c.columns if k.startswith("param_")], "best": int(r.best().id),
       "unit": r.units["candidates"]["time_median_s"], "file": galapagos.__file__}}
try:
    ds = galapagos.to_xarray(r)
    out["xarray"] = [len(ds["candidates.id"]), ds["candidates.time_median_s"].attrs.get("units")]
except ImportError as e:
    out["xarray_error"] = str(e)
print(json.dumps(out))
"""
p = subprocess.run([python, "-c", script], capture_output=True, text=True, cwd=os.path.join(work, "elsewhere"), env=env,
                   timeout=300)
check(p.returncode == 0, f"galapagos.load from the environment: {p.stderr[-600:]}")
if p.returncode == 0:
    import json
    got = json.loads(p.stdout.strip().splitlines()[-1])
    check(got["file"].startswith(venv + "/"), "the environment's galapagos loaded the file")
    check(got["ids"] == ids and len(ids) == 12, f"candidates: the file's {len(ids)} ids, in order ({len(got['ids'])} read)")
    check(got["statuses"] == statuses and got["status_type"] == "str", "statuses decoded to str, as in the file")
    check(got["islands"] == islands and got["islands_type"] == "int", f"attrs['islands'] an int ({got['islands_type']})")
    check(got["finished"] == finished is True and got["finished_type"] == "bool", "attrs['finished'] a bool, True")
    check(got["family"] == family == "stencil3d7", f"attrs['family'] {got['family']!r}")
    check(len(got["params"]) > 0 and got["param_columns"] == ["param_" + n for n in got["params"]],
          f"a param_<NAME> column per parameter: {got['param_columns']}")
    check(got["best"] == winner, f"best() is the file's winner {winner} ({got['best']})")
    check(got["unit"] == "s", "units of /candidates time_median_s")
    if "xarray" in got:
        check(got["xarray"] == [12, "s"], f"to_xarray: {got['xarray']}")
    else:
        check("python3-xarray" in got["xarray_error"] and "to_xarray" in got["xarray_error"],
              f"to_xarray without xarray: an ImportError saying what to install ({got['xarray_error']!r})")

# galapagos.run: the command, then the file loaded; a failing run raises with its exit status.
script = f"""
import galapagos
r = galapagos.run({os.path.join(space, "stencil3d7-cpu-space.toml")!r}, out="again.h5", budget=4,
                  extra_args=("--replay", {recording!r}, "--seed", "3"), executable={galapagos!r})
print(len(r.candidates), r.attrs["seed"], r.path)
try:
    galapagos.run("missing.toml", out="x.h5", executable={galapagos!r})
except galapagos.GalapagosError as e:
    print("error", e.returncode, "missing.toml" in str(e))
"""
p = subprocess.run([python, "-c", script], capture_output=True, text=True, cwd=os.path.join(work, "elsewhere"), env=env,
                   timeout=300)
lines = p.stdout.split("\n")
check(p.returncode == 0 and lines[0] == "4 3 again.h5" and lines[1] == "error 2 True",
      f"galapagos.run returns the loaded run, raises GalapagosError on failure: {p.stdout!r} {p.stderr[-400:]}")

# `python -m galapagos.results` from the environment.
p = subprocess.run([python, "-m", "galapagos.results", results], capture_output=True, text=True,
                   cwd=os.path.join(work, "elsewhere"), env=env, timeout=120)
check(p.returncode == 0 and re.search(r"^  candidates +12 rows$", p.stdout, re.M) and "winner: candidate" in p.stdout,
      f"python -m galapagos.results: {p.stdout[-300:]}{p.stderr[-300:]}")

# `galapagos report` with only the environment's python3 first on PATH: it draws with the package
# installed there (a line added to that copy leaves a mark), not with the source tree's copy.
installed_report = os.path.join(site, "report.py")
with open(installed_report, encoding="utf-8") as f:
    text = f.read()
main = 'if __name__ == "__main__":\n'
check(main in text, "the installed report.py runs main() as __main__")
with open(installed_report, "w", encoding="utf-8") as f:
    f.write(text.replace(main, main + "    if os.environ.get('GLP_TEST_MARK'):\n"
                                      "        open(os.environ['GLP_TEST_MARK'], 'w').write(__file__)\n"))
mark = os.path.join(work, "mark")
path_env = dict(env, PATH=os.path.join(venv, "bin") + ":/usr/bin:/bin", GLP_TEST_MARK=mark)
p = subprocess.run([galapagos, "report", results, "--out", "report"], capture_output=True, text=True,
                   cwd=os.path.join(work, "elsewhere"), env=path_env, timeout=240)
check(p.returncode == 0 and os.path.isfile(os.path.join(work, "elsewhere", "report", "index.html")),
      f"galapagos report with the environment's python3 on PATH: {p.stdout[-200:]}{p.stderr[-400:]}")
check(os.path.isfile(mark) and open(mark).read() == installed_report,
      "the report was drawn by the package installed in the environment")

# No interpreter that can: one line naming what was tried, exit 2.
p = subprocess.run([galapagos, "report", results, "--out", "report2"], capture_output=True, text=True,
                   cwd=os.path.join(work, "elsewhere"), env=dict(env, GALAPAGOS_PYTHON="/bin/false"), timeout=120)
err = p.stderr.strip().splitlines()
check(p.returncode == 2 and len(err) == 1 and "/bin/false" in err[0] and "GALAPAGOS_PYTHON" in err[0] and
      not os.path.exists(os.path.join(work, "elsewhere", "report2")),
      f"GALAPAGOS_PYTHON that cannot import the package: one line, exit 2 ({p.returncode}: {p.stderr.strip()!r})")

if failures:
    print(f"python_package: {len(failures)} FAILED")
    sys.exit(1)
shutil.rmtree(work, ignore_errors=True)
print("python_package: PASS")
