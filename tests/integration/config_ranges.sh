#!/usr/bin/env bash
# config_ranges.sh GALAPAGOS SOURCE_DIR: numbers out of range are refused, never wrapped or taken.
# Config keys of every table, command-line options and family.toml expressions: exit 2 with one
# line naming the file (or option), the key, the value and the allowed range. Nothing is measured.
set -u
galapagos=$1 src=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0

# expect NAME PATTERN COMMAND...: exit 2 and exactly one line on stderr matching PATTERN.
expect() {
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

config() {  # config NAME TABLE BODY: a stencil3d7 config with one table
  printf '[run]\nfamily = "stencil3d7"\n[%s]\n%s\n' "$2" "$3" >"$work/$1.toml"
  echo "$work/$1.toml"
}
replay="--replay $src/tests/data/spaces/stencil3d7-cpu.h5"
run() { "$galapagos" run "$1" --budget 2 $replay --out "$work/out.h5"; }

# key VALUE TABLE PATTERN: one key of one table set to VALUE, refused by run.
key() {
  local name=$1 table=$2 body=$3 pattern=$4
  expect "$name" "$name\.toml: key '$table\.${body%% *}': $pattern" run "$(config "$name" "$table" "$body")"
}
key budget_2p31 search "budget = 2147483648" 'must lie in \[1, 1000000000\], got 2147483648'
key budget_wraps_to_1 search "budget = 4294967297" 'must lie in \[1, 1000000000\], got 4294967297'
key seed_negative search "seed = -1" 'must lie in \[0, 9223372036854775807\], got -1'
key population_zero search "population = 0" 'must lie in \[1, 100000\], got 0'
key mutation_nan search "mutation_rate = nan" 'must lie in \[0, 1\], got nan'
key elite_above_population search "elite = 9" 'must lie in \[0, 8\], got 9'
key timeout_inf eval "timeout_s = inf" 'must lie in \(0, 86400\] seconds, got inf'
key timeout_zero eval "timeout_s = 0" 'must lie in \(0, 86400\] seconds, got 0'
key margin_nan eval "physics_margin = nan" 'must lie in \[1, 1000\], got nan'
key memory_huge eval "memory_limit_mb = 99999999999" 'must lie in \[1, 16777216\] MiB, got 99999999999'
key threads_negative eval "threads = -3" 'must lie in \[0, 4096\], got -3'
key reference_timeout_inf eval "reference_timeout_s = inf" 'must lie in \[0, 604800\] seconds \(0: automatic\), got inf'
key timeout_string eval 'timeout_s = "5"' 'must be a number'
key timeout_array eval 'timeout_s = [5]' 'must be a number'
key budget_float search "budget = 2.5" 'must be an integer'
key interval_zero migration "interval = 0" 'must lie in \[1, 1000000000\], got 0'
key degree_huge migration "degree = 100000" 'must lie in \[1, 4096\], got 100000'
key cooling_zero strategy "cooling = 0" 'must lie in \(0, 1\], got 0'
key pool_huge strategy "pool = 4294967297" 'must lie in \[1, 10000000\], got 4294967297'
# [search] objective: energy is measured on GPUs only (one line, exit 2); an unknown objective.
key objective_energy_cpu search 'objective = "energy"' "'energy' needs the energy of each call, which galapagos measures on GPUs only \(NVML, ROCm SMI\); the cpu backend measures time: use objective = \"time\""
key objective_edp_cpu search 'objective = "edp"' "'edp' needs the energy of each call"
key objective_unknown search 'objective = "power"' 'must be "time", "energy" or "edp" \(energy x time\), got .power.'
printf '[run]\nfamily = "stencil3d7"\ngrace_s = nan\n' >"$work/grace_nan.toml"
expect grace_nan "grace_nan\.toml: key 'run\.grace_s': must lie in \(0, 86400\] seconds, got nan" run "$work/grace_nan.toml"
printf '[run]\nfamily = "stencil3d7"\n[llm]\nshare = inf\n[[llm.models]]\nurl = "http://127.0.0.1:9"\nmodel = "m"\n' >"$work/llm_share.toml"
expect llm_share_inf "llm_share\.toml: key 'llm\.share': must lie in \[0, 1\], got inf" run "$work/llm_share.toml"
printf '[run]\nfamily = "stencil3d7"\n[llm]\n[[llm.models]]\nurl = "http://127.0.0.1:9"\nmodel = "m"\ntimeout_s = -inf\n' >"$work/llm_timeout.toml"
expect llm_model_timeout "llm_timeout\.toml: key 'llm\.models\[0\]\.timeout_s': must lie in \(0, 86400\] seconds, got -inf" run "$work/llm_timeout.toml"
# simulate --config reads [search], [strategy] and [migration] with the same ranges.
expect simulate_budget "sim\.toml: key 'search\.budget': must lie in \[1, 1000000000\], got 2147483648" \
  "$galapagos" simulate "$src/tests/data/spaces/stencil3d7-cpu.h5" --config "$(config sim search "budget = 2147483648")"
expect simulate_search_not_table "simtab\.toml: key 'search': must be a table" \
  "$galapagos" simulate "$src/tests/data/spaces/stencil3d7-cpu.h5" --config "$(printf 'search = 3\n' >"$work/simtab.toml"; echo "$work/simtab.toml")"

# Command-line options: checked on the text as given (no wrapping, no inf or nan).
ok_config="$(config fine search "budget = 2")"
expect cli_budget "galapagos run: --budget: must be an integer in \[1, 1000000000\], got '2147483648'" "$galapagos" run "$ok_config" --budget 2147483648
expect cli_seed "galapagos run: --seed: must be an integer in \[0, 9223372036854775807\], got '-1'" "$galapagos" run "$ok_config" --seed -1
expect cli_delay "galapagos run: --replay-delay: must be a finite number in \[0, 3600\], got 'nan'" "$galapagos" run "$ok_config" --replay-delay nan
expect cli_islands "galapagos simulate: --islands: must be an integer in \[1, 4096\], got '0'" "$galapagos" simulate x.h5 --islands 0
expect cli_at "galapagos simulate: --at: must be an integer in \[1, 1000000000\], got '1e3'" "$galapagos" simulate x.h5 --at 5,1e3
expect cli_budget_s "galapagos simulate: --budget-s: must be a finite number in \(0, 1000000000\], got 'inf'" "$galapagos" simulate x.h5 --budget-s inf
expect cli_sample "galapagos space: --sample: must be an integer in \[0, 1000000\], got '99999999999'" "$galapagos" space stencil3d7 --sample 99999999999

# --sample beyond the valid points is capped at them, and says so.
mkdir -p "$work/k"
cp -r "$src/tests/data/kernels/llm_axpb" "$work/k/tiny"
sed -i 's/^name = "llm_axpb"/name = "tiny"/' "$work/k/tiny/family.toml"
if out=$(GALAPAGOS_KERNELS="$work/k" timeout 60 "$galapagos" space tiny --sample 1000 --json) &&
   echo "$out" | /usr/bin/python3 -c 'import json,sys; d=json.load(sys.stdin); sys.exit(0 if len(d["sample"]) == d["valid_points"] == 24 and d["sample_requested"] == 1000 else 1)'; then
  echo "ok   sample_capped"
else
  echo "FAIL sample_capped: $out"; failures=$((failures + 1))
fi

# family.toml: every shape and cost expression at every named size, and parameter values.
family() {  # family NAME SED: a copy of llm_axpb named NAME, edited by SED
  cp -r "$src/tests/data/kernels/llm_axpb" "$work/k/$1"
  sed -i -e "s/^name = \"llm_axpb\"/name = \"$1\"/" -e "$2" "$work/k/$1/family.toml"
}
family divzero 's|^bytes = "16\*n"|bytes = "16*n/(n-1)"|'
family negative 's|^flops = "2\*n"|flops = "2*(n-2)"|'
family huge 's|^tune = { n = 1048576 }|tune = { n = 100000000000000 }|'
family textparam 's|^values = \[0, 1\]|values = ["static", "dynamic"]|; s|^constraints = \[\]|constraints = ["SCHEDULE == 0 \|\| CHUNK > 1"]|'
space() { GALAPAGOS_KERNELS="$work/k" "$galapagos" space "$1"; }
expect family_division_by_zero "divzero/family\.toml: cost\.bytes '16\*n/\(n-1\)' is infinite \(a division by zero\?\) at size 'accept' \(n=1\)" space divzero
expect family_negative_cost "negative/family\.toml: cost\.flops '2\*\(n-2\)' is negative \(-2\) at size 'accept' \(n=1\)" space negative
expect family_huge_shape "huge/family\.toml: the arguments need .* GB at size 'tune' \(n=100000000000000\), more than this machine's .* GB of memory" space huge
expect family_text_parameter "textparam/family\.toml: key 'cpu\.params\[1\]\.values': parameter 'SCHEDULE' is named in a constraint, so its values must be numbers, but 'static' is not" space textparam

if ((failures > 0)); then echo "$failures failure(s)"; exit 1; fi
echo "every number out of range was refused with one line"
