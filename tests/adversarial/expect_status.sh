#!/usr/bin/env bash
# expect_status.sh GALAPAGOS SOURCE STATUS CONFIG: evaluates SOURCE as a stencil3d7 candidate
# and fails unless `galapagos eval` reports exactly STATUS (and the matching exit code).
set -u
galapagos=$1 source=$2 expected=$3 config=$4
out=$("$galapagos" eval --family stencil3d7 --backend cpu --config "$config" --no-baselines --json "$source")
code=$?
status=$(printf '%s' "$out" | /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["status"])' 2>/dev/null)
echo "$out"
if [[ "$status" != "$expected" ]]; then
  echo "FAIL: $(basename "$source"): expected status '$expected', got '${status:-<no JSON>}' (exit $code)" >&2
  exit 1
fi
want_code=1
[[ "$expected" == ok ]] && want_code=0
if [[ $code -ne $want_code ]]; then
  echo "FAIL: $(basename "$source"): status $status but exit code $code (expected $want_code)" >&2
  exit 1
fi
echo "PASS: $(basename "$source") -> $status"
