#!/usr/bin/env bash
# spmv_limits.sh GALAPAGOS SOURCE_DIR: the spmv family refuses what cannot fit and accepts what is
# honest. A Matrix Market size line declaring more entries than the file holds, or a matrix that
# would exhaust memory, is refused with one line naming the file (no std::bad_alloc); the
# baselines on a wide matrix (3 x 100000, 3 entries) are ok: the cost model counts only the
# entries of x a kernel must read, so the floor does not reject them as too fast.
set -u
galapagos=$1 src=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
printf '[run]\nfamily = "spmv"\n[eval]\ntimeout_s = 20\nseeds = 1\nmin_repetitions = 3\nmax_repetitions = 8\ntime_cap_s = 0.3\n' >"$work/eval.toml"
baseline="$src/kernels/spmv/baselines/openmp_plain.cpp"

expect() {  # expect NAME PATTERN COMMAND...: exit 2, one line matching PATTERN
  local name=$1 pattern=$2
  shift 2
  "$@" >"$work/stdout" 2>"$work/stderr"
  local code=$? err
  err=$(cat "$work/stderr")
  if [[ $code -ne 2 ]]; then echo "FAIL $name: exit code $code, expected 2 (stderr: $err)"; failures=$((failures + 1)); return; fi
  if [[ $(wc -l <"$work/stderr") -ne 1 ]]; then echo "FAIL $name: expected one line on stderr, got: $err"; failures=$((failures + 1)); return; fi
  if ! grep -qE -- "$pattern" "$work/stderr"; then echo "FAIL $name: stderr does not match '$pattern': $err"; failures=$((failures + 1)); return; fi
  echo "ok   $name: $err"
}

printf '%%%%MatrixMarket matrix coordinate real general\n200000000 200000000 200000000\n1 1 1.0\n' >"$work/entries.mtx"
expect mtx_entries_beyond_file "entries\.mtx: line 2: wrong size line: 200000000 entries declared, but the file holds only [0-9]+ bytes" \
  "$galapagos" eval --family spmv --config "$work/eval.toml" --problem "mtx:$work/entries.mtx" --no-baselines "$baseline"
# 2e8 x 2e8 with one entry: 4.8 GB of arguments, held three times; 4 GB of address space.
printf '%%%%MatrixMarket matrix coordinate real general\n200000000 200000000 1\n1 1 1.0\n' >"$work/rows.mtx"
expect mtx_beyond_memory "rows\.mtx: a 200000000 x 200000000 matrix with 1 entries needs about .* GB of memory, more than the .* GB available" \
  bash -c 'ulimit -v 4000000 && exec "$@"' -- "$galapagos" eval --family spmv --config "$work/eval.toml" --problem "mtx:$work/rows.mtx" --no-baselines "$baseline"

# The wide matrix: every baseline ok (none suspect_too_fast).
"$galapagos" eval --family spmv --config "$work/eval.toml" --problem "random rows=3 cols=100000 per_row=1" --json "$baseline" >"$work/wide.json" 2>"$work/stderr"
if /usr/bin/python3 - "$work/wide.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
statuses = {"candidate": d["status"], **{k: v["status"] for k, v in d["baselines"].items()}}
print(statuses)
sys.exit(0 if d["baselines"] and all(s == "ok" for s in statuses.values()) else 1)
PY
then echo "ok   wide_matrix_baselines"; else echo "FAIL wide_matrix_baselines: $(cat "$work/stderr")"; failures=$((failures + 1)); fi

if ((failures > 0)); then echo "$failures failure(s)"; exit 1; fi
echo "spmv refuses what cannot fit and accepts the honest baselines on a wide matrix"
