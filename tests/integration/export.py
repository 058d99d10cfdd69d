#!/usr/bin/python3
"""export.py GALAPAGOS RESULTS.h5 WORKDIR: `galapagos export` on a real run's file.

1. The winner: verified again on held-out problems (none of them an acceptance or fitness size),
   exit 0; the package's source applies to the template as its diff, build.sh builds it into a
   shared object exporting glp_kernel, reproduce.sh judges it with `galapagos eval` (exit 0).
2. A copy of the file whose stored source (/sources/<hash>) cheats: correct at exactly the
   family's acceptance and fitness sizes, wrong elsewhere. The search's checks cannot see it; the
   held-out check must: exit 1, FLAGGED.md, a FLAGGED line on stderr, verdict "flagged".
3. --id of a candidate that failed: exit 2, one line, nothing written."""
import json
import os
import re
import shutil
import subprocess
import sys
import tomllib

import h5py

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
from galapagos.results import content_hash  # noqa: E402

galapagos, results, work = sys.argv[1:4]
root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def fail(msg):
    print(f"FAIL: {msg}")
    sys.exit(1)


def run(args, **kw):
    return subprocess.run(args, capture_output=True, text=True, timeout=300, **kw)


shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
with open(os.path.join(root, "kernels", "stencil3d7", "family.toml"), "rb") as f:
    family = tomllib.load(f)
searched = {(s["nx"], s["ny"], s["nz"]) for s in family["sizes"]["accept"]}
searched |= {(s["nx"], s["ny"], s["nz"]) for k, s in family["sizes"].items() if k != "accept"}

# 1. The winner.
pkg = os.path.join(work, "winner")
p = run([galapagos, "export", results, "--best", "--out", pkg])
if p.returncode != 0:
    fail(f"export of the winner exited {p.returncode}: {p.stdout}{p.stderr}")
with h5py.File(results, "r") as f:
    winner_id = int(f["winner"].attrs["candidate_id"])
    winner_params = json.loads(f["winner"].attrs["params"])
names = sorted(os.listdir(pkg))
want = [".galapagos-output", "EVIDENCE.md", "build.sh", "config.toml", "evidence.json", "reproduce.sh", "stencil3d7.cpp", "stencil3d7.cpp.diff",
        "winner.patch"]
if names != want:
    fail(f"package files {names}, expected {want}")
mask = os.umask(0)
os.umask(mask)
if os.stat(pkg).st_mode & 0o777 != 0o777 & ~mask:  # the group reads it as any folder the user makes
    fail(f"package folder mode {os.stat(pkg).st_mode & 0o777:o}, expected {0o777 & ~mask:o} (umask {mask:03o})")
ev = json.load(open(os.path.join(pkg, "evidence.json")))
if ev["candidate_id"] != winner_id or ev["params"] != winner_params or ev["verdict"] != "verified" or not ev["is_winner"]:
    fail(f"evidence.json does not describe the verified winner: {ev}")
held = [tuple(int(v) for v in re.findall(r"=(\d+)", d)) for d in ev["held_out"]["problems"]]
if len(held) != len(family["sizes"]["accept"]) or set(held) & searched:
    fail(f"held-out problems {held} are not new ({len(held)} of them; searched: {sorted(searched)})")
if ev["held_out"]["status"] != "ok" or ev["held_out"]["verified_runs"] < len(held) * 3:
    fail(f"held-out check: {ev['held_out']}")
for name, s in ev["search"]["speedup_over"].items():
    if not s["speedup"] > 0:
        fail(f"no speedup over baseline {name}")
with h5py.File(results, "r") as f:  # EVIDENCE.md gives the winner's figure as the report does, and says what it is
    final, fastest = float(f["winner"].attrs["speedup"]), f["winner"].attrs["fastest_baseline"]
fastest = fastest.decode() if isinstance(fastest, bytes) else fastest
line = re.search(rf"^- speedup over {re.escape(fastest)}: (.*)$", open(os.path.join(pkg, "EVIDENCE.md")).read(), re.M)
if not line or not line.group(1).startswith(f"{final:.2f}x (baseline ") or "final interleaved comparison" not in line.group(1):
    fail(f"EVIDENCE.md does not give /winner speedup {final:.2f}x over {fastest} from the final interleaved comparison: "
         f"{line and line.group(0)}")
src = open(os.path.join(pkg, "stencil3d7.cpp")).read()
for k, v in winner_params.items():
    if f"#define GLP_{k} {v}\n" not in src:
        fail(f"the exported source does not fix {k} = {v}")
# The diff turns the template into the exported source.
tree = os.path.join(work, "tree")
os.makedirs(os.path.join(tree, "kernels", "stencil3d7", "cpu"))
shutil.copy(os.path.join(root, "kernels", "stencil3d7", "cpu", "stencil3d7.cpp"), os.path.join(tree, "kernels", "stencil3d7", "cpu"))
p = run(["patch", "-p1", "-i", os.path.join(pkg, "stencil3d7.cpp.diff")], cwd=tree)
if p.returncode != 0 or open(os.path.join(tree, "kernels", "stencil3d7", "cpu", "stencil3d7.cpp")).read() != src:
    fail(f"the diff does not turn the template into the exported source: {p.stdout}{p.stderr}")
p = run(["sh", os.path.join(pkg, "build.sh")])
so = os.path.join(pkg, "stencil3d7.so")
if p.returncode != 0 or not os.path.isfile(so) or " T glp_kernel" not in run(["nm", "-D", so]).stdout:
    fail(f"build.sh did not build a shared object exporting glp_kernel: {p.stderr}")
p = run(["sh", os.path.join(pkg, "reproduce.sh"), "--no-baselines", "--json"])
if p.returncode != 0 or json.loads(p.stdout.strip().splitlines()[-1])["status"] != "ok":
    fail(f"reproduce.sh: exit {p.returncode}: {p.stdout}{p.stderr}")
print(f"winner {winner_id}: verified on {len(held)} held-out sizes; diff, build.sh and reproduce.sh work")

# 2. A source that is right only where the search looked.
cheat_file = os.path.join(work, "cheat.h5")
shutil.copy(results, cheat_file)
known = " || ".join(f"(nx == {a} && ny == {b} && nz == {c})" for a, b, c in sorted(searched))
honest = open(os.path.join(root, "kernels", "stencil3d7", "baselines", "openmp_plain.cpp")).read()
cheat = honest.replace("  return 0;\n}", f"  if (!({known}) && nx * ny * nz > 0) v[0] += 1.0;\n  return 0;\n}}")
if cheat == honest:
    fail("could not build the cheating source")
with h5py.File(cheat_file, "r+") as f:  # the cheat stored under its own hash, the winner's row pointing at it
    rows = f["candidates"][:]
    index = [i for i, c in enumerate(rows) if int(c["id"]) == winner_id][0]
    h = content_hash(cheat)
    f["sources"].create_dataset(h, data=cheat, dtype=h5py.string_dtype("utf-8"))
    row = rows[index]
    row["source_hash"] = h.encode()
    f["candidates"][index] = row
    if "source_hash" in f["winner"].attrs:
        f["winner"].attrs["source_hash"] = h
flagged = os.path.join(work, "flagged")
p = run([galapagos, "export", cheat_file, "--out", flagged])
if p.returncode != 1:
    fail(f"export of a cheating winner exited {p.returncode}, expected 1: {p.stdout}{p.stderr}")
if not re.search(r"^galapagos export: FLAGGED: .*wrong_result", p.stderr, re.M):
    fail(f"no FLAGGED line on stderr: {p.stderr}")
if not os.path.isfile(os.path.join(flagged, "FLAGGED.md")) or os.path.exists(os.path.join(flagged, "EVIDENCE.md")):
    fail(f"the flagged package has no FLAGGED.md (or an EVIDENCE.md): {os.listdir(flagged)}")
ev = json.load(open(os.path.join(flagged, "evidence.json")))
if ev["verdict"] != "flagged" or ev["held_out"]["status"] != "wrong_result":
    fail(f"evidence.json of the cheat: {ev['verdict']} {ev['held_out']}")
if "Do not merge" not in open(os.path.join(flagged, "FLAGGED.md")).read():
    fail("FLAGGED.md does not warn the reviewer")
print("a winner right only at the searched sizes is FLAGGED (exit 1)")

# 3. A candidate that failed in the search.
with h5py.File(results, "r") as f:
    failed = [int(c["id"]) for c in f["candidates"][:] if c["status"] != b"ok"]
if failed:
    out = os.path.join(work, "failed")
    p = run([galapagos, "export", results, "--id", str(failed[0]), "--out", out])
    lines = p.stderr.strip().splitlines()
    if p.returncode != 2 or len(lines) != 1 or "did not pass its checks" not in lines[0] or os.path.exists(out):
        fail(f"export of failed candidate {failed[0]}: exit {p.returncode}, stderr {p.stderr!r}")
    print(f"candidate {failed[0]} (failed in the search) is refused")
p = run([galapagos, "export", results, "--id", "999999", "--out", os.path.join(work, "none")])
if p.returncode != 2 or "no candidate 999999" not in p.stderr:
    fail(f"export --id 999999: exit {p.returncode}: {p.stderr}")
leftovers = [n for n in os.listdir(work) if n.startswith(".export-")]
if leftovers:
    fail(f"scratch folders left behind: {leftovers}")
print("PASS")
