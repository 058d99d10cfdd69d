#!/usr/bin/python3
"""stop_rules.py GALAPAGOS CONFIG WORKDIR [MPIEXEC RECORDING]: a CI-sized search (one island, measured) ended by each
stopping rule, and a finished search continued with more budget.

1. [run] target_roofline = 0.01 (a config key): every correct candidate is above 1% of the
   roofline, so the search ends after its first generation, finished, with a winner;
   /sessions/0 stop_reason = "target_roofline".
2. resume --budget N of that finished file: more evaluations, finished again, the file still
   passes check_search_results.py; /sessions/1 kind "extend", stop_reason "budget".
3. --stagnant-generations 1 with a large budget: ended by "stagnation", finished, fewer
   evaluations than the budget.
4. --time-limit 40 with a large budget: ended by "time_limit", finished, fewer evaluations
   than the budget.
5. SLURM_JOB_END_TIME 20 s ahead (what Slurm exposes to a batch job): the search stops in
   time (job_end, less the grace period and a minute, at most half the time left: here 10 s in),
   checkpointed, not finished, exit 0; resume (outside the job) completes it. With a RECORDING its
   measurements are replayed at 2 s each, so that a quiet node cannot finish all 9 (cached builds,
   measured in under a second each) before the stop.
6. With MPIEXEC and a two-island RECORDING: a replayed two-island run whose islands reach the
   stagnation rule at their own generations: the rule one island reached stops both, the run
   finishes with /sessions/0 stop_reason "stagnation" and fewer evaluations than the budget."""
import os
import subprocess
import sys
import time

import h5py

galapagos, config, work = sys.argv[1:4]
mpiexec, recording = (sys.argv[4:6] + [None, None])[:2]
here = os.path.dirname(os.path.abspath(__file__))
os.makedirs(work, exist_ok=True)
errors = []


def check(cond, what):
    if not cond:
        print("FAIL:", what, flush=True)
        errors.append(what)


def run(args, env=None, timeout=600):
    p = subprocess.run([galapagos] + args, capture_output=True, text=True, timeout=timeout,
                       env=dict(os.environ, **(env or {})))
    print(f"$ galapagos {' '.join(args)}: exit {p.returncode}", flush=True)
    if p.returncode != 0:
        print(p.stdout[-3000:], p.stderr[-3000:], flush=True)
    return p


def sessions(path):
    with h5py.File(path, "r") as f:
        out = [dict(f["sessions"][k].attrs) for k in sorted(f["sessions"], key=int)]
        return out, bool(f.attrs["finished"]), len(f["candidates"])


def text(v):
    return v.decode() if isinstance(v, bytes) else str(v)


def valid(path):
    p = subprocess.run(["/usr/bin/python3", os.path.join(here, "check_search_results.py"), path, "1"],
                       capture_output=True, text=True)
    check(p.returncode == 0, f"{path}: check_search_results.py: {p.stdout[-2000:]}{p.stderr[-2000:]}")


def fresh(name):
    path = os.path.join(work, name)
    for p in (path, path + ".lock"):
        if os.path.exists(p):
            os.remove(p)
    return path


# 1. The target fraction of the roofline, from the config.
with open(config) as f:
    body = f.read()
target_config = os.path.join(work, "target.toml")
with open(target_config, "w") as f:
    f.write(body.replace("[run]\n", "[run]\ntarget_roofline = 0.01\n", 1).replace("budget = 6", "budget = 9"))
target = fresh("target.h5")
p = run(["run", target_config, "--out", target])
check(p.returncode == 0, "target_roofline run: exit 0")
s, finished, rows = sessions(target)
check(text(s[0].get("stop_reason")) == "target_roofline", f"target run: stop_reason {s[0].get('stop_reason')}")
check(finished, "target run: finished")
check(rows == 3, f"target run: one generation of 3 evaluated, got {rows}")
check(abs(float(s[0]["target_roofline"]) - 0.01) < 1e-12, "target run: target_roofline recorded in /sessions/0")
check("search ended early" in p.stdout, "target run: says it ended early")
valid(target)

# 2. A finished search continued with more budget.
p = run(["resume", target, "--quiet"])
check(p.returncode == 0 and "resume --budget" in p.stdout, "resume of a finished run without --budget: nothing to do, says how")
p = run(["resume", target, "--budget", "2"])
check(p.returncode == 2 and "less than the run's budget" in p.stderr, "resume --budget below the run's budget: refused")
p = run(["resume", target, "--budget", "12", "--target-roofline", "0"])
check(p.returncode == 0, "resume --budget 12: exit 0")
s, finished, rows = sessions(target)
check(len(s) == 2 and text(s[1].get("kind")) == "extend", f"extended run: /sessions/1 kind {s[-1].get('kind')}")
check(text(s[-1].get("stop_reason")) == "budget", f"extended run: stop_reason {s[-1].get('stop_reason')}")
check(finished, "extended run: finished again")
check(rows == 12, f"extended run: 12 evaluations in all, got {rows}")
with h5py.File(target, "r") as f:
    check(int(f["checkpoint"].attrs["budget"]) == 12, "extended run: /checkpoint budget 12")
valid(target)

# 3. Generations without a better best.
stagnant = fresh("stagnant.h5")
p = run(["run", config, "--out", stagnant, "--budget", "60", "--stagnant-generations", "1"])
check(p.returncode == 0, "stagnation run: exit 0")
s, finished, rows = sessions(stagnant)
check(text(s[0].get("stop_reason")) == "stagnation", f"stagnation run: stop_reason {s[0].get('stop_reason')}")
check(finished and rows < 60, f"stagnation run: finished before its budget ({rows} of 60)")
valid(stagnant)

# 4. The wall-clock limit of the session (the grace period, 25 s, is left for the generation in flight).
limited = fresh("limited.h5")
t0 = time.monotonic()
p = run(["run", config, "--out", limited, "--budget", "60", "--time-limit", "40"])
check(p.returncode == 0, "time-limited run: exit 0")
s, finished, rows = sessions(limited)
check(text(s[0].get("stop_reason")) == "time_limit", f"time-limited run: stop_reason {s[0].get('stop_reason')}")
check(finished and rows < 60, f"time-limited run: finished before its budget ({rows} of 60)")
check(float(s[0]["time_limit_s"]) == 40, "time-limited run: time_limit_s recorded")
print(f"time-limited run: {time.monotonic() - t0:.1f} s in all with --time-limit 40", flush=True)
valid(limited)

# 5. The end of the Slurm job: checkpointed for resume, not finished.
job = fresh("job.h5")
job_args = ["run", config, "--out", job, "--budget", "9"]
if recording:  # measurements served from the recording, 2 s each: 9 of them outlast the stop 10 s in
    job_args += ["--replay", recording, "--replay-delay", "2"]
p = run(job_args, env={"SLURM_JOB_END_TIME": str(int(time.time()) + 20)})
check(p.returncode == 0 and "galapagos resume" in p.stdout, "run at a job's end: exit 0, says how to continue")
s, finished, rows = sessions(job)
check(text(s[0].get("stop_reason")) == "job_end", f"job-end run: stop_reason {s[0].get('stop_reason')}")
check(not finished and rows <= 9, f"job-end run: stopped before its final comparison, not finished ({rows} of 9 evaluated)")
check(float(s[0]["job_time_left_s"]) <= 90, "job-end run: the job's time left recorded")
p = run(["resume", job])
check(p.returncode == 0, "resume after the job's end: exit 0")
s, finished, rows = sessions(job)
check(finished and rows == 9, f"resumed after the job's end: finished with 9 evaluations, got {rows}")
check(text(s[-1].get("kind")) == "resume", f"resumed: kind {s[-1].get('kind')}")
valid(job)

# 6. Two islands under MPI: one island's rule reaches the other.
if mpiexec:
    two = fresh("two_islands.h5")
    p = subprocess.run([mpiexec, "-n", "2", "--oversubscribe", "--allow-run-as-root", "--bind-to", "none", galapagos, "run",
                        config, "--replay", recording, "--out", two, "--budget", "30", "--stagnant-generations", "2"],
                       capture_output=True, text=True, timeout=300)
    check(p.returncode == 0, f"two-island stagnation run: exit {p.returncode}: {p.stderr[-2000:]}")
    s, finished, rows = sessions(two)
    check(text(s[0].get("stop_reason")) == "stagnation", f"two islands: stop_reason {s[0].get('stop_reason')}")
    check(finished and rows < 60, f"two islands: finished before the budget ({rows} of 60)")
    with h5py.File(two, "r") as f:
        evaluated = [int(f["checkpoint"][f"island_{i}"].attrs["evaluated"]) for i in range(2)]
    check(all(e < 30 for e in evaluated), f"two islands: both stopped before their budget, evaluated {evaluated}")

if errors:
    print(f"stop_rules: {len(errors)} failures")
    sys.exit(1)
print("stop_rules: every rule ended its search and was recorded; the finished search was extended")
