#!/usr/bin/env bash
# no_improvement.sh GALAPAGOS SOURCE_DIR WORK: a CPU search whose template cannot beat its baseline
# (tests/data/kernels/llm_axpb: sixteen useless divisions per element) says so plainly. The run
# completes with exit 0, prints "no candidate beat openmp_plain" with the winner, /winner records
# beat_baseline = 0 beside a speedup below 1, and the report and the export package say it too.
# The family here also has an optional baseline through a vendor library this node lacks: the run
# says it is unavailable, leaves it out of the comparison and the file, and goes on.
set -uo pipefail
galapagos=$1 src=$2 work=$3
rm -rf "$work" && mkdir -p "$work/kernels"
fail() { echo "FAIL: $*"; exit 1; }
cp -r "$src/tests/data/kernels/llm_axpb" "$work/kernels/"
printf '#include <galapagos_no_such_vendor_library.h>\n' >"$work/kernels/llm_axpb/baseline_vendor.cpp"
cat >>"$work/kernels/llm_axpb/family.toml" <<'TOML'

[[cpu.baselines]]
name = "vendor_library"
source = "baseline_vendor.cpp"
libs = ["-lgalapagos_no_such_vendor_library"]
optional = true
TOML
cat >"$work/run.toml" <<TOML
[run]
family = "llm_axpb"
backend = "cpu"
kernel_paths = ["$work/kernels"]
[search]
budget = 4
seed = 5
population = 2
offspring = 2
[migration]
topology = "none"
[eval]
timeout_s = 30
seeds = 1
min_repetitions = 3
max_repetitions = 6
time_cap_s = 0.3
final_rounds = 3
cache_dir = "$work/cache"
TOML
"$galapagos" run "$work/run.toml" --out "$work/slow.h5" >"$work/log" 2>&1
code=$?
cat "$work/log"
[[ $code -eq 0 ]] || fail "the completed search exited $code"
grep -q "^baseline vendor_library: unavailable on this node (compile_error: " "$work/log" ||
  fail "the run does not say that the optional baseline is unavailable"
grep -q "^  no candidate beat openmp_plain: the best one takes [0-9.]*x its time; keep openmp_plain$" "$work/log" ||
  fail "the run does not say that no candidate beat the baseline"
/usr/bin/python3 - "$work/slow.h5" <<'PY' || fail "/winner does not record the outcome"
import sys, h5py
with h5py.File(sys.argv[1], "r") as f:
    w = f["winner"].attrs
    assert float(w["speedup"]) < 1, f"the template beat its baseline after all: speedup {w['speedup']}"
    assert float(w["beat_baseline"]) == 0.0, f"beat_baseline = {w['beat_baseline']}"
    names = [n.decode() if isinstance(n, bytes) else n for n in f["baselines"]["name"][:]]
    assert names == ["openmp_plain"], f"/baselines holds {names}"
    assert not any(k.startswith("baseline_vendor") for k in w.keys()), "the unavailable baseline is in /winner"
    print(f"/winner: speedup {float(w['speedup']):.3f}, beat_baseline {float(w['beat_baseline']):.0f}")
PY
# The report and the export package say it too.
"$galapagos" report "$work/slow.h5" --out "$work/report" >"$work/report.log" 2>&1 || { cat "$work/report.log"; fail "report failed"; }
grep -q "No candidate beat openmp_plain" "$work/report/report.md" || fail "the report does not say that no candidate beat the baseline"
grep -q "did not beat the fastest baseline, openmp_plain" "$work/report/report.md" || fail "the report's evidence has no outcome"
"$galapagos" export "$work/slow.h5" --out "$work/export" >"$work/export.log" 2>&1 || { cat "$work/export.log"; fail "export failed"; }
grep -q '^- \*\*no candidate beat openmp_plain\*\*' "$work/export/EVIDENCE.md" || fail "EVIDENCE.md does not say that no candidate beat the baseline"
/usr/bin/python3 -c 'import json, sys; o = json.load(open(sys.argv[1]))["search"]["outcome"]; assert o == {"beat_baseline": False, "fastest_baseline": "openmp_plain"}, o' \
  "$work/export/evidence.json" || fail "evidence.json has no outcome"
echo "no improvement said plainly: output, /winner, report, export"
