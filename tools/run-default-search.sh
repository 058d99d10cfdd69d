#!/usr/bin/env bash
# Quick start, part 1: installs what galapagos needs (Debian 12, as root), builds it and runs
# the default search (configs/stencil3d7-cpu.toml) with two MPI islands. Prints the winner and
# where the results went (results/stencil3d7-cpu.h5, then -2.h5, -3.h5 ... on later runs). Extra
# arguments go to `galapagos run` (e.g. --budget 8).
set -euo pipefail
cd "$(dirname "$0")/.."
tools/install-deps.sh
tools/build.sh default
mpi_flags=(--bind-to none --oversubscribe)
if [[ $(id -u) -eq 0 ]]; then mpi_flags+=(--allow-run-as-root); fi
# galapagos never overwrites a results file: a second run goes to results/stencil3d7-cpu-2.h5 and so
# on (unless the arguments name an --out), so every run's results are kept.
out_args=()
if [[ " $* " != *" --out "* && " $* " != *" --out="* ]]; then
  out=results/stencil3d7-cpu.h5
  for ((n = 2; ; n++)); do
    [[ -e $out || -e $out.lock ]] || break
    out=results/stencil3d7-cpu-$n.h5
  done
  mkdir -p results
  out_args=(--out "$out")
fi
exec mpirun -np "${GALAPAGOS_ISLANDS:-2}" "${mpi_flags[@]}" build/bin/galapagos run configs/stencil3d7-cpu.toml "${out_args[@]}" "$@"
