#!/usr/bin/env bash
# Quick start, part 1: installs what galapagos needs (Debian 12, as root), builds it and runs
# the default search (configs/stencil3d7-cpu.toml) with two MPI islands. Prints the winner and
# where the results went. Extra arguments go to `galapagos run` (e.g. --budget 8).
set -euo pipefail
cd "$(dirname "$0")/.."
tools/install-deps.sh
tools/build.sh default
mpi_flags=(--bind-to none --oversubscribe)
if [[ $(id -u) -eq 0 ]]; then mpi_flags+=(--allow-run-as-root); fi
exec mpirun -np "${GALAPAGOS_ISLANDS:-2}" "${mpi_flags[@]}" build/bin/galapagos run configs/stencil3d7-cpu.toml "$@"
