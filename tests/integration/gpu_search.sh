#!/usr/bin/env bash
# gpu_search.sh GALAPAGOS SOURCE_DIR BACKEND: on a machine with an NVIDIA GPU, evaluates the GPU
# baseline and template of stencil3d7 and runs a small search; elsewhere skips (exit 77).
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
if [[ $backend == cuda ]]; then
  out=$(mktemp -d)/search.h5
  "$galapagos" run "$src/configs/stencil3d7-cuda-ci.toml" --out "$out"
  /usr/bin/python3 "$src/tests/integration/check_search_results.py" "$out" 1
fi
