#!/usr/bin/env bash
# slow_island.sh GALAPAGOS MPIEXEC SOURCE_DIR WORK: migration never waits for a slow island.
# Three islands on the fully connected topology search for real (measured, not replayed); the
# third compiles through a compiler that sleeps SLOW_S seconds per call, as an island whose
# builds are slow would. The two others must finish their whole budget while the slow island is
# still searching (nobody waits for its migrants), and the slow island must still receive theirs.
set -euo pipefail
galapagos=$1 mpiexec=$2 src=$3 work=$4
# Builds (calls that write an output, -o) of 30 s each; the compiler's other calls (its version,
# the preprocessor) answer at once, within the 30 s the orchestrator gives a version query. Half the
# slow island's budget of 6 is migrants, which the shared cache already holds (no build), so it
# sleeps through 3 builds: over 90 s, clear of what the two others take even when the node is busy
# with other work (seen: 37.4 s with two spinning processes beside the suite, where 15 s for every
# call left the slow island at 53.7 s, under the 0.6 margin; 61 s with 8 s and a loaded node).
slow_s=${SLOW_S:-30}
rm -rf "$work" && mkdir -p "$work/slow-bin"
cat >"$work/slow-bin/g++" <<WRAP
#!/bin/sh
case " \$* " in *" -o "*) sleep $slow_s ;; esac
exec /usr/bin/g++ "\$@"
WRAP
chmod +x "$work/slow-bin/g++"
# The CI config on the full topology, with a build cache of its own (so the slow island's
# candidates are really compiled) and no node lock (so the islands do not take turns).
sed -e 's/^topology = .*/topology = "full"/' -e 's/^interval = .*/interval = 1/' "$src/configs/stencil3d7-cpu-ci.toml" >"$work/run.toml"
printf 'cache_dir = "%s"\nnode_lock = ""\n' "$work/cache" >>"$work/run.toml"
mpi=("$mpiexec" --oversubscribe --allow-run-as-root --bind-to none)
"${mpi[@]}" -n 2 "$galapagos" run "$work/run.toml" --out "$work/slow.h5" --budget 6 : \
  -n 1 env PATH="$work/slow-bin:$PATH" "$galapagos" run "$work/run.toml" --out "$work/slow.h5" --budget 6 >"$work/log" 2>&1 ||
  { tail -30 "$work/log"; echo "FAIL: the search failed"; exit 1; }
/usr/bin/python3 - "$work/slow.h5" "$slow_s" <<'PY'
import sys
import h5py
path, slow_s = sys.argv[1], float(sys.argv[2])
with h5py.File(path, "r") as f:
    last = {}
    for g in f["generations"][:]:
        last[int(g["island"])] = max(last.get(int(g["island"]), 0.0), float(g["wall_time_s"]))
    origins = [(int(c["island"]), c["origin"].decode()) for c in f["candidates"][:]]
    evaluated = {i: sum(1 for isl, _ in origins if isl == i) for i in range(3)}
fast, slow = max(last[0], last[1]), last[2]
print(f"search wall time: islands 0 and 1 {last[0]:.1f} s and {last[1]:.1f} s, slow island 2 {slow:.1f} s; "
      f"evaluated {evaluated}")
failures = []
if any(evaluated[i] != 6 for i in range(3)):
    failures.append(f"every island evaluates its budget of 6: {evaluated}")
if slow < 3 * slow_s:
    failures.append(f"island 2 was not slowed ({slow:.1f} s)")
if not fast < 0.6 * slow:
    failures.append(f"the fast islands took {fast:.1f} s against the slow island's {slow:.1f} s: they waited for it")
if not any(isl == 2 and o == "migrant" for isl, o in origins):
    failures.append("the slow island received no migrants")
for f in failures:
    print("FAIL:", f)
sys.exit(1 if failures else 0)
PY
