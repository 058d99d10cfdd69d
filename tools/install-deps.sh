#!/usr/bin/env bash
# Installs every dependency of galapagos from Debian 12's packages. Idempotent: packages
# already present are left alone. Run as root (or through sudo).
#   tools/install-deps.sh            build + run dependencies, test tools (slurm, munge, h5py,
#                                    hipcc, the HIP runtime, ROCm SMI and hipSPARSE for the HIP
#                                    backend and its build check, chromium for the report test).
#                                    The CUDA toolkit is used where present (/usr/local/cuda);
#                                    Debian 12 does not package CUDA 12+.
set -euo pipefail

packages=(
  build-essential cmake pkg-config git ca-certificates clang-format patch
  openmpi-bin libopenmpi-dev
  libhdf5-dev libhdf5-openmpi-dev hdf5-tools
  libtrilinos-kokkos-dev libtrilinos-kokkos-kernels-dev
  libboost-program-options-dev
  libcurl4-openssl-dev
  libtomlplusplus-dev nlohmann-json3-dev libmuparser-dev
  libseccomp-dev nettle-dev
  zlib1g-dev
  libgtest-dev googletest
  libopenblas-dev libblis-openmp-dev
  python3 python3-h5py python3-numpy python3-scipy python3-pandas python3-matplotlib
  python3-venv python3-pip python3-setuptools python3-wheel
  chromium
  slurm-wlm munge
  hipcc libamdhip64-dev librocm-smi-dev libhipsparse-dev
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if ((${#missing[@]} == 0)); then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi

SUDO=""
if [[ $(id -u) -ne 0 ]]; then SUDO=sudo; fi
echo "install-deps: installing ${#missing[@]} packages: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
$SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
