#!/usr/bin/env bash
# Builds galapagos on a GPU machine that lacks some of its dependencies, then runs a command.
#
#   tools/gpu-run.sh prepare        on the development machine (Debian 12): downloads the Debian
#                                   packages the GPU machine lacks into .gpu/debs (git-ignored)
#   tools/gpu-run.sh CMD [ARGS...]  on the GPU machine: unpacks them into .gpu/root (never into /),
#                                   builds galapagos into build-gpu/, runs CMD with the paths set
#
# What the GPU machine is known to lack (../shared/DEVICE.md): Kokkos and Kokkos Kernels, toml++,
# muParser, Nettle (the build cache's SHA-256), the libseccomp and libcurl headers, and the Boost.Program_options library (it has only headers). Its own Open MPI, serial HDF5, Boost, nlohmann-json,
# OpenBLAS, GoogleTest and CUDA toolkit are used as they are. With the device tool, carry `.gpu`.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD/.gpu/root
packages=(libtrilinos-kokkos-dev libtrilinos-kokkos-13.2 libtrilinos-kokkos-kernels-dev
          libtrilinos-kokkos-kernels-13.2 libtomlplusplus-dev libtomlplusplus3 libmuparser-dev libmuparser2v5 libseccomp-dev
          libboost1.74-dev libboost-program-options1.74-dev libboost-program-options1.74.0 libcurl4-openssl-dev
          nettle-dev libgmp-dev)

if [[ ${1:-} == prepare ]]; then
  mkdir -p .gpu/debs
  (cd .gpu/debs && apt-get download "${packages[@]}")
  echo "gpu-run: $(ls .gpu/debs | wc -l) packages in .gpu/debs ($(du -sh .gpu/debs | cut -f1))"
  exit 0
fi
if [[ $# -eq 0 ]]; then
  echo "usage: tools/gpu-run.sh prepare | tools/gpu-run.sh CMD [ARGS...]" >&2
  exit 2
fi
if ! ls .gpu/debs/*.deb >/dev/null 2>&1; then
  echo "gpu-run: .gpu/debs is empty: run 'tools/gpu-run.sh prepare' on the development machine first" >&2
  exit 2
fi

if [[ ! -f $root/.unpacked ]]; then
  for deb in .gpu/debs/*.deb; do dpkg -x "$deb" "$root"; done
  libdir=$root/usr/lib/x86_64-linux-gnu
  # pkg-config files name /usr as their prefix: point them at the unpacked tree.
  for pc in "$libdir"/pkgconfig/*.pc "$root"/usr/share/pkgconfig/*.pc; do
    [[ -f $pc ]] && sed -i "s#^prefix=/usr#prefix=$root/usr#" "$pc"
  done
  # A -dev package's .so link whose runtime is not unpacked: link the machine's own library.
  for so in "$libdir"/*.so; do
    if [[ -L $so && ! -e $so ]]; then
      name=$(basename "$so")
      system=$(ldconfig -p | awk -v n="$name" '$1 ~ "^"n"\\." {print $NF; exit}')
      [[ -n $system ]] && ln -sf "$system" "$so"
    fi
  done
  touch "$root/.unpacked"
fi

export PKG_CONFIG_PATH=$root/usr/lib/x86_64-linux-gnu/pkgconfig:$root/usr/share/pkgconfig:${PKG_CONFIG_PATH:-}
export LD_LIBRARY_PATH=$root/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
export PATH=/usr/local/cuda/bin:$PATH
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DTrilinosKokkos_ROOT="$root/usr" -DCMAKE_PREFIX_PATH="$root/usr" \
      -DBoost_DIR="$root/usr/lib/x86_64-linux-gnu/cmake/Boost-1.74.0" \
      -DGALAPAGOS_HDF5_FLAVOR=serial -DGALAPAGOS_BUILD_TESTS=OFF >build-gpu.log 2>&1 ||
  { tail -30 build-gpu.log; exit 1; }
cmake --build build-gpu -j "$(nproc)" >>build-gpu.log 2>&1 || { grep -E "error|Error" build-gpu.log | head -30; exit 1; }
export GALAPAGOS_CACHE=${GALAPAGOS_CACHE:-$PWD/.gpu/cache}
export PATH=$PWD/build-gpu/bin:$PATH
exec "$@"
