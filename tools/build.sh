#!/usr/bin/env bash
# Configures and builds galapagos with a CMake preset (default: the optimised build in build/).
#   tools/build.sh [PRESET]
set -euo pipefail
cd "$(dirname "$0")/.."
preset=${1:-default}
cmake --preset "$preset" >/dev/null
cmake --build --preset "$preset" -j "$(nproc)"
