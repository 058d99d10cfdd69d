#!/usr/bin/env bash
# resume_bad_inputs.sh GALAPAGOS SOURCE_DIR RECORDING: every kind of results file that
# cannot be resumed or replayed (missing, truncated, not HDF5, without a checkpoint, from another
# galapagos version or checkpoint format, with a stored config that no longer parses, with a
# checkpoint that disagrees with its tables or holds no integer where one belongs, a vanished replay recording, the wrong number of
# ranks) gives one line on stderr naming the file and the problem, exit code 2, and leaves the
# file byte for byte as it was, with no working copy beside it. A finished run answers exit 0.
set -u
galapagos=$1 src=$2 recording=$3
python=/usr/bin/python3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0

# variant NAME PYTHON: a copy of the recording, marked unfinished (so it is resumable), then
# changed by PYTHON (h5py, the file open as f).
variant() {
  cp "$recording" "$work/$1.h5"
  "$python" - "$work/$1.h5" <<EOF
import sys, h5py
with h5py.File(sys.argv[1], "r+") as f:
    f.attrs["finished"] = "false"
    $2
EOF
  echo "$work/$1.h5"
}

# expect NAME CODE PATTERN FILE COMMAND...: runs COMMAND, expects exit CODE, one stderr line
# matching PATTERN (none when CODE is 0), FILE unchanged and nothing written beside it.
expect() {
  local name=$1 code=$2 pattern=$3 file=$4
  shift 4
  local before=missing after=missing
  [[ -e $file ]] && before=$(sha256sum "$file" | cut -d' ' -f1)
  "$@" >"$work/stdout" 2>"$work/stderr"
  local got=$?
  [[ -e $file ]] && after=$(sha256sum "$file" | cut -d' ' -f1)
  local err
  err=$(cat "$work/stderr")
  if [[ $got -ne $code ]]; then
    echo "FAIL $name: exit code $got, expected $code (stderr: $err)"; failures=$((failures + 1)); return
  fi
  if [[ $code -ne 0 ]]; then
    if ! grep -qE -- "$pattern" "$work/stderr"; then
      echo "FAIL $name: stderr does not match '$pattern': $err"; failures=$((failures + 1)); return
    fi
    if [[ $(wc -l <"$work/stderr") -ne 1 ]]; then
      echo "FAIL $name: expected one line on stderr, got: $err"; failures=$((failures + 1)); return
    fi
  elif ! grep -qE -- "$pattern" "$work/stdout"; then
    echo "FAIL $name: stdout does not match '$pattern': $(cat "$work/stdout")"; failures=$((failures + 1)); return
  fi
  if [[ $before != "$after" ]]; then
    echo "FAIL $name: $file was changed"; failures=$((failures + 1)); return
  fi
  for leftover in "$file.partial" "$file.tmp"; do
    if [[ -e $leftover ]]; then
      echo "FAIL $name: $leftover was written"; failures=$((failures + 1)); return
    fi
  done
  echo "ok   $name: ${err:-$(head -1 "$work/stdout")}"
}

expect missing_file 2 "nope\.h5: no such file" "$work/nope.h5" "$galapagos" resume "$work/nope.h5"

head -c 20000 "$recording" >"$work/truncated.h5"
expect truncated 2 "truncated\.h5: not a readable HDF5 file" "$work/truncated.h5" "$galapagos" resume "$work/truncated.h5"

printf 'not an HDF5 file\n' >"$work/text.h5"
expect not_hdf5 2 "text\.h5: not a readable HDF5 file" "$work/text.h5" "$galapagos" resume "$work/text.h5"

f=$(variant no_checkpoint 'del f["checkpoint"]')
expect no_checkpoint 2 "no_checkpoint\.h5: no checkpoint \(/checkpoint is missing, or the file is damaged\): the run cannot be resumed from this file; keep it" "$f" "$galapagos" resume "$f"

f=$(variant other_version 'f.attrs["galapagos_version"] = "0.0.1"')
expect other_version 2 "other_version\.h5: written by galapagos 0\.0\.1, this is galapagos" "$f" "$galapagos" resume "$f"

f=$(variant other_format 'f["checkpoint"].attrs["format_version"] = 99.0')
expect other_format 2 "other_format\.h5: checkpoint format 99, this galapagos reads format 1" "$f" "$galapagos" resume "$f"

f=$(variant stale_config 'f.attrs["config_toml"] = f.attrs["config_toml"].replace("[search]", "[search]\nbogus = 1")')
expect stale_config 2 "stale_config\.h5 \(its stored config\): key 'search\.bogus': unknown key" "$f" "$galapagos" resume "$f"

f=$(variant inconsistent 'f["checkpoint/island_0"].attrs["evaluated"] = 999.0')
expect inconsistent 2 "inconsistent\.h5: the checkpoint of island 0 does not match /candidates" "$f" "$galapagos" resume "$f"

f=$(variant bad_seed 'f["checkpoint"].attrs["seed"] = "forty-two"')
expect bad_seed 2 "bad_seed\.h5: attribute 'seed' of /checkpoint is not an integer \(text 'forty-two'\)" "$f" "$galapagos" resume "$f"

f=$(variant lost_recording 'f["checkpoint"].attrs["replay"] = "/nonexistent/recording.h5"')
expect lost_recording 2 "/nonexistent/recording\.h5: no such file \(the replay recording of .*lost_recording\.h5\)" "$f" \
  "$galapagos" resume "$f"

f=$(variant two_islands 'pass')
expect wrong_ranks 2 "two_islands\.h5: the run has 2 islands: resume it with 2 MPI ranks \(this job has 1\)" "$f" \
  "$galapagos" resume "$f"

cp "$recording" "$work/finished.h5"
expect finished 0 "finished\.h5: the run is finished; nothing to resume" "$work/finished.h5" "$galapagos" resume "$work/finished.h5"

config="$src/configs/stencil3d7-cpu-ci.toml"
expect replay_missing 2 "nope\.h5: no such file" "$work/replayed.h5" "$galapagos" run "$config" --out "$work/replayed.h5" \
  --replay "$work/nope.h5"
expect replay_truncated 2 "truncated\.h5: not a readable HDF5 file" "$work/replayed.h5" "$galapagos" run "$config" \
  --out "$work/replayed.h5" --replay "$work/truncated.h5"
expect replay_delay_alone 2 "--replay-delay needs --replay" "$work/replayed.h5" "$galapagos" run "$config" \
  --out "$work/replayed.h5" --replay-delay 1

if [[ $failures -ne 0 ]]; then
  echo "$failures resume/replay bad-input checks failed"
  exit 1
fi
echo "all resume/replay bad-input checks passed"
