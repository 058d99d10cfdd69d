#!/usr/bin/env bash
# The GPU validation batch, for a machine with an NVIDIA GPU where galapagos is built and on PATH
# (e.g. `tools/gpu-run.sh tools/gpu-validate.sh OUT`): the GPU adversarial candidates on the CUDA
# and the HIP backend, every GPU template and baseline through `galapagos eval` (CUDA, and HIP
# through nvcc and the worker's HIP device), and a stencil3d7 CUDA search. Logs and results go to
# OUT; a summary table is printed last.
#   GALAPAGOS_SEARCH_BUDGET   evaluations of the search (default 16; 0 skips it)
set -u
cd "$(dirname "$0")/.."
out=${1:-gpu-validation}
mkdir -p "$out"
galapagos=$(command -v galapagos) || { echo "gpu-validate: galapagos is not on PATH" >&2; exit 2; }
nvidia-smi --query-gpu=name,compute_cap,memory.total,clocks.max.sm --format=csv,noheader | tee "$out/gpu.txt"
summary=()

# The corpus on both GPU backends: CUDA, and HIP (the worker's HIP device on the CUDA runtime).
for backend in cuda hip; do
  for f in tests/adversarial/gpu/*.cu; do
    expected=$(head -1 "$f" | sed -n 's#^// expect: \([a-z_|]*\).*#\1#p')
    if timeout 300 tests/adversarial/expect_status.sh "$galapagos" "$f" "$expected" tests/adversarial/eval-gpu.toml "$backend" \
        >>"$out/adversarial-$backend.log" 2>&1; then r=pass; else r=FAIL; fi
    summary+=("adversarial/$backend $(basename "$f" .cu): expect $expected: $r")
  done
done

# family backend size source...
evaluate() {
  local family=$1 backend=$2 size=$3
  shift 3
  for src in "$@"; do
    [[ -f $src ]] || continue
    local json
    json=$(timeout 600 "$galapagos" eval --family "$family" --backend "$backend" --size "$size" --no-baselines --json "$src" 2>>"$out/eval.log")
    echo "$family $backend $src $json" >>"$out/eval.log"
    summary+=("$family/$backend $(basename "$src"): $(printf '%s' "$json" | python3 -c 'import json,sys
try:
    d=json.load(sys.stdin); t=d["time_median_s"]
    w=d.get("worker_clock_median_s")
    print(d["status"], "%.1f us" % (t*1e6) if t else "", "(events %.1f us)" % (w*1e6) if w else "", "roofline %.0f%%" % (100*d["roofline_fraction"]) if d["roofline_fraction"] else "", d["reason"][:120])
except Exception as e: print("no JSON")')")
  done
}
evaluate stencil3d7 cuda tune kernels/stencil3d7/cuda/stencil3d7.cu kernels/stencil3d7/cuda/baseline_plain.cu
evaluate stencil3d7 hip tune kernels/stencil3d7/hip/stencil3d7.hip kernels/stencil3d7/hip/baseline_plain.hip
evaluate spmv cuda tune kernels/spmv/cuda/spmv.cu kernels/spmv/cuda/baseline_plain.cu kernels/spmv/cuda/baseline_cusparse.cu
evaluate spmv hip tune kernels/spmv/hip/spmv.hip kernels/spmv/hip/baseline_plain.hip
evaluate gemm cuda small kernels/gemm/cuda/gemm.cu kernels/gemm/cuda/baseline_plain.cu kernels/gemm/cuda/baseline_cublas.cu
evaluate gemm hip small kernels/gemm/hip/gemm.hip
evaluate gemm_f32 cuda small kernels/gemm/cuda/gemm.cu kernels/gemm/cuda/baseline_cublas.cu

budget=${GALAPAGOS_SEARCH_BUDGET:-16}
if [[ $budget -gt 0 ]]; then
  timeout 900 "$galapagos" run configs/stencil3d7-cuda.toml --budget "$budget" --out "$out/stencil3d7-cuda.h5" >"$out/search.log" 2>&1
  summary+=("search stencil3d7/cuda: exit $?: $(grep -A3 '^winner' "$out/search.log" | tr '\n' ' ')")
fi
printf '%s\n' "${summary[@]}" | tee "$out/summary.txt"
