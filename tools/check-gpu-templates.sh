#!/usr/bin/env bash
# Compile-checks the GPU kernel templates and baselines, the way galapagos builds them.
#
#   tools/check-gpu-templates.sh [--werror] [--no-nvcc] [-j N] [FILE...]
#
# Files: every kernels/*/hip/*.hip and kernels/*/cuda/*.cu (or the FILEs given). Each is compiled
# at its default parameters (no -D) plus every point listed in the file on a line
#   // glp-check-point: -DGLP_A=1 -DGLP_B=2 ...
#   *.hip  with hipcc for AMD gfx90a:
#            hipcc --offload-arch=gfx90a -std=c++17 -O3 -fPIC -shared -fvisibility=hidden
#                  -I kernels/include -I <dir> FILE -o X.so
#          and, when nvcc is available, for NVIDIA through the HIP-to-CUDA header:
#            nvcc ... -x cu -include glp_hip_on_cuda.h FILE
#          unless the file has the line "// glp-check: amd-only" (an AMD vendor library's baseline).
#   *.cu   with nvcc for sm_90, when nvcc is available (on PATH or /usr/local/cuda/bin/nvcc):
#            nvcc -std=c++17 -O3 -gencode arch=compute_90,code=sm_90
#                 -Xcompiler -fPIC,-fvisibility=hidden -shared -I kernels/include -I <dir> FILE -o X.so
#          Without nvcc (or with --no-nvcc) this part is skipped with a message (CI machines have
#          hipcc only).
# Vendor libraries (-lcublas, -lcusparse) are not linked: a shared object may leave their symbols
# undefined, so no GPU and no library is needed.
#
# Prints one line per file and compiler: "ok", "ok (N warnings)" or "FAIL" with the failing point
# and the first error line. Exits 1 when anything failed (with --werror: or warned), 2 when hipcc
# is missing or on a usage error, 0 otherwise. No GPU needed.
set -uo pipefail
cd "$(dirname "$0")/.."

werror=0
use_nvcc=1
jobs=$(nproc 2>/dev/null || echo 2)
files=()
while [[ $# -gt 0 ]]; do
  case $1 in
    --werror) werror=1 ;;
    --no-nvcc) use_nvcc=0 ;;
    -j) shift; jobs=${1:?-j needs a number} ;;
    -h|--help) sed -n '2,30p' "$0"; exit 0 ;;
    -*) echo "check-gpu-templates: unknown option $1" >&2; exit 2 ;;
    *) files+=("$1") ;;
  esac
  shift
done
if [[ ${#files[@]} -eq 0 ]]; then
  shopt -s nullglob
  files=(kernels/*/hip/*.hip kernels/*/cuda/*.cu)
  shopt -u nullglob
fi
if [[ ${#files[@]} -eq 0 ]]; then
  echo "check-gpu-templates: no kernels/*/hip/*.hip or kernels/*/cuda/*.cu files" >&2
  exit 2
fi

hipcc_bin=$(command -v hipcc || true)
nvcc_bin=$(command -v nvcc || true)
[[ -z $nvcc_bin && -x /usr/local/cuda/bin/nvcc ]] && nvcc_bin=/usr/local/cuda/bin/nvcc
[[ $use_nvcc -eq 0 ]] && nvcc_bin=""
if [[ -z $hipcc_bin ]]; then
  echo "check-gpu-templates: hipcc not found (install HIP: Debian's hipcc package)" >&2
  exit 2
fi
if [[ $use_nvcc -eq 0 ]]; then
  echo "check-gpu-templates: --no-nvcc: skipping the CUDA and HIP-on-CUDA builds"
elif [[ -z $nvcc_bin ]]; then
  echo "check-gpu-templates: nvcc not found (not on PATH, no /usr/local/cuda/bin/nvcc): skipping the CUDA and HIP-on-CUDA builds"
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# One job: compile FILE with COMPILER (hipcc | nvcc | nvcc-hip) at every point; write one result line.
check_one() {
  local compiler=$1 file=$2 out=$3
  local dir; dir=$(dirname "$file")
  local -a points=("")
  while IFS= read -r p; do points+=("$p"); done < <(sed -n 's#^// glp-check-point:[[:space:]]*##p' "$file")
  local -a cmd
  case $compiler in
    hipcc) cmd=("$hipcc_bin" --offload-arch=gfx90a -std=c++17 -O3 -fPIC -shared -fvisibility=hidden) ;;
    nvcc) cmd=("$nvcc_bin" -std=c++17 -O3 -gencode arch=compute_90,code=sm_90 -Xcompiler -fPIC,-fvisibility=hidden -shared) ;;
    nvcc-hip) cmd=("$nvcc_bin" -std=c++17 -O3 -gencode arch=compute_90,code=sm_90 -Xcompiler -fPIC,-fvisibility=hidden -shared
                   -x cu -include glp_hip_on_cuda.h) ;;
  esac
  local so; so=$(mktemp "$tmp/XXXXXX.so")
  local warnings=0 start=$SECONDS log
  for p in "${points[@]}"; do
    local -a defs=()
    [[ -n $p ]] && read -r -a defs <<<"$p"
    if ! log=$("${cmd[@]}" -I kernels/include -I "$dir" "${defs[@]}" "$file" -o "$so" 2>&1); then
      printf 'FAIL  %-8s %s  [%s]: %s\n' "$compiler" "$file" "${p:-defaults}" \
        "$(grep -m1 -iE 'error' <<<"$log" || head -n1 <<<"$log")" >"$out"
      return
    fi
    local n; n=$(grep -c ': warning' <<<"$log" || true)
    if [[ $n -gt 0 ]]; then
      warnings=$((warnings + n))
      printf '%s\n' "$log" >>"$out.log"
    fi
  done
  local what="ok"
  [[ $warnings -gt 0 ]] && what="ok ($warnings warnings)"
  [[ $warnings -gt 0 && $werror -eq 1 ]] && what="FAIL ($warnings warnings, --werror)"
  printf '%-5s %-8s %s  (%d points, %ds)\n' "${what%% *}" "$compiler" "$file" "${#points[@]}" $((SECONDS - start)) >"$out"
  [[ $warnings -gt 0 ]] && printf '      %s\n' "$what: $(grep -m1 ': warning' "$out.log")" >>"$out"
}

# The job list, in a fixed order so that the report is stable.
n=0
for f in "${files[@]}"; do
  if [[ ! -f $f ]]; then echo "check-gpu-templates: no such file: $f" >&2; exit 2; fi
  case $f in
    *.hip)
      echo "hipcc $f $tmp/r$((n++))" >>"$tmp/jobs"
      [[ -n $nvcc_bin ]] && ! grep -q '^// glp-check: amd-only' "$f" && echo "nvcc-hip $f $tmp/r$((n++))" >>"$tmp/jobs" ;;
    *.cu)
      [[ -n $nvcc_bin ]] && echo "nvcc $f $tmp/r$((n++))" >>"$tmp/jobs" ;;
    *) echo "check-gpu-templates: not a .hip or .cu file: $f" >&2; exit 2 ;;
  esac
done
[[ -f $tmp/jobs ]] || { echo "check-gpu-templates: nothing to build"; exit 0; }

export -f check_one
export hipcc_bin nvcc_bin werror tmp
xargs -P "$jobs" -L 1 bash -c 'check_one "$@"' _ <"$tmp/jobs"

status=0
for ((i = 0; i < n; ++i)); do
  if [[ -f $tmp/r$i ]]; then
    cat "$tmp/r$i"
    grep -q '^FAIL' "$tmp/r$i" && status=1
  else
    echo "FAIL  (job $i produced no result)"
    status=1
  fi
done
exit $status
