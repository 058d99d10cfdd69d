#!/bin/sh
# check_packaging.sh SOURCE_DIR: the Spack recipe compiles as Python (and loads into Spack where
# spack is installed); the Apptainer definition has its header and only sections Apptainer knows,
# each once, and installs with cmake --install into the prefix its %environment puts on PATH.
set -eu
src=$1 work=${2:-$(mktemp -d)}
fail() { echo "check_packaging: FAIL: $*" >&2; exit 1; }
recipe=$src/packaging/spack/package.py
def=$src/packaging/apptainer/galapagos.def

mkdir -p "$work"
/usr/bin/python3 -c 'import py_compile, sys; py_compile.compile(sys.argv[1], cfile=sys.argv[2], doraise=True)' \
  "$recipe" "$work/package.pyc" || fail "$recipe does not compile"
grep -q "^class Galapagos(CMakePackage):" "$recipe" || fail "$recipe: no class Galapagos(CMakePackage)"
if command -v spack >/dev/null 2>&1; then
  mkdir -p "$work/repo/packages/galapagos"
  printf 'repo:\n  namespace: galapagos_check\n' >"$work/repo/repo.yaml"
  cp "$recipe" "$work/repo/packages/galapagos/"
  spack -C "$work" repo add "$work/repo" >/dev/null && spack -C "$work" info galapagos >/dev/null || fail "spack cannot load $recipe"
fi

head -20 "$def" | grep -q "^Bootstrap: docker$" || fail "$def: no 'Bootstrap: docker' header"
head -20 "$def" | grep -q "^From: debian:12$" || fail "$def: no 'From: debian:12' header"
sections=$(grep -o '^%[a-z]*' "$def")
for s in $sections; do
  case $s in
    %setup | %files | %environment | %post | %runscript | %startscript | %test | %labels | %help | %arguments) ;;
    *) fail "$def: unknown section $s" ;;
  esac
done
[ "$(echo "$sections" | sort | uniq -d)" = "" ] || fail "$def: a section appears twice"
for s in %files %post %environment %runscript; do echo "$sections" | grep -qx "$s" || fail "$def: no $s section"; done
grep -q "cmake --install" "$def" || fail "$def: does not install galapagos"
prefix=$(sed -n 's/.*-DCMAKE_INSTALL_PREFIX=\([^ ]*\).*/\1/p' "$def")
[ -n "$prefix" ] && grep -q "PATH=$prefix/bin" "$def" || fail "$def: %environment does not put the install prefix's bin/ on PATH"
if command -v apptainer >/dev/null 2>&1; then
  apptainer inspect --help >/dev/null || fail "apptainer does not run"
fi
echo "check_packaging: ok"
