#!/usr/bin/env bash
# busy_node_eval.sh GALAPAGOS SOURCE_DIR [ROUNDS]: every shipped CPU template (at its default
# parameters) and every baseline is judged `ok` by `galapagos eval` while a CPU load runs on every
# core, ROUNDS times in a row (default 10). A busy node slows everything down and makes the
# ceiling probes low; it must never make an honest kernel look impossible (suspect_too_fast), a
# clock disagree (timer_mismatch) or a library baseline fail.
set -u
galapagos=$1 src=$2 rounds=${3:-10}
config=$src/tests/integration/busy-eval.toml
load_pids=()
stop_load() { for p in "${load_pids[@]}"; do kill "$p" 2>/dev/null; done; wait 2>/dev/null; }
trap stop_load EXIT
for ((c = 0; c < $(nproc); ++c)); do
  timeout 3600 sh -c 'while :; do :; done' &
  load_pids+=($!)
done
failures=0
for ((round = 1; round <= rounds; ++round)); do
  for family in stencil3d7 spmv gemm gemm_f32; do
    template=$(sed -n '/^\[cpu\]/,/^\[/s|^template = "\(.*\)"|\1|p' "$src/kernels/$family/family.toml" | head -1)
    out=$("$galapagos" eval --family "$family" --backend cpu --config "$config" --json "$src/kernels/$family/$template" 2>&1)
    verdict=$(printf '%s' "$out" | /usr/bin/python3 -c '
import json, sys
text = sys.stdin.read()
try:
    d = json.loads(text.strip().splitlines()[-1])
except Exception:
    print("no JSON: " + text[-300:].replace("\n", " ")); sys.exit()
bad = [] if d["status"] == "ok" else ["template: %s (%s)" % (d["status"], d["reason"][:200])]
bad += ["baseline %s: %s" % (n, b["status"]) for n, b in d.get("baselines", {}).items() if b["status"] != "ok"]
if not d.get("baselines"): bad.append("no baselines were judged")
print("; ".join(bad) if bad else "ok")')
    echo "round $round $family: $verdict"
    [[ $verdict == ok ]] || failures=$((failures + 1))
  done
done
echo "$((rounds * 4 - failures)) passed, $failures failed"
[[ $failures -eq 0 ]]
