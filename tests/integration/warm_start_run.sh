#!/usr/bin/env bash
# warm_start_run.sh GALAPAGOS SOURCE_DIR: `galapagos run` with [strategy] warm_start. A replayed
# search of the recorded stencil3d7 space, warm-started from that recording, measures the
# recording's optimum in its first generation and says what it read; a warm start from another
# family's recording is refused before any results file exists, with one line naming the file.
set -u
galapagos=$1 src=$2
python=/usr/bin/python3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
fail() { echo "FAIL $*"; failures=$((failures + 1)); }
space=$src/tests/data/spaces/stencil3d7-cpu.h5
cp "$space" "$work/earlier.h5"
config() {  # config FILE PRIOR
  printf '[run]\nfamily = "stencil3d7"\nbackend = "cpu"\nkernel_paths = ["%s"]\n[search]\nbudget = 8\npopulation = 8\noffspring = 8\n[strategy]\nwarm_start = ["%s"]\n[eval]\nfitness_size = "small"\n' \
    "$src/tests/data/spaces/kernels" "$2" >"$1"
}
config "$work/warm.toml" earlier.h5  # relative to the config's folder
"$galapagos" run "$work/warm.toml" --replay "$space" --out "$work/out.h5" >"$work/out.log" 2>&1 || fail "run: exit $? ($(tail -3 "$work/out.log"))"
grep -q "^warm start: 240 of 240 points of $work/earlier.h5 (galapagos results); guides the forest islands" "$work/out.log" ||
  fail "run: no warm start line: $(head -5 "$work/out.log")"
"$python" - "$work/out.h5" "$space" <<'PY' || fail "first generation"
import sys, h5py, numpy as np
run = h5py.File(sys.argv[1])["candidates"][:]
rec = h5py.File(sys.argv[2])["candidates"][:]
ok = rec[rec["status"] == b"ok"]
best = ok["params"][np.argmin(ok["time_median_s"])]
first = run[run["generation"] == 0]
assert len(first) == 8, f"{len(first)} candidates in generation 0"
assert best in set(first["params"]), f"the recording's optimum {best} is not in the first generation {list(first['params'])}"
print("ok   warm start: the recording's optimum was measured in generation 0")
PY
config "$work/other.toml" "$src/tests/data/spaces/gemm-cpu.h5"
"$galapagos" run "$work/other.toml" --replay "$space" --out "$work/other.h5" >"$work/other.log" 2>"$work/other.err"
code=$?
[[ $code -eq 2 ]] || fail "other family's recording: exit $code, expected 2"
[[ $(wc -l <"$work/other.err") -eq 1 ]] && grep -q "gemm-cpu.h5: warm start: has no parameter 'TILE_X' of the search space" "$work/other.err" ||
  fail "other family's recording: stderr $(cat "$work/other.err")"
[[ ! -e $work/other.h5 ]] || fail "other family's recording: a results file was written"
if ((failures > 0)); then echo "$failures failure(s)"; exit 1; fi
echo "ok   warm start in a run"
