#!/usr/bin/env bash
# reference_failures.sh GALAPAGOS SOURCE_DIR: trusted code that fails is reported, not fatal.
# A family's own code (its reference, its checker, its generator's glp_problem_sizes and
# glp_generate) that crashes or never returns, on its first call or on a later one in the timed
# runs, ends `galapagos eval` and `galapagos run` with exit 2 and one line naming the family
# (within [eval] reference_timeout_s for a hang), and a template that does not compile stops the
# run before the search, naming the compiler's first error. No results file is left behind.
set -u
galapagos=$1 src=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
kernels="$src/tests/data/kernels"

config() {  # config NAME FAMILY [EVAL-LINE...]: a config on the test families with short limits
  local name=$1 family=$2
  shift 2
  {
    printf '[run]\nfamily = "%s"\nkernel_paths = ["%s"]\n[eval]\ntimeout_s = 10\nreference_timeout_s = 3\nseeds = 1\nmin_repetitions = 3\nmax_repetitions = 5\ntime_cap_s = 0.3\n' \
      "$family" "$kernels"
    for line in "$@"; do echo "$line"; done
  } >"$work/$name.toml"
  echo "$work/$name.toml"
}

# expect NAME PATTERN MAX_S COMMAND...: exit 2, one line on stderr matching PATTERN, within MAX_S seconds.
expect() {
  local name=$1 pattern=$2 max_s=$3
  shift 3
  local start=$SECONDS
  "$@" >"$work/stdout" 2>"$work/stderr"
  local code=$? took=$((SECONDS - start)) err
  err=$(cat "$work/stderr")
  if [[ $code -ne 2 ]]; then echo "FAIL $name: exit code $code, expected 2 (stderr: $err)"; failures=$((failures + 1)); return; fi
  if [[ $(wc -l <"$work/stderr") -ne 1 ]]; then echo "FAIL $name: expected one line on stderr, got: $err"; failures=$((failures + 1)); return; fi
  if ! grep -qE -- "$pattern" "$work/stderr"; then echo "FAIL $name: stderr does not match '$pattern': $err"; failures=$((failures + 1)); return; fi
  if ((took > max_s)); then echo "FAIL $name: took ${took} s, more than ${max_s} s"; failures=$((failures + 1)); return; fi
  if [[ -e "$work/$name.h5" ]]; then echo "FAIL $name: a results file was written"; failures=$((failures + 1)); return; fi
  echo "ok   $name (${took} s): $err"
}

baseline="$kernels/llm_axpb/baseline.cpp"
crash='reference_crash/reference\.cpp: the reference of family reference_crash crashed with SIGSEGV .* at n='
hang='reference_hang/reference\.cpp: the reference of family reference_hang did not finish within 3 s at n='
expect eval_crash "$crash" 240 "$galapagos" eval --family reference_crash --config "$(config crash reference_crash)" --no-baselines "$baseline"
expect eval_hang "$hang" 240 "$galapagos" eval --family reference_hang --config "$(config hang reference_hang)" --no-baselines "$baseline"
expect run_crash "$crash" 240 "$galapagos" run "$(config crash reference_crash)" --budget 2 --out "$work/run_crash.h5"
expect run_hang "$hang" 240 "$galapagos" run "$(config hang reference_hang)" --budget 2 --out "$work/run_hang.h5"
# Faults after the first call at a size: the reference is checked on every timed run.
late_crash='reference_late_crash/reference\.cpp: the reference of family reference_late_crash crashed with SIGSEGV .* at n='
late_hang='reference_late_hang/reference\.cpp: the reference of family reference_late_hang did not finish within 3 s at n='
every_run='verify_fraction = 1'
expect eval_late_crash "$late_crash" 240 "$galapagos" eval --family reference_late_crash --config "$(config late_crash reference_late_crash "$every_run")" --no-baselines "$baseline"
expect eval_late_hang "$late_hang" 240 "$galapagos" eval --family reference_late_hang --config "$(config late_hang reference_late_hang "$every_run")" --no-baselines "$baseline"
expect run_late_crash "$late_crash" 240 "$galapagos" run "$(config late_crash reference_late_crash "$every_run")" --budget 2 --out "$work/run_late_crash.h5"
# The checker judges the timed runs.
checker='checker_crash/reference\.cpp: the checker \(glp_check\) of family checker_crash crashed with SIGSEGV .* at n='
expect eval_checker_crash "$checker" 240 "$galapagos" eval --family checker_crash --config "$(config checker checker_crash)" --no-baselines "$baseline"
expect run_checker_crash "$checker" 240 "$galapagos" run "$(config checker checker_crash)" --budget 2 --out "$work/run_checker_crash.h5"
# The generator: sizing a problem, and generating its inputs.
gen='generator_faults/generator\.cpp: the generator of family generator_faults'
for fault in crash_sizes hang_sizes "crash_generate 4096" "hang_generate 4096"; do
  case $fault in
    crash*) what="crashed with SIGSEGV .* at " ;;
    *) what="did not finish within 3 s at " ;;
  esac
  name=generator_${fault%% *}
  expect "eval_$name" "$gen $what" 240 "$galapagos" eval --family generator_faults \
    --config "$(config "$name" generator_faults "fitness_problem = \"$fault\"")" --no-baselines "$baseline"
done
expect run_generator_crash "$gen crashed with SIGSEGV .* at " 240 \
  "$galapagos" run "$(config gen_run generator_faults 'fitness_problem = "crash_generate 4096"')" --budget 2 --out "$work/run_generator_crash.h5"
# The same family, right problems: the generator's process serves the whole evaluation.
"$galapagos" eval --family generator_faults --config "$(config gen_ok generator_faults)" --no-baselines "$baseline" >"$work/stdout" 2>"$work/stderr"
if [[ $? -ne 0 ]] || ! grep -q '^status: ok$' "$work/stdout"; then
  echo "FAIL generator_ok: $(tail -3 "$work/stderr") $(tail -3 "$work/stdout")"
  failures=$((failures + 1))
else
  echo "ok   generator_ok"
fi

expect run_broken_template "broken_template/broken\.cpp: the template does not compile at \{\"UNROLL\":[12]\}: .*error: .undeclared_name. was not declared" 240 \
  "$galapagos" run "$(config broken broken_template)" --budget 4 --out "$work/run_broken_template.h5"

if ((failures > 0)); then echo "$failures failure(s)"; exit 1; fi
echo "trusted code that fails is reported with one line"
