#!/usr/bin/env bash
# Full searches on an NVIDIA GPU, one family after the other, for a machine where galapagos is
# built and on PATH (e.g. `tools/gpu-run.sh tools/gpu-searches.sh OUT stencil3d7 spmv stencil3d7-hip`).
# Each search uses configs/NAME-cuda.toml, or configs/NAME.toml where NAME names one (e.g.
# stencil3d7-hip: the HIP backend), the GPU-sized problem on one island, and ends with its winner
# timed interleaved with the library baselines. Results files and logs go to OUT.
#   GALAPAGOS_SEARCH_BUDGET   evaluations per search (default: the config's budget)
#   GALAPAGOS_SEARCH_TIMEOUT  seconds per search before it is stopped (default 900)
# A results file already in OUT (OUT/NAME.h5, e.g. carried back from an earlier call that the
# time limit stopped) is resumed instead of started again: `galapagos resume` goes on from its
# checkpoint to the budget and the final rounds, on this machine.
set -u
cd "$(dirname "$0")/.."
out=${1:?usage: tools/gpu-searches.sh OUT FAMILY...}
shift
mkdir -p "$out"
galapagos=$(command -v galapagos) || { echo "gpu-searches: galapagos is not on PATH" >&2; exit 2; }
extra=()
[[ -n ${GALAPAGOS_SEARCH_BUDGET:-} ]] && extra+=(--budget "$GALAPAGOS_SEARCH_BUDGET")
status=0
for family in "$@"; do
  config=configs/$family-cuda.toml
  name=$family-cuda
  [[ -f configs/$family.toml ]] && config=configs/$family.toml name=$family
  [[ -f $config ]] || { echo "gpu-searches: no $config" >&2; status=2; continue; }
  start=$(date +%s)
  command=(run "$config" --out "$out/$name.h5")
  if [[ -f $out/$name.h5 ]]; then
    command=(resume "$out/$name.h5")
    echo "== $family: resuming $out/$name.h5"
  fi
  logged=$(cat "$out/$name.log" 2>/dev/null | wc -l)  # this call's lines follow an earlier call's
  timeout "${GALAPAGOS_SEARCH_TIMEOUT:-900}" "$galapagos" "${command[@]}" "${extra[@]}" >>"$out/$name.log" 2>&1
  rc=$?
  [[ $rc -eq 0 ]] || status=1
  echo "== $family: exit $rc after $(( $(date +%s) - start )) s"
  tail -n +"$((logged + 1))" "$out/$name.log" | grep -E '^(baseline|search:|winner|  |island [0-9]+: (the device|profil))' | head -40
done
exit $status
