#!/usr/bin/env bash
# expect_status.sh GALAPAGOS SOURCE STATUS CONFIG [BACKEND]: evaluates SOURCE as a candidate of
# the family its `// family: NAME` line names (stencil3d7 without one), at the size its
# `// size: NAME` line names (the config's fitness size without one), with the config's
# `[eval] timing_sets` set to N by a `// timing-sets: N` line, and fails unless
# `galapagos eval` reports exactly STATUS (and the matching exit code) and its output quotes no
# line of /etc/passwd. A `// time-vs: FILE RATIO`
# line also evaluates FILE (an honest twin beside SOURCE) and fails unless SOURCE's median time is
# at least RATIO times FILE's: a cheat that is accepted must not be faster than honest code.
# GPU backends skip (exit 77) on machines without an NVIDIA GPU.
set -u
galapagos=$1 source=$2 expected=$3 config=$4 backend=${5:-cpu}
if [[ $backend != cpu ]] && ! nvidia-smi -L >/dev/null 2>&1; then
  echo "skipped: no NVIDIA GPU on this machine for $(basename "$source")"
  exit 77
fi
family=$(sed -n 's|^// family: \([a-z0-9_]*\).*|\1|p' "$source" | head -1)
family=${family:-stencil3d7}
# `// size: NAME` times the candidate at that named size instead of the config's fitness size.
size=$(sed -n 's|^// size: \([a-z0-9_]*\).*|\1|p' "$source" | head -1)
size_args=()
[[ -n $size ]] && size_args=(--size "$size")
# `// timing-sets: N` times the candidate in batches of N input sets per request ([eval] timing_sets).
sets=$(sed -n 's|^// timing-sets: \([0-9]*\).*|\1|p' "$source" | head -1)
if [[ -n $sets ]]; then
  batch_config=$(mktemp --suffix=.toml)
  trap 'rm -f "$batch_config"' EXIT
  sed "/^\[eval\]/a timing_sets = $sets" "$config" >"$batch_config"
  config=$batch_config
fi
field() { /usr/bin/python3 -c 'import json,sys; v=json.load(sys.stdin).get(sys.argv[1]); print("" if v is None else v)' "$1" 2>/dev/null; }
evaluate() { "$galapagos" eval --family "$family" --backend "$backend" --config "$config" "${size_args[@]}" --no-baselines --json "$1"; }

out=$(evaluate "$source")
code=$?
status=$(printf '%s' "$out" | field status)
echo "$out"
# Nothing the compiler read outside the folders a candidate may read reaches the output: no line
# of /etc/passwd (the file the compiler candidates reach for), whatever the candidate.
while IFS= read -r secret; do
  if [[ ${#secret} -ge 8 && "$out" == *"$secret"* ]]; then
    echo "FAIL: $(basename "$source"): the output quotes a line of /etc/passwd" >&2
    exit 1
  fi
done </etc/passwd
# EXPECTED may name alternatives, STATUS|STATUS: a verdict the node decides between (see the source).
if [[ "|$expected|" != *"|$status|"* || -z $status ]]; then
  echo "FAIL: $(basename "$source"): expected status '$expected', got '${status:-<no JSON>}' (exit $code)" >&2
  exit 1
fi
want_code=1
[[ "$status" == ok ]] && want_code=0
if [[ $code -ne $want_code ]]; then
  echo "FAIL: $(basename "$source"): status $status but exit code $code (expected $want_code)" >&2
  exit 1
fi
read -r twin ratio < <(sed -n 's|^// time-vs: \([^ ]*\) \([0-9.]*\).*|\1 \2|p' "$source" | head -1)
if [[ -n "${twin:-}" ]]; then
  twin_out=$(evaluate "$(dirname "$source")/$twin")
  cheat_s=$(printf '%s' "$out" | field time_median_s)
  twin_s=$(printf '%s' "$twin_out" | field time_median_s)
  if ! /usr/bin/python3 -c 'import sys; c,t,r=map(float,sys.argv[1:]); sys.exit(0 if c >= r*t else 1)' "$cheat_s" "$twin_s" "$ratio"; then
    echo "FAIL: $(basename "$source"): median $cheat_s s against $twin_s s for $twin: faster than ${ratio}x its honest twin" >&2
    exit 1
  fi
  echo "time: $cheat_s s against $twin_s s for $twin (at least ${ratio}x required)"
fi
echo "PASS: $(basename "$source") -> $status"
