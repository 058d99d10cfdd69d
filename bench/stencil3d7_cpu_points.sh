#!/usr/bin/env bash
# bench/stencil3d7_cpu_points.sh [ROUNDS] [POINT...]: builds the stencil3d7 CPU template
# (kernels/stencil3d7/cpu/stencil3d7.cpp, the family's flags) at each POINT ("SIMD=4 UNROLL=2 ...";
# default: the template's defaults, then SIMD 4 points with 1, 2 and 4 planes at once) and times
# the builds side by side at 320x240x200, ROUNDS calls each taken in turn (default 40;
# bench/stencil3d7_cpu_points.cpp). Every build's v is compared with the first one's.
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-40}
shift $(($# >= 1 ? 1 : 0))
points=("$@")
if [[ ${#points[@]} -eq 0 ]]; then
  points=("" "SIMD=4 UNROLL=4 TILE_Z=4 PLANES=1" "SIMD=4 UNROLL=2 TILE_Z=4 PLANES=1" "SIMD=4 UNROLL=4 TILE_Z=4 PLANES=2"
          "SIMD=4 UNROLL=2 TILE_Z=4 PLANES=4" "SIMD=4 UNROLL=2 TILE_Z=8 PLANES=4")
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
g++ -std=c++17 -O2 -I kernels/include bench/stencil3d7_cpu_points.cpp -o "$work/points" -ldl
mapfile -t sos < <(bench/cpu_points_build.sh kernels/stencil3d7/cpu/stencil3d7.cpp "$work" "${points[@]}")
cd "$work" && OMP_NUM_THREADS=${OMP_NUM_THREADS:-$(nproc)} OMP_PROC_BIND=${OMP_PROC_BIND:-close} ./points "$rounds" "${sos[@]}"
