#!/usr/bin/env bash
# simulate.sh GALAPAGOS SOURCE_DIR: `galapagos simulate` on the committed recordings
# (tests/data/spaces/*.h5), the export to Kernel Tuner's cache format (plain, gzip-compressed and
# left unfinished) and to T4 replayed as the same space, and bad Kernel Tuner caches, T4 files and
# configs rejected with one line naming the field.
set -u
galapagos=$1 src=$2
python=/usr/bin/python3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
fail() { echo "FAIL $*"; failures=$((failures + 1)); }
json_get() { "$python" -c "import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2], {'d': d}))" "$@"; }

for space in stencil3d7 gemm; do
  h5=$src/tests/data/spaces/$space-cpu.h5
  # Exhaustive enumeration evaluates every recorded point once and finds the recorded optimum.
  "$galapagos" simulate "$h5" --strategy exhaustive --budget 100000 --json >"$work/ex.json" || fail "$space exhaustive: exit $?"
  [[ $(json_get "$work/ex.json" "d['runs'][0]['evaluations'] == d['points'] and d['runs'][0]['fraction'] == 1.0") == True ]] ||
    fail "$space exhaustive did not cover the space: $(head -c 300 "$work/ex.json")"
  # Every strategy, two islands of different kinds: budgets respected, fractions in (0, 1].
  for kind in hybrid forest ga random annealing hybrid,annealing forest,ga; do
    "$galapagos" simulate "$h5" --strategy $kind --islands 2 --budget 30 --seeds 3 --at 10,60 --json >"$work/s.json" ||
      fail "$space $kind: exit $?"
    [[ $(json_get "$work/s.json" "all(r['evaluations'] <= 60 and 0 < r['fraction'] <= 1 and r['at']['10'] <= r['at']['60'] for r in d['runs'])") == True ]] ||
      fail "$space $kind: bad runs $(head -c 300 "$work/s.json")"
  done
  # A budget in recorded seconds stops each island once its charged time passes it.
  "$galapagos" simulate "$h5" --budget-s 20 --json >"$work/t.json" || fail "$space --budget-s: exit $?"
  [[ $(json_get "$work/t.json" "0 < d['runs'][0]['evaluations'] < 40 and d['runs'][0]['spent_s'][0] >= 20") == True ]] ||
    fail "$space --budget-s: $(head -c 300 "$work/t.json")"
  # Export to Kernel Tuner's cache and to T4; the cache replays as the same space.
  "$python" "$src/tools/export_tuner_formats.py" "$h5" --kernel-tuner "$work/kt.json" --t4 "$work/t4.json" --force >/dev/null ||
    fail "$space export: exit $?"
  "$galapagos" simulate "$work/kt.json" --strategy exhaustive --budget 100000 --json >"$work/kt-ex.json" || fail "$space kt replay: exit $?"
  [[ $(json_get "$work/kt-ex.json" "d['points']") == $(json_get "$work/ex.json" "d['points']") &&
     $(json_get "$work/kt-ex.json" "round(d['optimum_s'], 12)") == $(json_get "$work/ex.json" "round(d['optimum_s'], 12)") &&
     $(json_get "$work/kt-ex.json" "round(d['runs'][0]['spent_s'][0], 6)") == $(json_get "$work/ex.json" "round(d['runs'][0]['spent_s'][0], 6)") ]] ||
    fail "$space: the exported Kernel Tuner cache is not the same space"
  [[ $(json_get "$work/t4.json" "d['schema_version'] == '1.0.0' and len(d['results']) == $(json_get "$work/ex.json" "d['points']") and all(set(r) >= {'configuration', 'times', 'invalidity', 'correctness'} for r in d['results'])") == True ]] ||
    fail "$space: T4 export incomplete"
  # The T4 export, and the cache gzip-compressed and left unfinished as an interrupted Kernel Tuner
  # run leaves it, replay as the same space: points, optimum, and charged time (T4 adds the kernel
  # runtimes to it, which the results file's evaluation time already holds: within 1%).
  gzip -c "$work/kt.json" >"$work/kt.json.gz"
  "$python" -c "import json,sys; d=json.load(open(sys.argv[1])); c=d.pop('cache'); h=json.dumps(d, indent=''); \
print(h[:-2] + ',\n\"cache\": {' + ''.join('\n' + json.dumps({k: v})[1:-1] + ',' for k, v in c.items()), end='')" \
    "$work/kt.json" >"$work/kt-open.json"
  for replay in t4.json kt.json.gz kt-open.json; do
    "$galapagos" simulate "$work/$replay" --strategy exhaustive --budget 100000 --json >"$work/re.json" || fail "$space $replay replay: exit $?"
    [[ $(json_get "$work/re.json" "d['points']") == $(json_get "$work/ex.json" "d['points']") &&
       $(json_get "$work/re.json" "round(d['optimum_s'], 12)") == $(json_get "$work/ex.json" "round(d['optimum_s'], 12)") &&
       $(json_get "$work/re.json" "abs(d['runs'][0]['spent_s'][0] / $(json_get "$work/ex.json" "d['runs'][0]['spent_s'][0]") - 1) < (0.01 if '$replay' == 't4.json' else 1e-9)") == True ]] ||
      fail "$space: $replay is not the same space as the results file ($(head -c 200 "$work/re.json"))"
  done
  [[ $(json_get "$work/re.json" "'unfinished run' in d['format']") == True ]] || fail "$space: the unfinished cache is not marked as such"
done
echo "ok   recordings, strategies, exports"

# expect NAME PATTERN FILE [ARGS...]: exit 2, one line on stderr matching PATTERN.
expect() {
  local name=$1 pattern=$2 file=$3
  shift 3
  "$galapagos" simulate "$file" "$@" >"$work/stdout" 2>"$work/stderr"
  local code=$? err
  err=$(cat "$work/stderr")
  if [[ $code -ne 2 ]]; then fail "$name: exit code $code, expected 2 (stderr: $err)"; return; fi
  if ! grep -qE -- "$pattern" "$work/stderr"; then fail "$name: stderr does not match '$pattern': $err"; return; fi
  if [[ $(wc -l <"$work/stderr") -ne 1 ]]; then fail "$name: expected one line on stderr, got: $err"; return; fi
  echo "ok   $name: $err"
}
entry='"compile_time":900,"verification_time":0,"benchmark_time":20,"strategy_time":0,"framework_time":0,"timestamp":"t"'
cache() {  # cache FILE VERSION_FIELD KEYS PARAMS ENTRIES
  printf '{%s"device_name":"d","kernel_name":"k","problem_size":[1],"objective":"time","tune_params_keys":%s,"tune_params":%s,"cache":{%s}}' \
    "$2" "$3" "$4" "$5" >"$work/$1"
}
keys='["bx","tile"]'
params='{"bx":[32,64],"tile":[1,2]}'
cache unknown_version.json '"schema_version":"0.7.0",' "$keys" "$params" "\"32,1\":{\"time\":1.0,$entry}"
expect unknown_version 'unknown_version.json: schema_version: unknown version "0.7.0"' "$work/unknown_version.json"
cache missing_time.json '"schema_version":"1.1.0",' "$keys" "$params" "\"32,1\":{$entry}"
expect missing_time 'missing_time.json: cache\["32,1"\]\.time: missing' "$work/missing_time.json"
cache missing_compile.json '"schema_version":"1.0.0",' "$keys" "$params" '"32,1":{"time":1.0}'
expect missing_compile_time 'cache\["32,1"\]\.compile_time: missing \(required by cache schema 1.0.0\)' "$work/missing_compile.json"
cache inconsistent.json '"schema_version":"1.0.0",' '["bx","tile","unroll"]' "$params" "\"32,1,1\":{\"time\":1.0,$entry}"
expect inconsistent_lists "tune_params: has no list for 'unroll'" "$work/inconsistent.json"
cache short_key.json '' "$keys" "$params" '"32":{"time":1.0}'
expect short_key 'cache\["32"\]: the key has 1 values, tune_params_keys names 2' "$work/short_key.json"
cache unknown_value.json '' "$keys" "$params" '"32,4":{"time":1.0}'
expect unknown_value "value '4' of 'tile' is not in tune_params.tile" "$work/unknown_value.json"
printf '{"schema_version":"1.0.0","tune_params_keys":["bx"],"tune_params":{"bx":[1]},"cache":{"1":{"time":1' >"$work/truncated.json"
expect truncated_cache 'truncated.json: not a JSON document' "$work/truncated.json"
printf 'not json at all\n' | gzip -c >"$work/text.json.gz"
expect gzip_not_json 'text.json.gz: not a JSON document \(expected a Kernel Tuner cache' "$work/text.json.gz"
printf '{"results":[{"configuration":{"bx":1},"invalidity":"correct","measurements":[{"name":"time","value":1,"unit":"fortnights"}]}]}' >"$work/t4_unit.json"
expect t4_bad_unit 't4_unit.json: T4 results: results\[0\]\.measurements\.time\.unit: unknown time unit' "$work/t4_unit.json"
expect missing_file 'no_such_space.json: no such file' "$work/no_such_space.json"
mkdir -p "$work/a_folder"
expect folder 'a_folder: a folder, not a recorded space' "$work/a_folder"
expect bad_strategy '--strategy: kind: unknown strategy .tabu.' "$src/tests/data/spaces/gemm-cpu.h5" --strategy tabu
printf '[strategy]\nkind = "hybrid"\nlocal_share = 2.0\n' >"$work/bad_strategy.toml"
expect bad_strategy_key "bad_strategy.toml: key 'strategy.local_share': must lie in \[0, 1\], got 2" "$src/tests/data/spaces/gemm-cpu.h5" --config "$work/bad_strategy.toml"
printf '[strategy]\nkind = "hybrid"\ntemprature = 0.1\n' >"$work/typo.toml"
expect strategy_typo 'typo.toml.*temprature' "$src/tests/data/spaces/gemm-cpu.h5" --config "$work/typo.toml"

# Warm start: a recording of the same space guides the forest to its optimum in the first batch
# (its best point opens it), given on the command line or in the config (relative to its folder);
# a recording of another family's space is refused naming the file and the missing parameter.
gemm=$src/tests/data/spaces/gemm-cpu.h5
"$galapagos" simulate "$gemm" --seeds 3 --budget 16 --warm-start "$gemm" --json >"$work/warm.json" 2>"$work/warm.err" ||
  fail "warm start: exit $? ($(cat "$work/warm.err"))"
[[ $(json_get "$work/warm.json" "max(r['found_at'] for r in d['runs'])") -le 8 ]] ||
  fail "warm start: the optimum was not in the first batch: $(json_get "$work/warm.json" "[r['found_at'] for r in d['runs']]")"
[[ $(json_get "$work/warm.json" "d['warm_start']") == "warm start: 192 of 192 points of $gemm (galapagos results)" ]] ||
  fail "warm start: summary $(json_get "$work/warm.json" "d['warm_start']")"
mkdir -p "$work/cfg" && cp "$gemm" "$work/cfg/earlier.h5"
printf '[strategy]\nwarm_start = ["earlier.h5"]\n' >"$work/cfg/warm.toml"
"$galapagos" simulate "$gemm" --seeds 2 --budget 16 --config "$work/cfg/warm.toml" >"$work/warm.txt" 2>&1 ||
  fail "warm start from the config: exit $?"
grep -q "warm start: 192 of 192 points of $work/cfg/earlier.h5" "$work/warm.txt" || fail "warm start from the config: $(cat "$work/warm.txt")"
expect warm_start_other_space "stencil3d7-cpu.h5: warm start: has no parameter '[A-Za-z_]+' of the search space" "$gemm" \
  --warm-start "$src/tests/data/spaces/stencil3d7-cpu.h5"
expect warm_start_missing 'no_such_prior.h5: no such file' "$gemm" --warm-start "$work/no_such_prior.h5"
printf '[strategy]\nwarm_start = [""]\n' >"$work/warm_empty.toml"
expect warm_start_empty_name "warm_empty.toml: key 'strategy.warm_start': holds an empty file name" "$gemm" --config "$work/warm_empty.toml"

if [[ $failures -ne 0 ]]; then echo "$failures failure(s)"; exit 1; fi
echo "all simulate checks passed"
