#!/usr/bin/env bash
# check_format.sh SOURCE_DIR: the C++ of src/, apps/ and tests/ is laid out as .clang-format says
# (clang-format 14, Debian 12's; tools/install-deps.sh installs it). Prints each file that is not,
# with the first lines clang-format would change, and exits 1; exits 77 (skipped) without
# clang-format. Fix with: clang-format -i FILE.
set -uo pipefail
cd "$1"
tool=$(command -v clang-format-14 || command -v clang-format) || { echo "check_format: clang-format is not installed: skipped"; exit 77; }
# Not tests/data/spaces/kernels: the templates recorded spaces were measured with, kept byte for
# byte (a replay finds a candidate by its source's hash).
mapfile -t files < <(git ls-files 'src/*.cpp' 'src/*.hpp' 'apps/*.cpp' 'apps/*.hpp' 'tests/*.cpp' 'tests/*.hpp' \
  ':(exclude)tests/data/spaces/kernels/*' 2>/dev/null ||
  find src apps tests -path tests/data/spaces/kernels -prune -o \( -name '*.cpp' -o -name '*.hpp' \) -print)
((${#files[@]} > 0)) || { echo "check_format: no C++ files found under $1"; exit 1; }
bad=0
for f in "${files[@]}"; do
  if ! changes=$(diff -u "$f" <("$tool" --style=file "$f")); then
    echo "check_format: $f is not formatted ($tool -i $f):"
    printf '%s\n' "$changes" | sed -n '3,12p'
    bad=$((bad + 1))
  fi
done
((bad == 0)) || { echo "check_format: $bad of ${#files[@]} files need clang-format"; exit 1; }
echo "check_format: ${#files[@]} files formatted as .clang-format says ($("$tool" --version | head -1))"
