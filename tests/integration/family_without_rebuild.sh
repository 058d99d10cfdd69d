#!/usr/bin/env bash
# family_without_rebuild.sh GALAPAGOS SOURCE_DIR: a family copied into a new folder and renamed
# is found at run time through $GALAPAGOS_KERNELS and evaluated, with no rebuild of galapagos.
set -eu
galapagos=$1 src=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -r "$src/kernels/stencil3d7" "$work/my_stencil"
sed -i 's/^name = "stencil3d7"/name = "my_stencil"/' "$work/my_stencil/family.toml"
cp "$src/tests/adversarial/eval.toml" "$work/eval.toml"
sed -i 's/^family = "stencil3d7"/family = "my_stencil"/' "$work/eval.toml"
out=$(GALAPAGOS_KERNELS="$work" "$galapagos" eval --family my_stencil --backend cpu --config "$work/eval.toml" \
      --no-baselines --json "$work/my_stencil/baselines/openmp_plain.cpp")
echo "$out"
echo "$out" | /usr/bin/python3 -c 'import json,sys; d=json.load(sys.stdin); sys.exit(0 if d["status"] == "ok" else 1)'
echo "a family added at run time was evaluated"
