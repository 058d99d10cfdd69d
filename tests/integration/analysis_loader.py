#!/usr/bin/python3
"""analysis_loader.py RESULTS.h5 WORKDIR: the galapagos package (python/) against h5py on a real run's
file (every row, decoded strings, parameter columns, the winner), a file without /llm_calls and
one with it, and the worked example of docs/analysis.md run as it is written."""
import json
import os
import re
import shutil
import subprocess
import sys

import h5py
import numpy as np

results, work = sys.argv[1:3]
root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(root, "python"))
from galapagos import load  # noqa: E402


def fail(msg):
    print(f"FAIL: {msg}")
    sys.exit(1)


shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
r = load(results)
with h5py.File(results, "r") as f:
    raw = f["candidates"][:]
    llm_rows = len(f["llm_calls"]) if "llm_calls" in f else 0
    gens, bases = len(f["generations"]), len(f["baselines"])
    winner = int(f["winner"].attrs["candidate_id"])
    version = f.attrs["galapagos_version"]
if len(r.candidates) != len(raw) or list(r.candidates.id) != [int(x) for x in raw["id"]]:
    fail("candidates differ from /candidates")
if list(r.candidates.status) != [s.decode() for s in raw["status"]]:
    fail("statuses are not the decoded strings of /candidates")
params = [json.loads(p) for p in raw["params"]]
names = list(params[0])
if r.parameters != names:
    fail(f"parameters {r.parameters}, expected {names}")
for n in names:
    if list(r.candidates["param_" + n]) != [p[n] for p in params]:
        fail(f"column param_{n} does not hold the parameter's values")
ok = raw[raw["status"] == b"ok"]
if not np.allclose(sorted(r.ok().time_median_s), sorted(ok["time_median_s"])):
    fail("ok() does not hold the correct candidates' times")
if len(r.generations) != gens or len(r.baselines) != bases or r.attrs["galapagos_version"] != version:
    fail("generations, baselines or attributes differ from the file")
if int(r.best().id) != winner:
    fail(f"best() is candidate {r.best().id}, the file's winner is {winner}")
if len(r.llm_calls) != llm_rows or "prompt_tokens" not in r.llm_calls.columns:
    fail(f"/llm_calls: {len(r.llm_calls)} rows read, the file has {llm_rows}")
b = r.best()
if r.source(b.source_hash) is None or "glp_kernel" not in r.source(b.source_hash):
    fail("source() of the winner's hash")
print(f"loader: {len(r.candidates)} candidates, {len(names)} parameters, winner {winner}")

# A file without /llm_calls (older files) gives an empty frame with the usual columns.
without_llm = os.path.join(work, "without_llm.h5")
shutil.copy(results, without_llm)
with h5py.File(without_llm, "r+") as f:
    if "llm_calls" in f:
        del f["llm_calls"]
calls = load(without_llm).llm_calls
if not calls.empty or not {"model", "prompt_tokens", "cost", "outcome", "candidate_id"} <= set(calls.columns):
    fail(f"a file without /llm_calls must give an empty frame with the usual columns: {list(calls.columns)}")

# A file with LLM calls (rows as the LLM proposer writes them) comes back as a frame.
with_llm = os.path.join(work, "with_llm.h5")
shutil.copy(results, with_llm)
with h5py.File(with_llm, "r+") as f:
    dt = f["llm_calls"].dtype if "llm_calls" in f else np.dtype(
        [("id", "<i8"), ("island", "<i4"), ("generation", "<i4"), ("model", h5py.string_dtype()),
         ("prompt_tokens", "<i8"), ("cost", "<f8"), ("candidate_id", "<i8"), ("outcome", h5py.string_dtype())])
    rows = np.zeros(2, dtype=dt)
    for i, (outcome, cost) in enumerate([(b"ok", 0.01), (b"no_edit", 0.02)]):
        rows[i]["id"], rows[i]["generation"], rows[i]["model"], rows[i]["outcome"], rows[i]["cost"] = i, i + 1, b"m1", outcome, cost
        rows[i]["prompt_tokens"], rows[i]["candidate_id"] = 900, 3 - 4 * i
    for name in dt.names:  # the other strings: empty, not None
        if dt[name].kind == "O":
            for i in range(2):
                rows[i][name] = rows[i][name] or b""
    if "llm_calls" in f:
        del f["llm_calls"]
    f.create_dataset("llm_calls", data=rows, maxshape=(None,), chunks=True)
calls = load(with_llm).llm_calls
if len(calls) != 2 or list(calls.outcome) != ["ok", "no_edit"] or abs(calls.cost.sum() - 0.03) > 1e-12:
    fail(f"/llm_calls read back as {calls}")

# The worked example, exactly as docs/analysis.md shows it.
doc = open(os.path.join(root, "docs", "analysis.md"), encoding="utf-8").read()
example = re.search(r"## Worked example.*?```python\n(.*?)```", doc, re.S).group(1)
for path in (without_llm, with_llm):
    p = subprocess.run(["/usr/bin/python3", "-c", f"RESULTS = {os.path.abspath(path)!r}\n" + example], cwd=root, capture_output=True,
                       text=True, timeout=120, env=dict(os.environ, PYTHONPATH=os.path.join(root, "python")))
    if p.returncode != 0 or "roofline fraction of the winner" not in p.stdout:
        fail(f"the docs/analysis.md example fails on {path}: {p.stderr[-800:]}")
if "no_edit" not in p.stdout:
    fail("the example's LLM part did not run on the file with /llm_calls")
print("docs/analysis.md example runs")
print("PASS")
