#!/usr/bin/env bash
# reference_failures.sh GALAPAGOS SOURCE_DIR: trusted code that fails is reported, not fatal.
# A family's reference that crashes or never returns ends `galapagos eval` and `galapagos run`
# with exit 2 and one line naming the family (within [eval] reference_timeout_s for the hang),
# and a template that does not compile stops the run before the search, naming the compiler's
# first error. No results file is left behind.
set -u
galapagos=$1 src=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
kernels="$src/tests/data/kernels"

config() {  # config NAME FAMILY: a config on the test families with short limits
  printf '[run]\nfamily = "%s"\nkernel_paths = ["%s"]\n[eval]\ntimeout_s = 10\nreference_timeout_s = 3\nseeds = 1\nmin_repetitions = 3\nmax_repetitions = 5\ntime_cap_s = 0.3\n' \
    "$2" "$kernels" >"$work/$1.toml"
  echo "$work/$1.toml"
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
expect run_broken_template "broken_template/broken\.cpp: the template does not compile at \{\"UNROLL\":[12]\}: .*error: .undeclared_name. was not declared" 240 \
  "$galapagos" run "$(config broken broken_template)" --budget 4 --out "$work/run_broken_template.h5"

if ((failures > 0)); then echo "$failures failure(s)"; exit 1; fi
echo "trusted code that fails is reported with one line"
