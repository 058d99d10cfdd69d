#!/usr/bin/env bash
# bench/gemm_cuda_kernel.sh [REF] POINT...: on a machine with an NVIDIA GPU and nvcc, builds the
# float64 gemm CUDA template (kernels/gemm/cuda/gemm.cu) at each POINT
# ("MMA=3 BM=64 BN=128 BK=32 WM=64 WN=32 SPLITK=2 STAGES=2 BLOCKS_PER_SM=2"; the SIMT-only
# parameters are held at their tensor-core values) with bench/gemm_cuda_kernel.cu and times it
# beside cuBLAS, twice. With REF (a git revision) the same points are also built from the
# template as it was at REF, and both are timed in turn: a template change judged side by side
# (REF must be in the machine's git history; the device tool's copy may hold only an older commit).
# Faster than bench/gemm_cuda_points.sh (no galapagos, no evaluator: a kernel-level comparison,
# its C checked against cuBLAS's only).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH=/usr/local/cuda/bin:$PATH
ref=""
if [[ $# -gt 0 && $1 != *=* ]]; then ref=$1; shift; fi
[[ $# -gt 0 ]] || { echo "usage: bench/gemm_cuda_kernel.sh [REF] POINT..." >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
trees=(now)
mkdir -p "$work/now"
cp -r kernels/gemm kernels/include "$work/now/"
if [[ -n $ref ]]; then
  trees+=("$ref")
  mkdir -p "$work/$ref/gemm/cuda" "$work/$ref/gemm/cuda_hip"
  cp -r kernels/include "$work/$ref/"
  for f in cuda/gemm.cu cuda/gemm_mma.cuh cuda_hip/gemm_kernels.hpp; do
    git show "$ref:kernels/gemm/$f" >"$work/$ref/gemm/$f"
  done
fi
n=0
for point in "$@"; do
  n=$((n + 1))
  flags=(-DGLP_REAL=double -DGLP_TM=1 -DGLP_TN=1 -DGLP_DOUBLE_BUFFER=1 -DGLP_VEC=1)
  for kv in $point; do flags+=("-DGLP_$kv"); done
  for tree in "${trees[@]}"; do
    nvcc -std=c++17 -O3 -arch=sm_90 -lineinfo -I "$work/$tree/include" "${flags[@]}" "$work/$tree/gemm/cuda/gemm.cu" \
      bench/gemm_cuda_kernel.cu -lcublas -o "$work/$tree/p$n" &
  done
done
wait
for pass in 1 2; do
  n=0
  for point in "$@"; do
    n=$((n + 1))
    for tree in "${trees[@]}"; do echo "pass $pass, $tree, $point: $("$work/$tree/p$n" time | tail -1)"; done
  done
done
