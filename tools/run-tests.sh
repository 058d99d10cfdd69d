#!/usr/bin/env bash
# Quick start, part 2: installs what galapagos needs (Debian 12, as root), builds it and runs
# the whole test suite (unit, integration with mpirun and h5py, adversarial candidates).
set -euo pipefail
cd "$(dirname "$0")/.."
tools/install-deps.sh
tools/build.sh default
cd build
# Tests that time kernels share the RESOURCE_LOCK "node", so they never overlap each other.
ctest --output-on-failure -j "$(nproc)" --timeout 900
