#!/usr/bin/env python3
"""output_safety.py GALAPAGOS CONFIG RECORDING WORKDIR: galapagos never destroys what it did not write.

- `run --out` refuses an existing file (a user's file, another run's results, its own --replay
  recording, /dev/null, a symbolic link), a folder, a path ending in '/', an empty path, a path
  whose folder is missing or read-only: exit 2, one line naming the path, the file untouched,
  nothing (.partial, .tmp, .lock) left beside it; --force replaces a galapagos results file only.
- `report --out` and `export --out` replace only a folder galapagos made (its .galapagos-output
  marker lists every file in it) or an empty one; a folder with a user's file in it, a folder
  without the marker, a file, a missing parent are refused with exit 2 and one line.
Every case runs the real binary on a replayed run (no kernel is timed)."""
import hashlib
import os
import shutil
import subprocess
import sys

galapagos, config, recording, work = sys.argv[1:5]
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
failures = []


def digest(path):
    if os.path.isdir(path):
        return {n: digest(os.path.join(path, n)) for n in sorted(os.listdir(path))}
    if not os.path.lexists(path):
        return None
    if os.path.islink(path):
        return "link:" + os.readlink(path)
    if not os.path.isfile(path):
        return "special"
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def expect(name, args, code, pattern, keep=(), leftovers=()):
    """Runs galapagos ARGS: exit CODE; when CODE is 2, one stderr line containing PATTERN; every
    path in KEEP byte for byte as before; no path of LEFTOVERS exists afterwards."""
    before = {p: digest(p) for p in keep}
    r = subprocess.run([galapagos, *args], capture_output=True, text=True, timeout=300)
    err = r.stderr.strip()
    problems = []
    if r.returncode != code:
        problems.append(f"exit {r.returncode}, expected {code}: {err[-400:]}")
    if code == 2 and (pattern not in err or len(err.splitlines()) != 1):
        problems.append(f"stderr is not one line with {pattern!r}: {err[-400:]!r}")
    for p in keep:
        if digest(p) != before[p]:
            problems.append(f"{p} was changed")
    for p in leftovers:
        if os.path.lexists(p):
            problems.append(f"{p} was left behind")
    if problems:
        failures.append(f"{name}: " + "; ".join(problems))
        print(f"FAIL {name}: {problems}")
    else:
        print(f"ok   {name}: {err.splitlines()[0] if err else 'exit ' + str(code)}")
    return r


def run_args(out, *extra):
    return ["run", config, "--replay", recording, "--budget", "4", "--quiet", "--out", out, *extra]


def beside(path):
    return [path + ".partial", path + ".tmp", path + ".lock"]


# --- run --out ---------------------------------------------------------------------------------
first = os.path.join(work, "first.h5")
expect("run_new_file", run_args(first), 0, "", leftovers=beside(first))
expect("run_existing_results", run_args(first), 2, f"{first}: exists (the results of an earlier run): continue that run "
       f"with `galapagos resume {first}`, replace the file with --force", keep=[first], leftovers=beside(first))
results = os.path.join(work, "results.h5")  # what report and export read below
shutil.copy(recording, results)  # a finished run with correct candidates
user = os.path.join(work, "notes.h5")
with open(user, "w") as f:
    f.write("a user's notes, not results\n")
expect("run_user_file", run_args(user), 2, f"{user}: exists and is not a galapagos results file", keep=[user],
       leftovers=beside(user))
expect("run_user_file_force", run_args(user, "--force"), 2, f"{user}: exists and is not a galapagos results file",
       keep=[user], leftovers=beside(user))
copy = os.path.join(work, "recording.h5")
shutil.copy(recording, copy)
expect("run_own_replay_recording", ["run", config, "--replay", copy, "--budget", "4", "--out", copy, "--force"], 2,
       f"{copy}: is the --replay recording this run reads", keep=[copy], leftovers=beside(copy))
expect("run_device", run_args("/dev/null", "--force"), 2, "/dev/null: exists and is not a regular file",
       leftovers=beside("/dev/null"))
link = os.path.join(work, "link.h5")
os.symlink(first, link)
expect("run_symlink_force", run_args(link, "--force"), 2, f"{link}: is a symbolic link", keep=[first, link],
       leftovers=beside(link))
expect("run_folder", run_args(work), 2, f"{work}: is a folder, not a results file", keep=[work])
expect("run_trailing_slash", run_args(work + "/x.h5/"), 2, f"{work}/x.h5/: ends in '/'", keep=[work])
expect("run_empty", run_args(""), 2, "--out '': an empty path", keep=[work])
missing = os.path.join(work, "no-such-folder", "x.h5")
expect("run_missing_folder", run_args(missing), 2, f"{missing}: its folder {os.path.dirname(missing)} does not exist",
       keep=[work])
readonly = os.path.join(work, "readonly")
os.makedirs(readonly)
os.chmod(readonly, 0o555)
if os.geteuid() == 0 and shutil.which("setpriv"):  # root writes anywhere: ask as nobody
    r = subprocess.run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "true"], capture_output=True)
    prefix = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"] if r.returncode == 0 else None
elif os.geteuid() != 0:
    prefix = []
else:
    prefix = None
if prefix is not None and os.access(galapagos, os.X_OK):
    out = os.path.join(readonly, "x.h5")
    before = digest(readonly)
    r = subprocess.run(prefix + [galapagos, *run_args(out)], capture_output=True, text=True, timeout=120)
    if r.returncode == 2 and f"{out}: cannot write in its folder {readonly}" in r.stderr and digest(readonly) == before:
        print(f"ok   run_readonly_folder: {r.stderr.strip()}")
    elif r.returncode == 2 and "Permission denied" in r.stderr and "config" in r.stderr.lower():
        print("skip run_readonly_folder: the unprivileged user cannot read the build tree")
    else:
        failures.append(f"run_readonly_folder: exit {r.returncode}: {r.stderr.strip()[-300:]}")
        print(f"FAIL run_readonly_folder: exit {r.returncode}: {r.stderr.strip()[-300:]}")
else:
    print("skip run_readonly_folder: running as root without setpriv")
before = digest(first)
expect("run_force_replaces_results", run_args(first, "--force", "--seed", "7"), 0, "", leftovers=beside(first))
if digest(first) == before:
    failures.append("run_force_replaces_results: the file is the same as before")

# --- report --out and export --out ---------------------------------------------------------------
report = os.path.join(work, "report")
expect("report_new_folder", ["report", results, "--out", report], 0, "")
marker = os.path.join(report, ".galapagos-output")
if not os.path.isfile(marker) or "index.html" not in open(marker).read():
    failures.append("report_new_folder: no .galapagos-output marker listing index.html")
expect("report_replaces_its_own_folder", ["report", results, "--out", report + "/"], 0, "")
mine = os.path.join(report, "my-notes.txt")
with open(mine, "w") as f:
    f.write("keep me\n")
expect("report_folder_with_user_file", ["report", results, "--out", report], 2,
       f"{report}: holds 'my-notes.txt', which galapagos did not write there", keep=[report])
expect("export_folder_with_user_file", ["export", results, "--out", report], 2,
       f"{report}: holds 'my-notes.txt', which galapagos did not write there", keep=[report])
users = os.path.join(work, "users-folder")
os.makedirs(users)
with open(os.path.join(users, "thesis.tex"), "w") as f:
    f.write("\\documentclass{article}\n")
for command in ("report", "export"):
    expect(f"{command}_unmarked_folder", [command, results, "--out", users], 2,
           f"{users}: is a folder galapagos did not make (no .galapagos-output in it)", keep=[users])
    expect(f"{command}_out_is_a_file", [command, results, "--out", user], 2, f"{user}: exists and is not a folder", keep=[user])
    expect(f"{command}_missing_parent", [command, results, "--out", missing], 2,
           f"{missing}: its folder {os.path.dirname(missing)} does not exist", keep=[work])
# The default folder (FILE without .h5, plus -report / -export-<id>) follows the same rule.
default_report = os.path.splitext(results)[0] + "-report"
os.makedirs(default_report)
with open(os.path.join(default_report, "figure.pdf"), "w") as f:
    f.write("%PDF a user's figure\n")
expect("report_default_folder_taken", ["report", results], 2,
       f"{default_report}: is a folder galapagos did not make", keep=[default_report])
empty = os.path.join(work, "empty")
os.makedirs(empty)
expect("report_empty_folder", ["report", results, "--out", empty], 0, "")

if failures:
    print(f"{len(failures)} failure(s)")
    sys.exit(1)
print("every output path is checked; nothing galapagos did not write was touched")
