#!/usr/bin/env bash
# family_new_check.sh GALAPAGOS SOURCE_DIR: `galapagos family new` writes a family that `galapagos
# family check` passes, found through --dir and through GALAPAGOS_KERNEL_PATH; bad names and an
# existing folder are refused (exit 2, nothing written); a broken copy fails, naming the checks:
# a kernel that refuses misaligned pointers fails "misaligned pointers" (the arena's offset
# reaches the candidate), one that reads one element past its input fails "asan" (which the
# sandboxed checks cannot see: the read stays inside the arena), and a parameter the template
# never reads is reported; and a fault that only two parameter values together cause (neither at
# an end of its range) fails "pairs".
set -u
galapagos=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
fail() { echo "FAIL $*"; failures=$((failures + 1)); }

# --- family new ---------------------------------------------------------------------------------
"$galapagos" family new tiny --dir "$work" >"$work/new.log" 2>&1 || fail "family new: $(cat "$work/new.log")"
for f in family.toml reference.cpp cpu/tiny.cpp baselines/openmp_plain.cpp; do
  [[ -s $work/tiny/$f ]] || fail "family new: no $f"
done
grep -q "^next: galapagos family check tiny --dir $work$" "$work/new.log" || fail "family new: no next step: $(cat "$work/new.log")"
for bad in "tiny" "Tiny" "9lives" "a/b" ""; do
  "$galapagos" family new "$bad" --dir "$work" >/dev/null 2>"$work/err.txt"; code=$?
  [[ $code -eq 2 && $(wc -l <"$work/err.txt") -eq 1 ]] || fail "family new '$bad': exit $code: $(cat "$work/err.txt")"
done
grep -q "already exists" <("$galapagos" family new tiny --dir "$work" 2>&1) || fail "family new over an existing family"
"$galapagos" family new other --dir "$work/missing" >/dev/null 2>&1; [[ $? -eq 2 && ! -e $work/missing ]] || fail "family new into a missing folder"
[[ $(find "$work" -maxdepth 1 -name '.*new*' | wc -l) -eq 0 ]] || fail "family new left a half-written folder"
echo "ok   family new: $(head -n 1 "$work/new.log")"

# --- family check on the new family -------------------------------------------------------------
start=$(date +%s)
GALAPAGOS_KERNEL_PATH=$work "$galapagos" family check tiny >"$work/check.log" 2>&1; code=$?
cat "$work/check.log"
[[ $code -eq 0 ]] || fail "family check of the new family: exit $code"
for check in "baselines" "extremes (1 thread)" "extremes (3 threads)" "misaligned pointers" "parameter UNROLL"; do
  grep -qF "ok   $check: " "$work/check.log" || fail "family check: no passed '$check' line"
done
grep -qE "^(ok   asan: |note asan: skipped)" "$work/check.log" || fail "family check: no asan line"
echo "ok   family check of the new family in $(($(date +%s) - start)) s"

# --- a broken copy -------------------------------------------------------------------------------
cp -r "$work/tiny" "$work/broken"
sed -i 's/^name = "tiny"/name = "broken"/' "$work/broken/family.toml"
cat >>"$work/broken/family.toml" <<'TOML'

[[cpu.params]]
name = "UNUSED"
values = [0, 1]
TOML
# UNROLL=8 refuses a y that is not 64-byte aligned; UNROLL=1 reads x[n].
sed -i 's|^  double\* y = static_cast<double\*>(args\[2\].data);|&\
  if (GLP_UNROLL == 8 \&\& reinterpret_cast<uintptr_t>(y) % 64 != 0) return 7;\
  if (GLP_UNROLL == 1 \&\& n > 0) { volatile double past = x[n]; (void)past; }|' "$work/broken/cpu/tiny.cpp"
grep -q "return 7" "$work/broken/cpu/tiny.cpp" || fail "the broken copy was not made"
"$galapagos" family check broken --dir "$work" >"$work/broken.log" 2>&1; code=$?
cat "$work/broken.log"
[[ $code -eq 1 ]] || fail "family check of the broken copy: exit $code, expected 1"
grep -qE "^FAIL misaligned pointers: UNROLL=8: .*returned 7" "$work/broken.log" || fail "no failed 'misaligned pointers' line naming UNROLL=8"
grep -qF "ok   extremes (3 threads): " "$work/broken.log" || fail "the aligned checks failed too"
if grep -q "^note asan: skipped" "$work/broken.log"; then
  echo "note: no ASan here, the ASan failure is not checked"
else
  grep -qE "^FAIL asan: UNROLL=1.*heap-buffer-overflow" "$work/broken.log" || fail "no failed 'asan' line naming UNROLL=1"
fi
grep -qE "^note parameter UNUSED: the binary is the same at UNUSED=0 and UNUSED=1" "$work/broken.log" ||
  fail "the unused parameter is not reported"
grep -q "^broken: a check FAILED" "$work/broken.log" || fail "no summary line"

# --- a fault that needs two parameters at once ----------------------------------------------------
# UNROLL=4 with MODE=1: two values inside their ranges, in no extreme point; only the pairs find it.
cp -r "$work/tiny" "$work/paired"
sed -i 's/^name = "tiny"/name = "paired"/' "$work/paired/family.toml"
cat >>"$work/paired/family.toml" <<'TOML'

[[cpu.params]]
name = "MODE"
values = [0, 1, 2]
TOML
sed -i 's|^  double\* y = static_cast<double\*>(args\[2\].data);|&\
  if (GLP_UNROLL == 4 \&\& GLP_MODE == 1) return 9;|' "$work/paired/cpu/tiny.cpp"
sed -i 's|^#ifndef GLP_UNROLL|#ifndef GLP_MODE\
#define GLP_MODE 0\
#endif\
&|' "$work/paired/cpu/tiny.cpp"
grep -q "return 9" "$work/paired/cpu/tiny.cpp" || fail "the paired copy was not made"
"$galapagos" family check paired --dir "$work" >"$work/paired.log" 2>&1; code=$?
cat "$work/paired.log"
[[ $code -eq 1 ]] || fail "family check of the paired copy: exit $code, expected 1"
for check in "extremes (1 thread)" "extremes (3 threads)" "misaligned pointers"; do
  grep -qF "ok   $check: " "$work/paired.log" || fail "paired copy: '$check' should pass (no extreme holds the pair)"
done
grep -qE "^FAIL pairs \(3 threads\): pairs #[0-9]+ \((MODE=1 UNROLL=4)\): .*returned 9" "$work/paired.log" ||
  fail "no failed 'pairs' line naming MODE=1 UNROLL=4"
grep -qE "^ok   pairs \(3 threads\): [0-9]+ more points" "$work/broken.log" || fail "the broken copy's pairs did not pass"

"$galapagos" family check nosuch --dir "$work" >/dev/null 2>"$work/err.txt"; code=$?
[[ $code -eq 2 ]] && grep -q "unknown family" "$work/err.txt" || fail "family check of an unknown family: exit $code"

if [[ $failures -ne 0 ]]; then
  echo "$failures failure(s)"
  exit 1
fi
echo "family new + check: all good"
