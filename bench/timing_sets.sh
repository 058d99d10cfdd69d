#!/usr/bin/env bash
# bench/timing_sets.sh [ROUNDS [BASE [SIZE]]]: on a GPU machine with galapagos on PATH, what timing
# in batches of input sets ([eval] timing_sets, docs/configuration.md) changes in the figures. For
# each kernel, `galapagos eval` with BASE input sets per timed run (default 1) and with the
# automatic choice, taking turns (base, auto, base, auto, ...) ROUNDS times (default 3), side by
# side in one run, at the families' fitness size or at SIZE (e.g. gpu). Prints per kernel and
# setting the median figure, the device's events per call, and the ratio base/auto.
set -u
cd "$(dirname "$0")/.."
rounds=${1:-3} base=${2:-1} size=${3:-}
size_args=()
[[ -n $size ]] && size_args=(--size "$size")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
kernels=("gemm kernels/gemm/cuda/baseline_cublas.cu" "gemm kernels/gemm/cuda/gemm.cu"
         "gemm_f32 kernels/gemm/cuda/baseline_cublas.cu" "stencil3d7 kernels/stencil3d7/cuda/stencil3d7.cu"
         "spmv kernels/spmv/cuda/baseline_cusparse.cu" "spmv kernels/spmv/cuda/spmv.cu")
for k in "${kernels[@]}"; do
  set -- $k
  family=$1 source=$2
  for sets in "$base" 0; do printf '[run]\nfamily = "%s"\n[eval]\ntiming_sets = %d\n' "$family" "$sets" >"$work/$family-$sets.toml"; done
  for ((r = 0; r < rounds; ++r)); do
    for sets in "$base" 0; do
      out=$(galapagos eval --family "$family" --backend cuda --config "$work/$family-$sets.toml" "${size_args[@]}" --no-baselines --json "$source" 2>/dev/null)
      printf '%s %s %s %s\n' "$family" "$source" "$sets" "$out" >>"$work/results.txt"
    done
  done
done
python3 - "$work/results.txt" "$base" <<'PY'
import json, statistics, sys
base = sys.argv[2]
rows = {}
for line in open(sys.argv[1]):
    family, source, sets, text = line.split(" ", 3)
    try:
        d = json.loads(text)
    except ValueError:
        continue
    if d.get("status") != "ok":
        print(f"{family} {source} timing_sets={sets}: {d.get('status')} {d.get('reason', '')[:100]}")
        continue
    rows.setdefault((family, source), {}).setdefault(sets, []).append(d)
print(f"{'kernel':58} {base + ' sets':>10} {'events':>10} {'auto':>10} {'events':>10} {'base/auto':>9}")
for (family, source), by in rows.items():
    if base not in by or "0" not in by:
        continue
    med = lambda ds, key: statistics.median(d[key] for d in ds)
    one, auto = med(by[base], "time_median_s"), med(by["0"], "time_median_s")
    print(f"{family + ' ' + source:58} {one*1e6:8.1f}us {med(by[base], 'worker_clock_median_s')*1e6:8.1f}us "
          f"{auto*1e6:8.1f}us {med(by['0'], 'worker_clock_median_s')*1e6:8.1f}us {one/auto:9.2f}")
PY
