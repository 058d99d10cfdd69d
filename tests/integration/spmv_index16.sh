#!/usr/bin/env bash
# spmv_index16.sh GALAPAGOS SOURCE_DIR [BACKEND]: the template's SELL copy with 16-bit column
# offsets (INDEX 16) is correct on both sides of its limit (BACKEND cpu by default; cuda or hip on
# a machine with a GPU). Two 40000 x 40000 Matrix Market matrices: one
# whose farthest entries lie exactly 32767 columns right and 32768 columns left of their rows (the
# offsets fit: the 16-bit copy is used), one with an entry 32768 columns right (they do not: setup
# keeps 32-bit columns). Each is judged by `galapagos eval` at three points (CPU: AVX-512 and AVX2
# gathers, the compiler's own loops with prefetching; GPU: lanes per row 1, 4 and 32): every one
# must be ok, its error within the family's tolerance.
set -u
galapagos=$1 src=$2 backend=${3:-cpu}
case $backend in
  cpu) template=cpu/spmv.cpp points=("SIMD=2 C=8 UNROLL=2" "SIMD=2 C=4 UNROLL=1" "SIMD=1 C=16 UNROLL=4 PREFETCH=16") ;;
  cuda | hip)
    template=$backend/spmv.${backend/cuda/cu}
    points=("THREADS_PER_ROW=1 C=32 BLOCK=128 UNROLL=1" "THREADS_PER_ROW=4 C=8 BLOCK=256 UNROLL=2"
            "THREADS_PER_ROW=32 C=64 BLOCK=1024 UNROLL=4") ;;
  *) echo "spmv_index16: unknown backend $backend" >&2; exit 2 ;;
esac
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
printf '[run]\nfamily = "spmv"\n[eval]\ntimeout_s = 60\nseeds = 1\nmin_repetitions = 3\nmax_repetitions = 5\ntime_cap_s = 0.3\n' >"$work/eval.toml"

matrix() {  # matrix FILE EXTRA_ENTRIES...: the 40000 x 40000 diagonal plus the given "row col" (1-based)
  local file=$1 n=40000
  shift
  {
    echo '%%MatrixMarket matrix coordinate real general'
    echo "$n $n $((n + $#))"
    awk -v n=$n 'BEGIN { for (i = 1; i <= n; ++i) printf "%d %d %.6f\n", i, i, 1.0 + (i % 7) / 8 }'
    for e in "$@"; do echo "$e 0.5"; done
  } >"$file"
}
matrix "$work/fits.mtx" "1 32768" "32769 1" "40000 7233"
matrix "$work/wide.mtx" "1 32769" "32769 1"

for m in fits wide; do
  for point in "${points[@]}"; do
    args=(--param FORMAT=1 --param SIGMA=256 --param INDEX=16)
    for kv in $point; do args+=(--param "$kv"); done
    "$galapagos" eval --family spmv --backend "$backend" --config "$work/eval.toml" --problem "mtx:$work/$m.mtx" --no-baselines \
      --json "${args[@]}" "$src/kernels/spmv/$template" >"$work/out.json" 2>"$work/stderr"
    verdict=$(/usr/bin/python3 - "$work/out.json" <<'PY'
import json, sys
try:
    d = json.load(open(sys.argv[1]))
except ValueError as e:
    print(f"no JSON ({e})"); sys.exit()
err = d.get("rel_error")
print("ok" if d.get("status") == "ok" and err is not None and err <= 1e-12 else f"{d.get('status')} rel_error {err} {d.get('reason', '')}")
PY
)
    if [[ $verdict == ok ]]; then echo "ok   $m, $point"; else echo "FAIL $m, $point: $verdict $(head -c 400 "$work/stderr")"; failures=$((failures + 1)); fi
  done
done
if ((failures > 0)); then echo "$failures failure(s)"; exit 1; fi
echo "the 16-bit SELL columns are correct where they fit and fall back where they do not"
