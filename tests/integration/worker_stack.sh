#!/usr/bin/env bash
# worker_stack.sh WORKER: nothing galapagos-worker loads at start asks for executable stacks.
# Once one loaded object asks for them (PT_GNU_STACK with E), glibc makes every thread stack of
# the process writable and executable, and the CPU sandbox kills the first thread made after it
# closes (a candidate's OpenMP or BLAS pool). Such a library may be loaded only where it is needed:
# AMD's HIP runtime comes in the module galapagos-hip-amd.so, on AMD nodes (amd_module.cpp).
set -u
worker=${1:?usage: worker_stack.sh WORKER}
command -v readelf >/dev/null || { echo "worker_stack: readelf not found (binutils)"; exit 2; }
objects=("$worker")
while read -r lib; do objects+=("$lib"); done < <(ldd "$worker" | awk '$2 == "=>" && $3 ~ /^\// {print $3}')
status=0
for obj in "${objects[@]}"; do
  flags=$(readelf -lW "$obj" | awk '$1 == "GNU_STACK" {print $7}')
  if [[ $flags == *E* ]]; then
    echo "FAIL: $obj asks for executable stacks (GNU_STACK $flags)"
    status=1
  fi
done
[[ $status -eq 0 ]] && echo "none of the ${#objects[@]} objects galapagos-worker loads at start asks for executable stacks"
exit $status
