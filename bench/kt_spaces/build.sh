#!/usr/bin/env bash
# Builds measure_kt_spaces and copies the kernel sources next to it (the program reads them at
# run time from <binary dir>/kernels unless --kernels DIR is given).
#
#   bench/kt_spaces/build.sh [OUTDIR]      (default: <repo root>/build-kt)
#
# Needs g++ (C++17), the CUDA toolkit's headers, libnvrtc and libcuda (the stub in lib64/stubs is
# enough for linking on a machine without a GPU), and the nlohmann-json headers (>= 3.9). Extra
# compiler flags (e.g. -I for a nlohmann-json outside the default include path) come from CXXFLAGS.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
out="${1:-$repo/build-kt}"
cuda="${CUDA_HOME:-/usr/local/cuda}"
mkdir -p "$out"
g++ -O2 -std=c++17 -Wall ${CXXFLAGS:-} -I"$cuda/include" "$here/measure_kt_spaces.cpp" \
    -L"$cuda/lib64" -L"$cuda/lib64/stubs" -Wl,-rpath,"$cuda/lib64" \
    -lnvrtc -lcuda -pthread -o "$out/measure_kt_spaces"
rm -rf "$out/kernels"
cp -r "$here/kernels" "$out/kernels"
echo "built $out/measure_kt_spaces (kernels in $out/kernels)"
