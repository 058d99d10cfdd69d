#!/usr/bin/env bash
# gpu_search.sh GALAPAGOS SOURCE_DIR BACKEND: on a machine with an NVIDIA GPU, evaluates the GPU
# baseline and template of stencil3d7 and runs a small search on that backend; elsewhere skips
# (exit 77). The HIP backend runs on NVIDIA GPUs through kernels/include/glp_hip_on_cuda.h.
set -u
galapagos=$1 src=$2 backend=$3
if ! nvidia-smi -L >/dev/null 2>&1; then
  echo "skipped: no NVIDIA GPU on this machine (nvidia-smi lists none)"
  exit 77
fi
set -e
ext=cu; [[ $backend == hip ]] && ext=hip
for f in "$src/kernels/stencil3d7/$backend/baseline_plain.$ext" "$src/kernels/stencil3d7/$backend/stencil3d7.$ext"; do
  "$galapagos" eval --family stencil3d7 --backend "$backend" --no-baselines --json "$f" | tee /dev/stderr |
    /usr/bin/python3 -c 'import json,sys; d=json.load(sys.stdin); sys.exit(0 if d["status"] == "ok" else 1)'
done
# The template's looping kernel (sweep_strided, for grids beyond the launch limits) on every
# variant: a copy of the family whose template has a grid limit of 3 blocks per dimension, so
# every shape of the acceptance set, and the timing size, loops over its tiles.
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
mkdir -p "$dir/kernels"
cp -r "$src/kernels/stencil3d7" "$dir/kernels/"
strided=$dir/kernels/stencil3d7/$backend/stencil3d7.$ext
{ echo "#define GLP_STENCIL3D7_GRID_LIMIT 3"; cat "$src/kernels/stencil3d7/$backend/stencil3d7.$ext"; } >"$strided"
for variant in "Z_MARCH=0 SHARED=0 Z_CHUNK=0" "Z_MARCH=0 SHARED=1 Z_CHUNK=0" "Z_MARCH=1 SHARED=0 Z_CHUNK=8" \
               "Z_MARCH=1 SHARED=1 Z_CHUNK=8"; do
  set -- $variant
  GALAPAGOS_KERNEL_PATH=$dir/kernels "$galapagos" eval --family stencil3d7 --backend "$backend" --no-baselines --json \
    --param "$1" --param "$2" --param "$3" --param BLOCK_X=32 --param BLOCK_Y=4 --param UNROLL=2 "$strided" | tee /dev/stderr |
    /usr/bin/python3 -c 'import json,sys; d=json.load(sys.stdin); sys.exit(0 if d["status"] == "ok" else 1)'
done
# A small search: configs/stencil3d7-cuda-ci.toml, on the HIP backend with its backend key changed.
sed "s/^backend = \"cuda\"/backend = \"$backend\"/" "$src/configs/stencil3d7-cuda-ci.toml" >"$dir/search.toml"
grep -q "^backend = \"$backend\"" "$dir/search.toml"
"$galapagos" run "$dir/search.toml" --out "$dir/search.h5"
/usr/bin/python3 "$src/tests/integration/check_search_results.py" "$dir/search.h5" 1
/usr/bin/python3 - "$dir/search.h5" "$backend" <<'PY'
import sys, h5py
with h5py.File(sys.argv[1], "r") as f:
    got = f.attrs["backend"]
    got = got.decode() if isinstance(got, bytes) else str(got)
    assert got == sys.argv[2], f"results file says backend {got}, expected {sys.argv[2]}"
print(f"results file backend: {got}")
PY
