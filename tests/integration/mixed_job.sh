#!/usr/bin/env bash
# mixed_job.sh GALAPAGOS MPIEXEC SOURCE_DIR WORK: one MPI job with islands of two kinds, started
# the way users mix CPU and GPU islands (mpirun ... : ...): two stencil3d7 islands and one spmv
# island. Migrants stay within a family and backend, each kind measures its own baselines and
# gets its own winner; islands of one kind that run different configs are refused.
set -euo pipefail
galapagos=$1 mpiexec=$2 src=$3 work=$4
rm -rf "$work" && mkdir -p "$work"
mpi=("$mpiexec" --oversubscribe --allow-run-as-root --bind-to none)
"${mpi[@]}" -n 2 "$galapagos" run "$src/configs/stencil3d7-cpu-ci.toml" --out "$work/mixed.h5" --budget 4 : \
  -n 1 "$galapagos" run "$src/configs/spmv-cpu-ci.toml" --out "$work/mixed.h5" --budget 4 >"$work/log" 2>&1 ||
  { tail -30 "$work/log"; echo "FAIL: the mixed job failed"; exit 1; }
/usr/bin/python3 - "$work/mixed.h5" <<'PY'
import json
import sys
import h5py
failures = []
def expect(ok, what):
    if not ok:
        failures.append(what)
with h5py.File(sys.argv[1], "r") as f:
    kinds = json.loads(f.attrs["island_kinds"])
    expect(kinds == ["stencil3d7/cpu", "stencil3d7/cpu", "spmv/cpu"], f"island_kinds {kinds}")
    edges = {(int(m["from_island"]), int(m["to_island"])) for m in f["migrations"][:]}
    expect(edges and edges <= {(0, 1), (1, 0)}, f"migrations cross kinds: {sorted(edges)}")
    expect(json.loads(f.attrs["migration_targets"])[2] == [], "the lone spmv island has migration targets")
    baselines = {(b["name"].decode(), int(b["island"])) for b in f["baselines"][:]}
    expect(("openmp_plain", 0) in baselines and ("kokkos_kernels", 2) in baselines and ("openmp_plain", 2) in baselines,
           f"baselines {sorted(baselines)}")
    params = {int(c["island"]): json.loads(c["params"]) for c in f["candidates"][:]}
    expect("TILE_X" in params[0] and "FORMAT" in params[2], f"islands searched the wrong spaces: {params}")
    expect(f["winner"].attrs["family"] == "stencil3d7" and f["winner"].attrs["status"] == "ok", "the stencil3d7 winner")
    w = f["winners/spmv-cpu"].attrs
    expect(w["family"] == "spmv" and w["status"] == "ok" and int(w["candidate_id"]) // 1000000 == 2,
           f"the spmv winner: {dict(w)}")
    expect(w["speedup"] > 0 and "baseline_kokkos_kernels_median_s" in w, "the spmv winner's comparison")
for what in failures:
    print("FAIL:", what)
print("mixed job: ok" if not failures else f"{len(failures)} failures")
sys.exit(1 if failures else 0)
PY
# Islands of one family and backend must run one config.
if "${mpi[@]}" -n 1 "$galapagos" run "$src/configs/stencil3d7-cpu-ci.toml" --out "$work/refused.h5" : \
    -n 1 "$galapagos" run "$src/configs/stencil3d7-cpu.toml" --out "$work/refused.h5" >"$work/refused.log" 2>&1; then
  echo "FAIL: two stencil3d7 islands with different configs were accepted"; exit 1
fi
grep -q "the islands of stencil3d7 on cpu in this job must all run one config" "$work/refused.log" ||
  { cat "$work/refused.log"; echo "FAIL: no clear error for islands of one kind with different configs"; exit 1; }
[[ ! -e $work/refused.h5 ]] || { echo "FAIL: a results file was written"; exit 1; }
echo "refused: islands of one kind with different configs"
