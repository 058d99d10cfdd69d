#!/bin/sh
# install_relocated.sh BUILD_DIR SOURCE_DIR: galapagos installed into a prefix, the prefix
# moved elsewhere, and used from a third folder with the source tree out of reach (a private
# mount namespace lays an empty folder over it where unshare is allowed): a CI search, report
# and export work from the moved prefix alone, the results file and everything report and
# export wrote name no path into the source tree, the report's interpreter is the one
# $GALAPAGOS_PYTHON names (the installed Python package on its PYTHONPATH), a family folder on
# $GALAPAGOS_KERNEL_PATH is found, and another CMake project builds a kernel against the
# installed package (find_package(galapagos)).
# The work folder is outside the source tree (a temporary folder, removed when the test passes).
set -eu
build=$1 src=$(cd "$2" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/galapagos-install.XXXXXX")
fail() { echo "install_relocated: FAIL: $* (files kept in $work)" >&2; exit 1; }
case $work in "$src"/*) fail "the temporary folder $work is inside the source tree" ;; esac
mkdir -p "$work/elsewhere" "$work/moved"
cmake --install "$build" --prefix "$work/staged" >"$work/install.log" || fail "cmake --install: $(tail -3 "$work/install.log")"
mv "$work/staged" "$work/moved/prefix"
prefix=$work/moved/prefix
for f in bin/galapagos bin/galapagos-worker include/galapagos/glp_kernel.h share/galapagos/kernels/stencil3d7/family.toml \
         share/galapagos/configs/stencil3d7-cpu-ci.toml share/galapagos/python/galapagos/report.py \
         share/galapagos/slurm/cpu-islands.sbatch lib/cmake/galapagos/galapagos-config.cmake \
         share/bash-completion/completions/galapagos; do
  [ -e "$prefix/$f" ] || fail "not installed: $f"
done
cp "$src/tests/integration/check_search_results.py" "$work/"

# What runs with the source tree out of reach.
cat >"$work/use_prefix.sh" <<'USE'
set -eu
prefix=$1 src=$2 work=$3
fail() { echo "install_relocated: FAIL: $* (files kept in $work)" >&2; exit 1; }
unset GALAPAGOS_KERNELS GALAPAGOS_KERNEL_PATH GALAPAGOS_TOOLS GALAPAGOS_WORKER
cd "$work/elsewhere"
if [ -e "$src/CMakeLists.txt" ]; then echo "source tree still visible: checking paths only"; else echo "source tree out of reach"; fi
g=$prefix/bin/galapagos
"$g" version
"$g" run "$prefix/share/galapagos/configs/stencil3d7-cpu-ci.toml" --out run.h5 --quiet || fail "run from the prefix"
/usr/bin/python3 "$work/check_search_results.py" run.h5 1 || fail "check_search_results.py"

# The report through the interpreter GALAPAGOS_PYTHON names.
printf '#!/bin/sh\necho "$PYTHONPATH $@" >"%s/python-used"\nexec /usr/bin/python3 "$@"\n' "$work" >"$work/python"
chmod +x "$work/python"
GALAPAGOS_PYTHON=$work/python "$g" report run.h5 --out report >report.log || fail "report: $(cat report.log)"
grep -q "^$prefix/share/galapagos/python.* -m galapagos.report run.h5" "$work/python-used" ||
  fail "report did not run the installed package through GALAPAGOS_PYTHON: $(cat "$work/python-used")"
[ -s report/index.html ] && [ -s report/report.md ] || fail "no report/index.html and report.md"

"$g" export run.h5 --out export >export.log || fail "export: $(cat export.log)"
sh export/reproduce.sh --no-baselines --json >reproduce.log || fail "reproduce.sh: $(tail -3 reproduce.log)"

# A family of the user's, found through GALAPAGOS_KERNEL_PATH.
mkdir -p "$work/families"
cp -r "$prefix/share/galapagos/kernels/stencil3d7" "$work/families/my_stencil"
sed -i 's/^name = "stencil3d7"/name = "my_stencil"/' "$work/families/my_stencil/family.toml"
GALAPAGOS_KERNEL_PATH=$work/families "$g" space my_stencil >space.log || fail "space my_stencil: $(cat space.log)"

# No path into the source tree in anything written.
h5dump run.h5 >run.dump
if grep -rlF "$src" run.dump report export; then fail "a path into the source tree ($src) in the files above"; fi
grep -qF "$prefix" export/reproduce.sh || fail "reproduce.sh does not run the installed galapagos"
echo "prefix used alone: run, report, export, reproduce.sh, GALAPAGOS_KERNEL_PATH"
USE
if unshare --mount --propagation private true 2>/dev/null; then
  unshare --mount --propagation private sh -c 'mount -t tmpfs none "$2" && exec sh "$3/use_prefix.sh" "$1" "$2" "$3"' \
    -- "$prefix" "$src" "$work"
else
  sh "$work/use_prefix.sh" "$prefix" "$src" "$work"
fi

# Another CMake project builds a kernel against the installed package.
mkdir -p "$work/consumer"
cat >"$work/consumer/CMakeLists.txt" <<'CM'
cmake_minimum_required(VERSION 3.25)
project(consumer LANGUAGES C)
find_package(galapagos 0.1 REQUIRED CONFIG)
add_library(scale MODULE scale.c)
target_link_libraries(scale PRIVATE galapagos::kernel_abi)
file(WRITE ${CMAKE_BINARY_DIR}/found.txt "${galapagos_EXECUTABLE}\n${galapagos_KERNELS_DIR}\n")
CM
cat >"$work/consumer/scale.c" <<'C'
#include <glp_kernel.h>
int glp_kernel(const glp_arg* args, int nargs, const int64_t* sizes, void* stream) {
  (void)sizes; (void)stream;
  if (nargs < 1) return 1;
  double* x = (double*)args[0].data;
  for (int64_t i = 0; i < args[0].count; ++i) x[i] *= 2;
  return 0;
}
C
cmake -S "$work/consumer" -B "$work/consumer/build" -DCMAKE_PREFIX_PATH="$prefix" >"$work/consumer.log" 2>&1 ||
  fail "find_package(galapagos): $(tail -5 "$work/consumer.log")"
cmake --build "$work/consumer/build" >>"$work/consumer.log" 2>&1 || fail "building against galapagos::kernel_abi: $(tail -5 "$work/consumer.log")"
nm -D "$work/consumer/build/libscale.so" 2>/dev/null | grep -q " T glp_kernel$" ||
  nm -D "$work/consumer/build/scale.so" | grep -q " T glp_kernel$" || fail "the consumer's kernel does not export glp_kernel"
grep -qxF "$prefix/bin/galapagos" "$work/consumer/build/found.txt" || fail "galapagos_EXECUTABLE: $(cat "$work/consumer/build/found.txt")"
rm -rf "$work"
echo "install_relocated: ok"
