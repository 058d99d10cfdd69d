#!/usr/bin/env bash
# gpu_gemm_points.sh GALAPAGOS SOURCE_DIR: on a machine with an NVIDIA GPU, evaluates the CUDA gemm
# template at points whose blocks add into C (k splits and stream-K adding atomically, the product
# started beside the scaling pass on sm_90; stream-K in k order, STREAMK 2: a cut tile's shares
# written one after another through its turn counter, no scaling pass) and at points that write C
# once, float32 and float64: every one must be accepted by every check (acceptance shapes including
# k = 1 and odd sizes, verified timed runs, the determinism check in the output's own ulps).
# Elsewhere skips (exit 77).
set -u
galapagos=$1 src=$2
if ! nvidia-smi -L >/dev/null 2>&1; then
  echo "skipped: no NVIDIA GPU on this machine (nvidia-smi lists none)"
  exit 77
fi
f32="BM=64 BN=128 BK=16 WM=64 WN=32 TM=8 TN=8 DOUBLE_BUFFER=1 VEC=1 ASYNC=1 STAGES=4 BLOCKS_PER_SM=3"
f64="MMA=3 BM=64 BN=64 BK=16 WM=32 WN=32 TM=1 TN=1 DOUBLE_BUFFER=1 VEC=1 STAGES=2 BLOCKS_PER_SM=4"
points=(
  "gemm_f32|$f32 SPLITK=1 STREAMK=1"
  "gemm_f32|$f32 SPLITK=1 STREAMK=2"
  "gemm_f32|BM=64 BN=128 BK=16 WM=16 WN=128 TM=8 TN=8 DOUBLE_BUFFER=1 VEC=1 ASYNC=1 STAGES=4 BLOCKS_PER_SM=4 SPLITK=1 STREAMK=2"
  "gemm_f32|$f32 SPLITK=3 STREAMK=0"
  "gemm_f32|$f32 SPLITK=1 STREAMK=0"
  "gemm_f32|BM=128 BN=128 BK=8 WM=64 WN=32 TM=8 TN=8 DOUBLE_BUFFER=1 VEC=4 ASYNC=0 STAGES=2 BLOCKS_PER_SM=1 SPLITK=1 STREAMK=1"
  "gemm|$f64 SPLITK=1 STREAMK=1"
  "gemm|$f64 SPLITK=1 STREAMK=2"
  "gemm|$f64 SPLITK=2 STREAMK=0"
  "gemm|MMA=0 BM=64 BN=64 BK=16 WM=32 WN=16 TM=4 TN=4 DOUBLE_BUFFER=1 VEC=2 SPLITK=1 STREAMK=1 STAGES=2 BLOCKS_PER_SM=1"
  "gemm|MMA=0 BM=64 BN=64 BK=16 WM=32 WN=16 TM=4 TN=4 DOUBLE_BUFFER=1 VEC=2 SPLITK=1 STREAMK=2 STAGES=2 BLOCKS_PER_SM=1"
)
status=0
for entry in "${points[@]}"; do
  family=${entry%%|*}
  args=()
  for kv in ${entry#*|}; do args+=(--param "$kv"); done
  out=$("$galapagos" eval --family "$family" --backend cuda --no-baselines --json "${args[@]}" "$src/kernels/gemm/cuda/gemm.cu")
  verdict=$(printf '%s' "$out" | /usr/bin/python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["status"], d.get("reason", ""))' 2>&1)
  echo "$family ${entry#*|}: $verdict"
  [[ $verdict == "ok "* ]] || status=1
done
exit $status
