#!/usr/bin/env bash
# test_recheck.sh GALAPAGOS SOURCE_DIR: a tiny search, then slurm/recheck-partitions.sh submits
# slurm/recheck.sbatch for two partitions (the private cluster's one partition, twice) with the
# baselines built at -O0: two jobs, the second after the first (one writer per results file), each
# COMPLETED (exit 0: still faster) and each a row of the file's /rechecks.
set -euo pipefail
galapagos=$(realpath "$1") src=$(realpath "$2")
source "$(dirname "$0")/slurm_cluster.sh"
slurm_cluster_start

results=$SLURM_DIR/run.h5
"$galapagos" run "$src/configs/stencil3d7-cpu-ci.toml" --out "$results" --budget 3 --quiet >"$SLURM_DIR/run.log" 2>&1 ||
  slurm_fail "the search failed: $(tail -5 "$SLURM_DIR/run.log")"
submitted=$(GALAPAGOS_BIN=$galapagos GALAPAGOS_ARGS="--baseline-flags=-O0 --rounds 3" \
  SBATCH_ARGS="--chdir=$SLURM_DIR --output=$SLURM_DIR/recheck-%j.out" \
  "$src/slurm/recheck-partitions.sh" "$results" test test) || slurm_fail "recheck-partitions.sh failed: $submitted"
echo "$submitted"
mapfile -t jobs < <(grep -oE 'job [0-9]+' <<<"$submitted" | cut -d' ' -f2)
[[ ${#jobs[@]} -eq 2 ]] || slurm_fail "expected two jobs, got: $submitted"
[[ $(slurm_job_field "${jobs[1]}" Dependency) == *"afterany:${jobs[0]}"* ]] ||
  slurm_fail "job ${jobs[1]} does not wait for ${jobs[0]}: $(slurm_job_field "${jobs[1]}" Dependency)"
slurm_wait "${jobs[1]}" 300
for job in "${jobs[@]}"; do
  slurm_expect_state "$job" COMPLETED
  grep -q "verdict: still faster" "$SLURM_DIR/recheck-$job.out" || slurm_fail "job $job: $(tail -5 "$SLURM_DIR/recheck-$job.out")"
done
/usr/bin/python3 - "$results" <<'PY' || slurm_fail "/rechecks of $results"
import sys, h5py
with h5py.File(sys.argv[1], "r") as f:
    rows = f["rechecks"][:]
verdicts = [v.decode() for v in rows["verdict"]]
assert verdicts == ["still_faster", "still_faster"], verdicts
assert all(c.decode() == '{"baseline_flags":"-O0"}' for c in rows["changes"]), rows["changes"]
print(f"/rechecks: {verdicts}")
PY
echo "recheck-partitions.sh: jobs ${jobs[*]} completed one after the other, two rows in /rechecks"
