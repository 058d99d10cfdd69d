#!/usr/bin/env bash
# test_long_run.sh GALAPAGOS SOURCE_DIR: submits slurm/long-run.sbatch to a private one-node Slurm
# cluster with a one-minute time limit and a 50 s signal lead, so that Slurm's time-limit signal
# arrives while the islands search. slurmctld looks at time limits every 30 s from its start, so
# the signal comes 10 to 40 s into a start of the job (about 27 s into the first, which begins
# right after the cluster). The islands must checkpoint and exit, the job requeue itself and
# resume from the results file, and the file at the end must hold one complete search, with no
# candidate lost to the signal.
set -euo pipefail
galapagos=$(realpath "$1") src=$(realpath "$2")
source "$(dirname "$0")/slurm_cluster.sh"
slurm_cluster_start

# The CI config with a short grace period: signalled 10 to 40 s into a one-minute job, the islands
# must be gone well before the limit.
config=$SLURM_DIR/stencil3d7-long-run.toml
sed 's/^\[run\]$/[run]\ngrace_s = 8/' "$src/configs/stencil3d7-cpu-ci.toml" >"$config"
grep -q '^grace_s = 8$' "$config" || slurm_fail "could not add grace_s to the test config"
budget=24 # evaluations per island: more than a start of the job gets (about 3 to 8 on 2 cores)

out=$SLURM_DIR/long-run.h5
job=$(GALAPAGOS_CONFIG=$config GALAPAGOS_OUT=$out GALAPAGOS_BUDGET=$budget GALAPAGOS_BIN=$galapagos \
  GALAPAGOS_MAX_RESTARTS=14 sbatch --parsable --nodes=1 --ntasks-per-node=2 --time=1 --signal=B:USR1@50 \
  --chdir="$SLURM_DIR" --output="$SLURM_DIR/long-run-%j.out" "$src/slurm/long-run.sbatch") ||
  slurm_fail "sbatch refused long-run.sbatch"
echo "submitted long-run.sbatch as job $job (time limit 1 min, SIGUSR1 50 s before it)"
slurm_wait "$job" 660
slurm_expect_state "$job" COMPLETED
log=$SLURM_DIR/long-run-$job.out
restarts=$(slurm_job_field "$job" Restarts)
((restarts >= 1)) || slurm_fail "job $job was never requeued (Restarts=$restarts): the search ended before the time-limit signal"
for line in "SIGUSR1 received" "requeueing job $job" "resuming the search in $out" "search finished: $out"; do
  grep -qF "$line" "$log" || slurm_fail "the job output lacks '$line'"
done
grep -q "galapagos ended with exit code" "$log" && slurm_fail "a start of the job failed"

/usr/bin/python3 "$src/tests/integration/check_search_results.py" "$out" 2 || slurm_fail "results of job $job do not check out"
/usr/bin/python3 - "$out" "$budget" <<'PY' || slurm_fail "the resumed search in $out is not whole"
import sys, h5py
path, budget = sys.argv[1], int(sys.argv[2])
text = lambda v: v.decode() if isinstance(v, bytes) else str(v)
with h5py.File(path, "r") as f:
    assert f.attrs["finished"].item() is True, "root attribute finished is not true"
    cands = f["candidates"][:]
# Every stencil3d7 genome compiles and runs: a candidate that did not is one the stop signal
# reached (a compiler or sandboxed worker killed by it).
hit = [(int(c["id"]), text(c["status"]), text(c["reason"])[:80]) for c in cands
       if text(c["status"]) in ("compile_error", "load_error", "crash", "timeout", "protocol_error")
       or any(s in text(c["reason"]) for s in ("SIGUSR1", "SIGTERM"))]
assert not hit, f"candidates killed while the islands stopped: {hit}"
for island in (0, 1):
    n = sum(1 for c in cands if c["island"] == island)
    assert n == budget, f"island {island} evaluated {n} candidates, its budget is {budget}"
print(f"{path}: finished, {len(cands)} candidates, {budget} per island, none killed by the signal")
PY
echo "long-run.sbatch: job $job completed after $restarts requeue(s)"
