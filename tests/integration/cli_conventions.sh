#!/usr/bin/env bash
# cli_conventions.sh GALAPAGOS SOURCE_DIR BUILD_DIR: the command line's conventions (issue 21 item 6).
#   help CMD is CMD --help; the bash completion lists every command and every option `help CMD`
#   shows, and is installed; eval refuses an unknown --param naming the family's parameters; an
#   unknown config key gets "did you mean"; run --print-config prints the resolved config (it reads
#   back as itself) and runs nothing; routine "checkpoint written" lines only with --verbose; the
#   end of a run: the winner headline, then the export command to run next.
set -u
galapagos=$1 src=$2 build=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
fail() { echo "FAIL $*"; failures=$((failures + 1)); }
pass() { echo "ok   $*"; }
cd "$work" || exit 1

# --- help CMD ---------------------------------------------------------------------------------
commands="run resume eval simulate report export recheck watch compare space"
for cmd in $commands; do
  "$galapagos" help "$cmd" >"$work/help.txt" 2>&1; a=$?
  "$galapagos" "$cmd" --help >"$work/dash.txt" 2>&1; b=$?
  if [[ $a -ne 0 || $b -ne 0 ]] || ! cmp -s "$work/help.txt" "$work/dash.txt" || ! grep -q -- "--help" "$work/help.txt"; then
    fail "help $cmd: exit $a/$b, differs from $cmd --help or lists no options"
  fi
done
"$galapagos" help >"$work/help.txt" 2>&1 && grep -q "family new NAME" "$work/help.txt" && grep -q "help \[COMMAND\]" "$work/help.txt" ||
  fail "help: exit $?, or no family/help entries: $(cat "$work/help.txt")"
"$galapagos" help family >"$work/help.txt" 2>&1 && grep -q "galapagos family check NAME" "$work/help.txt" ||
  fail "help family: $(cat "$work/help.txt")"
"$galapagos" help nonsense >/dev/null 2>"$work/err.txt"; code=$?
[[ $code -eq 2 ]] && grep -q "unknown command 'nonsense'" "$work/err.txt" || fail "help nonsense: exit $code"
pass "help CMD is CMD --help for $commands"

# --- bash completion ----------------------------------------------------------------------------
script=$src/packaging/bash-completion/galapagos
complete_words() {  # complete_words WORD...: what the completion offers for the last word
  bash -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _galapagos; printf "%s\n" "${COMPREPLY[@]}"' \
    -- "$script" "$@" | sort | tr '\n' ' '
}
got=$(complete_words galapagos "")
for cmd in $commands family help version; do
  [[ " $got " == *" $cmd "* ]] || fail "completion: command $cmd missing from: $got"
done
for cmd in $commands; do
  want=$("$galapagos" help "$cmd" 2>&1 | grep -oE -- '--[a-z][a-z-]*' | sort -u | tr '\n' ' ')
  got=$(complete_words galapagos "$cmd" --)
  [[ "$got" == "$want" ]] || fail "completion of '$cmd --': '$got', help $cmd lists '$want'"
done
for sub in new check; do
  for opt in $("$galapagos" family "$sub" --help 2>&1 | grep -oE -- '--[a-z][a-z-]*' | sort -u); do
    [[ " $(complete_words galapagos family x --) " == *" $opt "* ]] || fail "completion of 'family $sub': $opt missing"
  done
done
[[ $(complete_words galapagos family "") == "check new " ]] || fail "completion of 'family ': $(complete_words galapagos family "")"
[[ $(complete_words galapagos eval --backend c) == "cpu cuda " ]] || fail "completion of --backend c"
grep -q 'share/bash-completion/completions' "$build/cmake_install.cmake" ||
  fail "completion: not installed to share/bash-completion/completions (cmake_install.cmake)"
pass "bash completion: every command, and each command's options as its help lists them"

# --- eval: unknown --param ----------------------------------------------------------------------
"$galapagos" eval --family stencil3d7 --backend cpu "$src/kernels/stencil3d7/cpu/stencil3d7.cpp" --param TILEY=8 \
  >"$work/out.txt" 2>"$work/err.txt"; code=$?
if [[ $code -ne 2 || $(wc -l <"$work/err.txt") -ne 1 ]] || ! grep -q "has no parameter 'TILEY' (its parameters: .*TILE_Y" "$work/err.txt"; then
  fail "eval --param TILEY=8: exit $code: $(cat "$work/err.txt")"
else
  pass "eval --param: $(cat "$work/err.txt")"
fi

# --- did you mean -------------------------------------------------------------------------------
printf '[run]\nfamily = "stencil3d7"\n[eval]\nfitness_sise = "small"\n' >"$work/typo.toml"
"$galapagos" run "$work/typo.toml" --out "$work/typo.h5" >/dev/null 2>"$work/err.txt"; code=$?
if [[ $code -ne 2 || -e "$work/typo.h5" ]] || ! grep -q "key 'eval.fitness_sise': unknown key; did you mean 'fitness_size'?" "$work/err.txt"; then
  fail "did you mean: exit $code: $(cat "$work/err.txt")"
else
  pass "did you mean: $(cat "$work/err.txt")"
fi

# --- run --print-config -------------------------------------------------------------------------
cp "$src/configs/stencil3d7-cpu-ci.toml" "$work/ci.toml"
"$galapagos" run "$work/ci.toml" --print-config --budget 5 --out "$work/never.h5" >"$work/resolved.toml" 2>"$work/err.txt"; code=$?
if [[ $code -ne 0 || -e "$work/never.h5" || -e "$work/results" ]]; then
  fail "--print-config: exit $code, or it ran: $(cat "$work/err.txt")"
fi
for want in '^\[search\]' '^budget = 5$' '^population = 3$' '^mutation_rate = 0\.2$' '^objective = .time.$' \
  '^\[eval\]' '^fitness_size = .small.$' '^warmup = 2$' '^\[strategy\]' '^kind = .forest.$' '^\[migration\]' "^out = .$work/never.h5.$"; do
  grep -qE -- "$want" "$work/resolved.toml" || fail "--print-config: no line matching $want: $(cat "$work/resolved.toml")"
done
"$galapagos" run "$work/resolved.toml" --print-config >"$work/again.toml" 2>&1 ||
  fail "--print-config: its output does not read back: $(cat "$work/again.toml")"
diff <(tail -n +3 "$work/resolved.toml") <(tail -n +3 "$work/again.toml") >/dev/null ||
  fail "--print-config: the printed config reads back as another: $(diff "$work/resolved.toml" "$work/again.toml")"
pass "run --print-config: $(wc -l <"$work/resolved.toml") lines, read back the same, nothing run"

# --- the end of a run; checkpoint lines with --verbose only --------------------------------------
# The recorded space and the config that recorded it (its narrowed stencil3d7 family).
space=$src/tests/data/spaces
replay=(--replay "$space/stencil3d7-cpu.h5" --budget 9)
"$galapagos" run "$space/stencil3d7-cpu-space.toml" --out "$work/plain.h5" "${replay[@]}" >"$work/plain.log" 2>&1 ||
  fail "replayed run: $(cat "$work/plain.log")"
"$galapagos" run "$space/stencil3d7-cpu-space.toml" --out "$work/verbose.h5" --verbose "${replay[@]}" >"$work/verbose.log" 2>&1 ||
  fail "replayed run --verbose: $(cat "$work/verbose.log")"
grep -q "^checkpoint written: generation" "$work/plain.log" && fail "checkpoint lines without --verbose: $(cat "$work/plain.log")"
grep -q "^checkpoint written: generation 0," "$work/verbose.log" && grep -q "^checkpoint written: generation 1," "$work/verbose.log" || fail "no checkpoint line with --verbose: $(cat "$work/verbose.log")"
grep -qE '^winner: candidate [0-9]+, [0-9.]+x over openmp_plain, .* per call \(search objective: time\)$' "$work/plain.log" ||
  fail "no winner headline: $(cat "$work/plain.log")"
headline=$(grep -n '^winner: candidate' "$work/plain.log" | cut -d: -f1)
[[ $(sed -n "$((headline + 1))p" "$work/plain.log") == "  parameters {"* ]] || fail "the parameters do not follow the headline"
[[ $(tail -n 1 "$work/plain.log") == "next: galapagos export $work/plain.h5 --best" ]] ||
  fail "the last line is not the export command: $(tail -n 3 "$work/plain.log")"
/usr/bin/python3 - "$work/plain.h5" <<'PY' || fail "objective attributes or fitness column"
import sys, h5py, numpy as np
with h5py.File(sys.argv[1], "r") as f:
    assert f.attrs["objective"] == "time" and f.attrs["fitness_unit"] == "s", dict(f.attrs)
    assert f["sessions/0"].attrs["objective"] == "time"
    c = f["candidates"][...]
    ok = c["status"] == b"ok"
    assert ok.any() and np.array_equal(c["fitness"][ok], c["time_median_s"][ok]), c["fitness"]
PY
pass "end of run: winner headline, parameters, results, then the export command; checkpoints with --verbose only"

if [[ $failures -ne 0 ]]; then
  echo "$failures failure(s)"
  exit 1
fi
echo "all command-line conventions hold"
