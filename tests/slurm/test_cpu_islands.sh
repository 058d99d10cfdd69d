#!/usr/bin/env bash
# test_cpu_islands.sh GALAPAGOS SOURCE_DIR: submits slurm/cpu-islands.sbatch to a private one-node
# Slurm cluster, shrunk to two islands on this node and a tiny budget, and checks its results file.
set -euo pipefail
galapagos=$(realpath "$1") src=$(realpath "$2")
source "$(dirname "$0")/slurm_cluster.sh"
slurm_cluster_start

out=$SLURM_DIR/cpu-islands.h5
job=$(GALAPAGOS_CONFIG=$src/configs/stencil3d7-cpu-ci.toml GALAPAGOS_OUT=$out GALAPAGOS_BUDGET=4 \
  GALAPAGOS_BIN=$galapagos sbatch --parsable --nodes=1 --ntasks-per-node=2 --chdir="$SLURM_DIR" \
  --output="$SLURM_DIR/cpu-islands-%j.out" "$src/slurm/cpu-islands.sbatch") || slurm_fail "sbatch refused cpu-islands.sbatch"
echo "submitted cpu-islands.sbatch as job $job"
slurm_wait "$job" 150
slurm_expect_state "$job" COMPLETED
/usr/bin/python3 "$src/tests/integration/check_search_results.py" "$out" 2 || slurm_fail "results of job $job do not check out"
echo "cpu-islands.sbatch: job $job completed, 2 islands"
