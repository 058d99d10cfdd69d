#!/bin/bash
# slurm/recheck-partitions.sh FILE PARTITION [PARTITION ...]: one `galapagos recheck` job per
# partition (per GPU or CPU model), each appending its row to FILE's /rechecks. The jobs run one
# after another (--dependency=afterany): a results file has one writer at a time. Extra sbatch
# options in $SBATCH_ARGS (e.g. "--gres=gpu:1 --account=proj"), recheck options in $GALAPAGOS_ARGS.
# `galapagos report FILE` then shows the winner's speedup and verdict per machine.
set -euo pipefail
if [[ $# -lt 2 ]]; then
  echo "usage: $0 FILE PARTITION [PARTITION ...]" >&2
  exit 2
fi
file=$1
shift
[[ -f "$file" ]] || { echo "$0: $file: no such results file" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
read -r -a sbatch_args <<<"${SBATCH_ARGS:-}"
previous=""
for partition in "$@"; do
  dependency=()
  [[ -n "$previous" ]] && dependency=(--dependency="afterany:$previous")
  previous=$(GALAPAGOS_FILE="$file" sbatch --parsable --partition="$partition" "${dependency[@]}" "${sbatch_args[@]}" \
    --export=ALL "$here/recheck.sbatch")
  echo "partition $partition: job $previous"
done
