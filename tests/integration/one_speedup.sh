#!/usr/bin/env bash
# one_speedup.sh GALAPAGOS SOURCE_DIR CONFIG OUT: one CPU search (one island, no launcher), then
# the winner's speedup must be the same number everywhere a user looks: the winner line the run
# prints, /winner, the pandas loader's summary, the report (markdown and html) and the export's
# EVIDENCE.md, each saying what it is over. The search-time figure, where shown, is labelled as
# such. The results file must also pass check_search_results.py (the baseline re-timed at every
# generation, the candidates' speedups over it).
set -uo pipefail
galapagos=$1 src=$2 config=$3 out=$4
work=${out%.h5}-views
rm -rf "$out" "$work" && mkdir -p "$work"
fail() { echo "FAIL: $*"; exit 1; }
python=/usr/bin/python3
"$galapagos" run "$config" --out "$out" >"$work/run.log" 2>&1
code=$?
cat "$work/run.log"
[[ $code -eq 0 ]] || fail "the search exited $code"
$python "$src/tests/integration/check_search_results.py" "$out" 1 || fail "the results file"
line=$(grep -E '^  speedup [0-9.]+x over [a-z_]+ \(.*\), final interleaved; search-time [0-9.]+x' "$work/run.log") ||
  fail "no winner line with the final and the search-time speedup"
printed=$(sed -E 's/^  speedup ([0-9.]+)x over ([a-z_]+).*/\1/' <<<"$line")
over=$(sed -E 's/^  speedup ([0-9.]+)x over ([a-z_]+).*/\2/' <<<"$line")
read -r stored stored_over search <<<"$($python - "$out" <<'PY'
import sys, h5py
with h5py.File(sys.argv[1], "r") as f:
    w = f["winner"].attrs
    name = w["fastest_baseline"]
    print(f"{float(w['speedup']):.2f}", name.decode() if isinstance(name, bytes) else name, f"{float(w['search_speedup']):.2f}")
PY
)"
[[ $stored == "$printed" && $stored_over == "$over" ]] || fail "/winner says ${stored}x over $stored_over, the run printed ${printed}x over $over"
grep -q "search-time ${search}x" <<<"$line" || fail "the winner line's search-time figure is not /winner search_speedup ($search)"
echo "winner line and /winner: ${printed}x over $over (search-time ${search}x)"

$python "$src/python/galapagos/results.py" "$out" >"$work/loader.txt" 2>&1 || { cat "$work/loader.txt"; fail "the loader failed"; }
grep -q "${printed}x over $over" "$work/loader.txt" || { cat "$work/loader.txt"; fail "the loader's summary does not say ${printed}x over $over"; }
"$galapagos" report "$out" --out "$work/report" >"$work/report.log" 2>&1 || { cat "$work/report.log"; fail "report failed"; }
for page in report.md index.html; do
  grep -q "${printed}x" "$work/report/$page" || fail "the report's $page does not give the winner's ${printed}x"
done
"$galapagos" export "$out" --out "$work/export" >"$work/export.log" 2>&1 || { cat "$work/export.log"; fail "export failed"; }
grep -q "${printed}x" "$work/export/EVIDENCE.md" || fail "EVIDENCE.md does not give the winner's ${printed}x"
# No view gives the winner another final figure over the same baseline.
for f in "$work/loader.txt" "$work/report/report.md" "$work/export/EVIDENCE.md"; do
  others=$(grep -oE "[0-9]+\.[0-9]{2}x over $over" "$f" | grep -v "^${printed}x" | sort -u)
  [[ -z $others ]] || grep -qi "search-time" "$f" || fail "$(basename "$f") gives $others as well, unlabelled"
done
echo "one speedup everywhere: ${printed}x over $over"
