#!/usr/bin/env bash
# resume_measured.sh GALAPAGOS MPIEXEC SOURCE_DIR WORKDIR: a real two-island search (kernels
# compiled, checked and timed) is stopped with SIGUSR1 to mpirun, which forwards it to every rank,
# once generation 1 is checkpointed; it must exit 0 with the checkpoint written. `galapagos resume`
# then finishes it: the baselines are measured again and recorded as a second session (the
# machine's ceilings are kept: the resume runs on the node the run started on), and the
# file passes every check a finished search must pass (check_search_results.py), with no
# candidate id twice and no genome evaluated twice on one island.
set -u
galapagos=$1 mpiexec=$2 src=$3 work=$4
python=/usr/bin/python3
mkdir -p "$work"
out="$work/measured.h5"
rm -f "$out" "$out.partial" "$out.tmp"
mpi=("$mpiexec" -n 2 --oversubscribe --allow-run-as-root --bind-to none)
fail() { echo "FAIL: $*"; exit 1; }

"${mpi[@]}" "$galapagos" run "$src/configs/stencil3d7-cpu-ci.toml" --out "$out" --budget 9 --verbose >"$work/run.log" 2>&1 &
launcher=$!
for _ in $(seq 1 3000); do
  grep -q "^checkpoint written: generation 1," "$work/run.log" && break
  kill -0 $launcher 2>/dev/null || break
  sleep 0.1
done
grep -q "^checkpoint written: generation 1," "$work/run.log" || fail "generation 1 was never checkpointed: $(cat "$work/run.log")"
kill -USR1 $launcher
wait $launcher
code=$?
cat "$work/run.log"
[[ $code -eq 0 ]] || fail "the stopped run exited with $code"
grep -q "^stopped: every island is checkpointed" "$work/run.log" || fail "the run did not stop"
[[ -e "$out.partial" ]] && fail "the working copy was left behind by a clean stop"

"$python" - "$out" <<'PY' || exit 1
import sys, h5py
with h5py.File(sys.argv[1], "r") as f:
    assert f.attrs["finished"].item() is False, "a stopped run is marked finished"
    assert "winner" not in f, "a stopped run has a winner"
    gens = [int(f["checkpoint"][f"island_{i}"].attrs["generation"]) for i in range(2)]
    assert min(gens) >= 1 and min(gens) < 3, f"checkpoint generations {gens}"
    print("stopped at generations", gens)
PY

"${mpi[@]}" "$galapagos" resume "$out" >"$work/resume.log" 2>&1
code=$?
cat "$work/resume.log"
[[ $code -eq 0 ]] || fail "resume exited with $code"
grep -q "^resuming $out: session 1" "$work/resume.log" || fail "no 'resuming' line"
grep -q "^start-up: .*(machine probe kept " "$work/resume.log" || fail "the resume measured the machine again on the node it started on"
"$python" "$src/tests/integration/check_search_results.py" "$out" 2 || fail "the resumed run's results do not check"
"$python" - "$out" <<'PY' || exit 1
import sys, h5py
with h5py.File(sys.argv[1], "r") as f:
    assert f.attrs["finished"].item() is True, "not finished"
    s = f["sessions"]
    assert sorted(s) == ["0", "1"] and s["0"].attrs["kind"] == "run" and s["1"].attrs["kind"] == "resume", list(s)
    assert s["1"].attrs["baselines_first_row"] == 1 and s["1"].attrs["baselines_rows"] == 1, dict(s["1"].attrs)
    # The resume ran on the node the run started on: it keeps the run's ceilings, measured once.
    probes = [s[k].attrs["machine_probe"] for k in ("0", "1")]
    assert probes == ["measured", "kept"], f"machine_probe of the sessions: {probes}"
    assert all(0 < float(s[k].attrs["startup_s"]) < 300 for k in ("0", "1")), [s[k].attrs["startup_s"] for k in ("0", "1")]
    b = f["baselines"][:]
    assert len(b) == 2 and all(x["status"] == b"ok" for x in b), "the baselines were not measured again on resume"
    c = f["candidates"][:]
    for i in range(2):
        assert (c["island"] == i).sum() == 9, f"island {i} evaluated {(c['island'] == i).sum()} candidates, budget 9"
    print(f"resumed run ok: {len(c)} candidates, baselines {[round(float(x['time_median_s']) * 1e6) for x in b]} us")
PY
echo "measured stop/resume ok"
