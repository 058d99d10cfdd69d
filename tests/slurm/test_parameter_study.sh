#!/usr/bin/env bash
# test_parameter_study.sh GALAPAGOS SOURCE_DIR: submits slurm/parameter-study.sbatch as a 2-task
# array over stencil3d7's two named sizes to a private one-node Slurm cluster, with a tiny budget,
# and checks both results files: each a complete search, each timed at its own size, and the
# user's config left untouched.
set -euo pipefail
galapagos=$(realpath "$1") src=$(realpath "$2")
source "$(dirname "$0")/slurm_cluster.sh"
slurm_cluster_start

config=$src/configs/stencil3d7-cpu-ci.toml
config_sum=$(sha256sum <"$config")
mkdir "$SLURM_DIR/tmp"
job=$(GALAPAGOS_CONFIG=$config GALAPAGOS_SIZES=small,tune GALAPAGOS_OUT_DIR=$SLURM_DIR/study GALAPAGOS_BUDGET=4 \
  GALAPAGOS_BIN=$galapagos TMPDIR=$SLURM_DIR/tmp sbatch --parsable --array=0-1 --nodes=1 --ntasks-per-node=2 \
  --chdir="$SLURM_DIR" --output="$SLURM_DIR/study-%A_%a.out" "$src/slurm/parameter-study.sbatch") ||
  slurm_fail "sbatch refused parameter-study.sbatch"
echo "submitted parameter-study.sbatch as array job $job"
slurm_wait "$job" 200
slurm_expect_state "$job" COMPLETED
[[ $(slurm_states "$job" | wc -l) -eq 2 ]] || slurm_fail "array job $job does not have 2 tasks"

for size in small tune; do
  out=$SLURM_DIR/study/$size.h5
  [[ -e $out ]] || slurm_fail "no results file $out"
  /usr/bin/python3 "$src/tests/integration/check_search_results.py" "$out" 2 || slurm_fail "results $out do not check out"
  /usr/bin/python3 - "$out" "$size" "$src/kernels/stencil3d7/family.toml" <<'PY' || slurm_fail "$out was not searched at size $size"
import sys, tomllib, h5py
path, size, family = sys.argv[1:]
with open(family, "rb") as fam:
    dims = tomllib.load(fam)["sizes"][size]
with h5py.File(path, "r") as f:
    text = lambda v: v.decode() if isinstance(v, bytes) else str(v)
    cfg = tomllib.loads(text(f.attrs["config_toml"]))
    timed = text(f.attrs["fitness_size"])
assert cfg["eval"]["fitness_size"] == size, f"its config says fitness_size = {cfg['eval']['fitness_size']!r}"
for k, v in dims.items():
    assert f"{k}={v}" in timed, f"timed problem {timed!r} lacks {k}={v}"
print(f"{path}: fitness_size = {size!r}, timed {timed}")
PY
done
[[ $(sha256sum <"$config") == "$config_sum" ]] || slurm_fail "the study modified $config"
[[ -z $(ls -A "$SLURM_DIR/tmp") ]] || slurm_fail "the study left files in TMPDIR: $(ls -A "$SLURM_DIR/tmp")"
echo "parameter-study.sbatch: array job $job completed, sizes small and tune"
