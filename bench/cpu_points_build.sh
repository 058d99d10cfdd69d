#!/usr/bin/env bash
# bench/cpu_points_build.sh TEMPLATE DIR POINT...: builds a CPU kernel template once per POINT
# ("NAME=VALUE ..." -> -DGLP_NAME=VALUE; an empty POINT is the template's defaults) with the
# families' CPU flags into DIR/<point>.so, and prints the built files' names (./<point>.so), one
# per line; BENCH_EXTRA_FLAGS adds flags after the families' (e.g. -mno-avx512f to judge a
# template on AVX2). Used by bench/spmv_cpu_points.sh and bench/stencil3d7_cpu_points.sh.
set -euo pipefail
template=$1 dir=$2
shift 2
for point in "$@"; do
  name=$(tr ' =' '_-' <<<"${point:-defaults}")
  defs=()
  for kv in $point; do defs+=("-DGLP_$kv"); done
  g++ -std=c++17 -O3 -march=native -fopenmp -fPIC -shared -fvisibility=hidden ${BENCH_EXTRA_FLAGS:-} -I kernels/include "${defs[@]}" "$template" \
    -o "$dir/$name.so"
  echo "./$name.so"
done
