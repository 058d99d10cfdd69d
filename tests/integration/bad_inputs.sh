#!/usr/bin/env bash
# bad_inputs.sh GALAPAGOS SOURCE_DIR: every kind of bad input gives one clear line naming the
# file and the problem, exit code 2, and no results file.
set -u
galapagos=$1 src=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0

# expect NAME PATTERN CONFIG: runs the config, expects exit 2, stderr matching PATTERN, no output file.
expect() {
  local name=$1 pattern=$2 config=$3
  local out="$work/$name.h5"
  "$galapagos" run "$config" --out "$out" >"$work/stdout" 2>"$work/stderr"
  local code=$?
  local err
  err=$(cat "$work/stderr")
  if [[ $code -ne 2 ]]; then
    echo "FAIL $name: exit code $code, expected 2 (stderr: $err)"; failures=$((failures + 1)); return
  fi
  if ! grep -qE -- "$pattern" "$work/stderr"; then
    echo "FAIL $name: stderr does not match '$pattern': $err"; failures=$((failures + 1)); return
  fi
  if [[ $(wc -l <"$work/stderr") -ne 1 ]]; then
    echo "FAIL $name: expected one line on stderr, got: $err"; failures=$((failures + 1)); return
  fi
  if [[ -e "$out" ]]; then
    echo "FAIL $name: a results file was written"; failures=$((failures + 1)); return
  fi
  echo "ok   $name: $err"
}

config() {  # config NAME BODY: writes a config file that uses the test families
  printf '%s\n' "$2" >"$work/$1.toml"
  echo "$work/$1.toml"
}
kernels="kernel_paths = [\"$src/tests/data/kernels\"]"

expect missing_config "nonexistent\.toml: no such file" "$work/nonexistent.toml"
mkdir -p "$work/folder.toml"
expect folder_config "folder\.toml: a folder, not a TOML file" "$work/folder.toml"
expect malformed_toml "malformed\.toml: .*line" "$(config malformed '[run
family = "stencil3d7"')"
expect unknown_key "typo\.toml: key 'search.buget': unknown key" "$(config typo '[run]
family = "stencil3d7"
[search]
buget = 3')"
expect unknown_section "section\.toml: key 'serach': unknown key" "$(config section '[run]
family = "stencil3d7"
[serach]
budget = 3')"
expect bad_value "value\.toml: key 'search.mutation_rate': must lie in \[0, 1\]" "$(config value '[run]
family = "stencil3d7"
[search]
mutation_rate = 3.0')"
expect bad_verify_fraction "fraction\.toml: key 'eval.verify_fraction': must lie in \[0, 1\]" "$(config fraction '[run]
family = "stencil3d7"
[eval]
verify_fraction = 1.5')"
expect bad_compile_jobs "jobs\.toml: key 'eval.compile_jobs': must lie in \[-1, 1024\] \(-1: automatic" "$(config jobs '[run]
family = "stencil3d7"
[eval]
compile_jobs = -4')"
expect bad_energy_burst "burst\.toml: key 'eval.energy_burst_s': must lie in \[0, 60\] seconds" "$(config burst '[run]
family = "stencil3d7"
[eval]
energy_burst_s = -1')"
expect unknown_family "family 'stencil9d': unknown family" "$(config family '[run]
family = "stencil9d"')"
expect empty_space "unsatisfiable/family\.toml: the parameter space .* is empty" "$(config empty "[run]
family = \"unsatisfiable\"
$kernels")"
expect broken_baseline "broken\.cpp: baseline 'broken' failed \(compile_error\)" "$(config baseline "[run]
family = \"broken_baseline\"
$kernels
[eval]
fitness_size = \"small\"")"
expect bad_family_toml "bad_family/family\.toml: key 'args\[0\]\.dtype': unknown dtype" "$(config badfam "[run]
family = \"bad_family\"
$kernels")"

# The LLM proposer's settings ([llm], docs/llm.md): checked before anything is written.
expect llm_no_models "nomodels\.toml: key 'llm.models': name at least one model" "$(config nomodels '[run]
family = "stencil3d7"
[llm]
share = 0.5')"
expect llm_bad_url "url\.toml: key 'llm.models\[0\]\.url': must start with http" "$(config url '[run]
family = "stencil3d7"
[[llm.models]]
url = "127.0.0.1:8000"
model = "m"')"
expect llm_url_twice "urls\.toml: key 'llm.models\[0\]\.url': give either url \\(the chat completions endpoint\\) or base_url" "$(config urls '[run]
family = "stencil3d7"
[[llm.models]]
url = "http://127.0.0.1:8000/v1/chat/completions"
base_url = "http://127.0.0.1:8000/v1"
model = "m"')"
expect llm_bad_base_url "baseurl\.toml: key 'llm.models\[0\]\.base_url': must start with http" "$(config baseurl '[run]
family = "stencil3d7"
[[llm.models]]
base_url = "127.0.0.1:8000/v1"
model = "m"')"
expect llm_unknown_key "llmkey\.toml: key 'llm.temprature': unknown key" "$(config llmkey '[run]
family = "stencil3d7"
[llm]
temprature = 0.3')"
expect llm_bad_share "shares\.toml: key 'llm.island_shares': every share must be a number in \[0, 1\]" "$(config shares '[run]
family = "stencil3d7"
[llm]
island_shares = [0.5, 2]
[[llm.models]]
url = "http://127.0.0.1:8000/v1/chat/completions"
model = "m"')"
expect llm_key_unset "keyenv\\.toml: \\[llm\\]: GALAPAGOS_TEST_UNSET_KEY: the environment variable" "$(config keyenv '[run]
family = "stencil3d7"
[[llm.models]]
url = "http://127.0.0.1:8000/v1/chat/completions"
model = "m"
api_key_env = "GALAPAGOS_TEST_UNSET_KEY"')"
expect llm_missing_prompts "prompts\\.toml: \\[llm\\]: .*nowhere/system\.md: cannot read this prompt template" "$(config prompts '[run]
family = "stencil3d7"
[llm]
prompts = "nowhere"
[[llm.models]]
url = "http://127.0.0.1:8000/v1/chat/completions"
model = "m"')"

if [[ $failures -ne 0 ]]; then
  echo "$failures bad-input checks failed"
  exit 1
fi
echo "all bad-input checks passed"
