#!/bin/sh
# tools/eval_overhead.py on real evaluations: one round of the stencil3d7 template at `small`
# with where each evaluation's time went, phase by phase, and the summary of a search's results
# file. Each must print its figures; a tool that prints nothing, or no phase, fails.
set -eu
galapagos=$1 source=$2 results=$3
out=$(/usr/bin/python3 "$source/tools/eval_overhead.py" --galapagos "$galapagos" --family stencil3d7 --rounds 1 --size small --phases)
echo "$out"
echo "$out" | grep -Eq '^stencil3d7 +[^ ]+ +1/1 +[0-9.]+s +[0-9.]+s +[0-9.-]+s +[0-9.-]+x'
for phase in 'open: build, worker, calibration, load' 'timed: redraw' 'timed: verify (checker)' 'whole evaluation'; do
  echo "$out" | grep -Fq "  $phase" || { echo "no phase '$phase' in the output" >&2; exit 1; }
done
out=$(/usr/bin/python3 "$source/tools/eval_overhead.py" "$results")
echo "$out"
echo "$out" | grep -Eq 'checks and timing machinery: +median +[0-9.]+ ms'
