#!/usr/bin/env bash
# bench/gemm_cuda_points.sh OUT [POINTS_FILE]: on a machine with an NVIDIA GPU where galapagos is
# built (e.g. `tools/gpu-run.sh bench/gemm_cuda_points.sh OUT`), judges a set of gemm CUDA points
# at the `tune` size exactly as a search would (`galapagos eval`: acceptance sizes, verified timed
# runs), cuBLAS and the plain kernel timed in the first evaluation. One line per point: status,
# median time, its ratio to cuBLAS; each evaluation's JSON in OUT/pN.json. POINTS_FILE has one
# point per line (NAME=VALUE ...); without it, the tensor-core points below: the 32-evaluation
# search's winner of 2026-12-03 and shapes around it (docs/BENCHMARKS.md). To judge a template
# change, run it before and after (e.g. `git apply docs/results/gemm-mma-paired-fragments.patch`).
# GALAPAGOS_FAMILY=gemm_f32 judges float32 points (configs/gemm_f32-cuda.toml) instead of gemm's.
set -u
cd "$(dirname "$0")/.."
out=${1:?usage: bench/gemm_cuda_points.sh OUT [POINTS_FILE]}
mkdir -p "$out"
family=${GALAPAGOS_FAMILY:-gemm}
galapagos=$(command -v galapagos || echo build-gpu/bin/galapagos)
[[ -x $galapagos ]] || { echo "gemm_cuda_points: no galapagos on PATH or in build-gpu/" >&2; exit 2; }
points=$(mktemp)
trap 'rm -f "$points"' EXIT
if [[ -n ${2:-} ]]; then
  cp "$2" "$points"
else
  fixed="TM=1 TN=1 DOUBLE_BUFFER=1 VEC=1"
  cat >"$points" <<POINTS
MMA=3 BM=64 BN=128 BK=32 WM=64 WN=32 SPLITK=2 STAGES=2 BLOCKS_PER_SM=2 $fixed
MMA=3 BM=64 BN=128 BK=16 WM=64 WN=32 SPLITK=2 STAGES=3 BLOCKS_PER_SM=2 $fixed
MMA=3 BM=128 BN=64 BK=32 WM=64 WN=32 SPLITK=3 STAGES=3 BLOCKS_PER_SM=2 $fixed
MMA=3 BM=128 BN=128 BK=32 WM=64 WN=32 SPLITK=3 STAGES=3 BLOCKS_PER_SM=1 $fixed
MMA=3 BM=64 BN=64 BK=32 WM=32 WN=32 SPLITK=1 STAGES=3 BLOCKS_PER_SM=3 $fixed
MMA=4 BM=128 BN=128 BK=32 WM=64 WN=32 SPLITK=1 STAGES=3 BLOCKS_PER_SM=1 $fixed
MMA=2 BM=128 BN=128 BK=16 WM=64 WN=32 SPLITK=3 STAGES=3 BLOCKS_PER_SM=1 $fixed
MMA=1 BM=64 BN=64 BK=16 WM=32 WN=32 SPLITK=1 STAGES=3 BLOCKS_PER_SM=2 $fixed
POINTS
fi
cublas=""
n=0
status=0
while read -r line; do
  [[ -z $line || $line == \#* ]] && continue
  n=$((n + 1))
  args=()
  for kv in $line; do args+=(--param "$kv"); done
  [[ $n -gt 1 ]] && args+=(--no-baselines)
  "$galapagos" eval --family "$family" --backend cuda kernels/gemm/cuda/gemm.cu --config "configs/$family-cuda.toml" \
    --size tune --json "${args[@]}" >"$out/p$n.json" 2>"$out/p$n.err"
  rc=$?
  [[ $rc -le 1 ]] || status=1
  summary=$(/usr/bin/env python3 - "$out/p$n.json" "$cublas" <<'PY'
import json, sys
try:
    d = json.load(open(sys.argv[1]))
except (OSError, ValueError) as e:
    print(f"no JSON ({e})"); sys.exit()
t = d.get("time_median_s") or 0.0
base = {name: b.get("time_median_s") for name, b in (d.get("baselines") or {}).items()
        if b.get("status") == "ok" and b.get("time_median_s")}
cublas = float(sys.argv[2]) if sys.argv[2] else base.get("cublas", 0.0)
ratio = f"{cublas / t:.2f}x of cuBLAS" if t and cublas else ""
line = f"{d.get('status')} {t * 1e6:.1f} us {ratio} rel_error {d.get('rel_error')}"
if d.get("status") != "ok":
    line += f" ({str(d.get('reason', ''))[:160]})"
print(line)
if base.get("cublas"):
    print(f"CUBLAS {base['cublas']}")
PY
)
  if [[ -z $cublas ]]; then
    cublas=$(sed -n 's/^CUBLAS //p' <<<"$summary")
    [[ -n $cublas ]] && echo "cublas: $(awk -v s="$cublas" 'BEGIN{printf "%.1f us", s*1e6}')"
  fi
  echo "p$n (exit $rc): $(grep -v '^CUBLAS' <<<"$summary") | $line"
done <"$points"
exit $status
