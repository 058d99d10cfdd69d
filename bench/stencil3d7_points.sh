#!/usr/bin/env bash
# bench/stencil3d7_points.sh [REV]: on a machine with an NVIDIA GPU and nvcc, builds the stencil3d7
# CUDA template (kernels/stencil3d7/cuda/stencil3d7.cu) at a set of parameter points, from the
# working tree and, with REV, also from that git revision, and times every build back to back at
# 512x512x384 in one run against cudaMemcpy of the same bytes (bench/stencil3d7_points.cu). The
# first build's output is checked on the host, every other one against it. The points: the
# template's defaults and the z-marching shapes the search favours.
set -euo pipefail
cd "$(dirname "$0")/.."
rev=${1:-}
nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
trees=(now)
mkdir -p "$work/now"
cp -r kernels/stencil3d7/cuda kernels/stencil3d7/cuda_hip "$work/now/"
if [[ -n $rev ]]; then
  trees+=(rev)  # its builds are named rev_...
  mkdir -p "$work/rev/cuda" "$work/rev/cuda_hip"
  git show "$rev:kernels/stencil3d7/cuda/stencil3d7.cu" >"$work/rev/cuda/stencil3d7.cu"
  git show "$rev:kernels/stencil3d7/cuda_hip/stencil3d7_kernels.hpp" >"$work/rev/cuda_hip/stencil3d7_kernels.hpp"
  echo "rev: $(git log -1 --format='%h %cs' "$rev")"
fi
points=("")
for shape in "64 4" "32 4" "128 2" "32 8" "64 2"; do
  set -- $shape
  for unroll in 1 2; do
    for chunk in 8 16 32; do
      for stream in 0 1; do
        points+=("-DGLP_Z_MARCH=1 -DGLP_SHARED=0 -DGLP_BLOCK_X=$1 -DGLP_BLOCK_Y=$2 -DGLP_UNROLL=$unroll -DGLP_Z_CHUNK=$chunk -DGLP_STREAM=$stream")
      done
    done
  done
done
"$nvcc" -std=c++17 -O3 -arch=sm_90 -I kernels/include -o "$work/bench" bench/stencil3d7_points.cu -ldl
jobs=()
for tree in "${trees[@]}"; do
  for p in "${points[@]}"; do
    # nvcc's fatbinary reads ',' '=' ':' in a file name as option syntax: names use '_' and '-'.
    name=$(echo "${p:-defaults}" | sed 's/-DGLP_//g; s/=/-/g; s/ /_/g')
    jobs+=("$nvcc -std=c++17 -O3 -arch=sm_90 -shared -Xcompiler -fPIC -I kernels/include $p $work/$tree/cuda/stencil3d7.cu -o $work/${tree}_$name.so")
  done
done
printf '%s\n' "${jobs[@]}" | xargs -P "$(nproc)" -I{} sh -c '{}'
# The working tree's defaults first (the checked one), then the rest, each tree's points together.
"$work/bench" "$work/now_defaults.so" $(ls "$work"/*.so | grep -v "/now_defaults.so$")
