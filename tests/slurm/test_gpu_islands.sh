#!/usr/bin/env bash
# test_gpu_islands.sh GALAPAGOS SOURCE_DIR: checks slurm/gpu-islands.sbatch without a GPU. bash
# parses every shipped script; the controller of a private one-node Slurm cluster that counts two
# GPUs accepts the script's request of one GPU per task (sbatch --test-only, the layout shrunk to
# this node) and refuses one beyond the node's GPUs; and the script's launch path runs for real
# with the CPU CI config. The GPU search itself needs a GPU node and is not run here.
set -euo pipefail
galapagos=$(realpath "$1") src=$(realpath "$2")
for script in "$src"/slurm/*.sbatch; do
  bash -n "$script" || { echo "FAIL: bash cannot parse $script" >&2; exit 1; }
done
source "$(dirname "$0")/slurm_cluster.sh"
slurm_cluster_start

script=$src/slurm/gpu-islands.sbatch
reply=$(sbatch --test-only --ntasks-per-node=2 --cpus-per-task=1 --chdir="$SLURM_DIR" "$script" 2>&1) ||
  slurm_fail "sbatch --test-only refused gpu-islands.sbatch: $reply"
grep -q "to start at" <<<"$reply" || slurm_fail "unexpected answer of sbatch --test-only: $reply"
echo "gpu-islands.sbatch accepted: $reply"
if reply=$(sbatch --test-only --ntasks-per-node=1 --gpus-per-task=3 --cpus-per-task=1 --chdir="$SLURM_DIR" "$script" 2>&1); then
  slurm_fail "sbatch --test-only accepted 3 GPUs per task on a node with 2: the GPU request is not checked ($reply)"
fi

out=$SLURM_DIR/gpu-islands-cpu.h5
job=$(GALAPAGOS_CONFIG=$src/configs/stencil3d7-cpu-ci.toml GALAPAGOS_OUT=$out GALAPAGOS_BUDGET=4 \
  GALAPAGOS_BIN=$galapagos sbatch --parsable --ntasks-per-node=2 --cpus-per-task=1 --chdir="$SLURM_DIR" \
  --output="$SLURM_DIR/gpu-islands-%j.out" "$script") || slurm_fail "sbatch refused gpu-islands.sbatch"
echo "submitted gpu-islands.sbatch with the CPU CI config as job $job"
slurm_wait "$job" 150
slurm_expect_state "$job" COMPLETED
/usr/bin/python3 "$src/tests/integration/check_search_results.py" "$out" 2 || slurm_fail "results of job $job do not check out"
echo "gpu-islands.sbatch: launch path ok (job $job, 2 islands, CPU config)"
echo "real GPU search skipped: this test has no GPU to give it (run slurm/gpu-islands.sbatch on a GPU node)"
