#!/usr/bin/env bash
# spmv_matrix_market.sh GALAPAGOS SOURCE_DIR: a Matrix Market file given by path is searched
# like a generated matrix, and a malformed one is one clear line and exit code 2.
set -u
galapagos=$1 src=$2
shared=$src/../shared/data/matrices
matrix=$shared/1138_bus.mtx
[[ -f $matrix ]] || matrix=$src/tests/data/mtx/symmetric_real.mtx
out=$("$galapagos" eval --family spmv --backend cpu --config "$src/configs/spmv-cpu-ci.toml" --problem "mtx:$matrix" \
      --no-baselines --json "$src/kernels/spmv/cpu/spmv.cpp")
echo "$out"
echo "$out" | /usr/bin/python3 -c 'import json,sys; d=json.load(sys.stdin); sys.exit(0 if d["status"] == "ok" else 1)' ||
  { echo "FAIL: spmv on $matrix was not accepted"; exit 1; }
bad=$(mktemp --suffix=.mtx)
trap 'rm -f "$bad"' EXIT
printf '%%%%MatrixMarket matrix coordinate real general\n3 3 2\n1 1 1.0\n4 2 2.0\n' >"$bad"
err=$("$galapagos" eval --family spmv --backend cpu --problem "mtx:$bad" --no-baselines "$src/kernels/spmv/cpu/spmv.cpp" 2>&1)
code=$?
echo "$err"
[[ $code -eq 2 ]] || { echo "FAIL: malformed file gave exit code $code, expected 2"; exit 1; }
[[ $(printf '%s\n' "$err" | wc -l) -eq 1 ]] || { echo "FAIL: expected one line"; exit 1; }
printf '%s' "$err" | grep -q "$(basename "$bad")" || { echo "FAIL: the message does not name the file"; exit 1; }
echo "Matrix Market path ok"
