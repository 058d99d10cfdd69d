#!/usr/bin/env bash
# bench/spmv_cpu_points.sh [N] [ROUNDS] [POINT...]: builds the spmv CPU template
# (kernels/spmv/cpu/spmv.cpp, the family's flags) at each POINT ("C=8 SIGMA=4096 ..."; default: two
# SELL points, each with 32-bit and 16-bit columns) and times the builds side by side on the
# 27-point Poisson matrix of an N^3 grid (default 80), ROUNDS calls each taken in turn (default 30;
# bench/spmv_cpu_points.cpp). Every build's y is checked against the first one's. With
# SPMV_POINTS_MATRIX=random the matrix has 27 random columns per row instead (no structure).
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-80} rounds=${2:-30}
shift $(($# >= 2 ? 2 : $#))
points=("$@")
if [[ ${#points[@]} -eq 0 ]]; then
  for p in "C=8 SIGMA=4096 SIMD=2 UNROLL=2" "C=16 SIGMA=256 SIMD=2 UNROLL=4 PREFETCH=64"; do
    points+=("$p INDEX=32" "$p INDEX=16")
  done
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
g++ -std=c++17 -O2 -I kernels/include bench/spmv_cpu_points.cpp -o "$work/points" -ldl
mapfile -t sos < <(bench/cpu_points_build.sh kernels/spmv/cpu/spmv.cpp "$work" "${points[@]/#/FORMAT=1 }")
cd "$work" && OMP_NUM_THREADS=${OMP_NUM_THREADS:-$(nproc)} OMP_PROC_BIND=${OMP_PROC_BIND:-close} ./points "$n" "$rounds" "${sos[@]}"
