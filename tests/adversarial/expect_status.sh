#!/usr/bin/env bash
# expect_status.sh GALAPAGOS SOURCE STATUS CONFIG [BACKEND]: evaluates SOURCE as a stencil3d7
# candidate and fails unless `galapagos eval` reports exactly STATUS (and the matching exit code)
# and its output quotes no line of /etc/passwd.
# GPU backends skip (exit 77) on machines without an NVIDIA GPU.
set -u
galapagos=$1 source=$2 expected=$3 config=$4 backend=${5:-cpu}
if [[ $backend != cpu ]] && ! nvidia-smi -L >/dev/null 2>&1; then
  echo "skipped: no NVIDIA GPU on this machine for $(basename "$source")"
  exit 77
fi
out=$("$galapagos" eval --family stencil3d7 --backend "$backend" --config "$config" --no-baselines --json "$source")
code=$?
status=$(printf '%s' "$out" | /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["status"])' 2>/dev/null)
echo "$out"
# Nothing the compiler read outside the folders a candidate may read reaches the output: no line
# of /etc/passwd (the file the compiler candidates reach for), whatever the candidate.
while IFS= read -r secret; do
  if [[ ${#secret} -ge 8 && "$out" == *"$secret"* ]]; then
    echo "FAIL: $(basename "$source"): the output quotes a line of /etc/passwd" >&2
    exit 1
  fi
done </etc/passwd
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
