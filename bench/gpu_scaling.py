#!/usr/bin/python3
"""gpu_scaling.py: weak scaling of the GPU archipelago, one island per GPU of one host.

  gpu_scaling.py run [--gpus 1,2] [--budget 24] [--out DIR] [--deadline EPOCH] [--ref-seeds 2,3] ...
      Runs the same search (configs/stencil3d7-cuda-scaling.toml: one family, a fixed budget per
      island) under mpirun with 1, 2, ... islands, one per GPU (each rank takes the GPU of its
      node-local rank), one run after the other, into DIR/scaling-<n>gpu.h5 (+ .log), each with
      its own empty build cache. Then, while time is left (--deadline, --ref-s), reference runs:
      one island each, one per GPU side by side, other seeds, a large budget, stopped cleanly
      (SIGUSR1 to the ranks) in time, into DIR/ref-seed<s>.h5. What each run took: DIR/runs.json.
      NVLink multicast stays off (NCCL_NVLS_ENABLE=0); MPI between islands uses host memory only
      (ob1 over the self and vader transports).

  gpu_scaling.py analyze DIR [DIR ...] [--within 0.02] [--reference all|refs]
      Reads the results files (and the logs' "island N: orchestration ..." lines) and prints, per
      island count: evaluations per second, the weak-scaling efficiency (evaluations per second
      per GPU against the 1-GPU run), the search time until the best is within 2% of the
      reference best, and the share of the islands' search time spent in migration, HDF5 and MPI.
      The reference best is the best median of every ok candidate of every run in the DIRs
      (--reference all, default) or of the reference runs alone (--reference refs).

Evaluations per second = evaluations of all islands / the longest island's search time (the last
/generations.wall_time_s: from the island's start of searching to its last generation; the start-up
before it, device probe and baselines, and the final comparison after it are not counted; the
whole job's wall time is given beside it). Time to within 2%: at generation ends, read off
/generations (exact), and per candidate, estimated by spreading each generation's wall time over
its candidates in proportion to their /candidates.eval_time_s.
"""
import argparse
import glob
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ORCH = re.compile(r"island (\d+): orchestration ([\d.]+) s of ([\d.]+) s \(([\d.]+)%\): MPI ([\d.]+) s, "
                  r"migration ([\d.]+) s, HDF5 ([\d.]+) s, search logic ([\d.]+) s; evaluating ([\d.]+) s")


# ----------------------------------------------------------------------------------------- run
def gpu_count():
    try:
        r = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True, timeout=30)
        return sum(1 for line in r.stdout.splitlines() if line.startswith("GPU "))
    except (OSError, subprocess.SubprocessError):
        return 0


def mpirun_cmd(n, transport):
    mpirun = shutil.which("mpirun") or shutil.which("mpiexec")
    if not mpirun:
        sys.exit("gpu_scaling: no mpirun on PATH")
    cmd = [mpirun, "-np", str(n), "--bind-to", "none"] + transport.split()
    if os.geteuid() == 0:
        cmd.append("--allow-run-as-root")
    for var in ("NCCL_NVLS_ENABLE", "GALAPAGOS_CACHE", "LD_LIBRARY_PATH", "PATH"):
        cmd += ["-x", var]
    return cmd


def launch(cmd, log, cache):
    env = dict(os.environ, NCCL_NVLS_ENABLE="0", GALAPAGOS_CACHE=cache)
    shutil.rmtree(cache, ignore_errors=True)
    os.makedirs(cache)
    f = open(log, "w")
    f.write("$ " + " ".join(cmd) + "\n")
    f.flush()
    return subprocess.Popen(cmd, stdout=f, stderr=subprocess.STDOUT, env=env, start_new_session=True), f


def stop(p):
    """SIGUSR1 to the job's ranks (the galapagos children of mpirun), which checkpoint and end within
    grace_s; to mpirun itself only where none is found (on the H200 machine a SIGUSR1 sent to
    mpirun did not stop its ranks)."""
    ranks = []
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open(f"/proc/{d}/stat") as f:
                    stat = f.read()
            except OSError:
                continue
            comm, rest = stat[stat.index("(") + 1:stat.rindex(")")], stat[stat.rindex(")") + 2:].split()
            if int(rest[1]) == p.pid and comm.startswith("galapagos"):
                ranks.append(int(d))
    for pid in ranks or [p.pid]:
        try:
            os.kill(pid, signal.SIGUSR1)
        except ProcessLookupError:
            pass


def supervise(procs, stop_at, kill_at):
    """Waits for every process; at stop_at stops those still running (stop()), at kill_at kills what
    is left."""
    stopped = set()
    while any(p.poll() is None for p in procs):
        now = time.time()
        for i, p in enumerate(procs):
            if p.poll() is not None:
                continue
            if stop_at is not None and now >= stop_at and i not in stopped:
                stop(p)
                stopped.add(i)
            if kill_at is not None and now >= kill_at:
                os.killpg(p.pid, signal.SIGKILL)
        time.sleep(0.5)
    return stopped


def cmd_run(a):
    os.makedirs(a.out, exist_ok=True)
    galapagos = a.galapagos or shutil.which("galapagos")
    if not galapagos:
        sys.exit("gpu_scaling: galapagos is not on PATH (give --galapagos)")
    have = a.gpus_present if a.gpus_present is not None else gpu_count()
    print(f"gpu_scaling: {have} GPU(s) seen by nvidia-smi", flush=True)
    runs = []
    record = os.path.join(a.out, "runs.json")

    def save():
        with open(record, "w") as f:
            json.dump({"budget": a.budget, "config": a.config, "runs": runs}, f, indent=1)

    for n in [int(x) for x in a.gpus.split(",")]:
        if n > have:
            print(f"gpu_scaling: {n} GPUs asked, {have} present: skipped", flush=True)
            runs.append({"kind": "scaling", "gpus": n, "skipped": f"{have} GPUs present"})
            save()
            continue
        if a.deadline and time.time() > a.deadline - a.min_run_s:
            print(f"gpu_scaling: no time left for the {n}-GPU run: skipped", flush=True)
            runs.append({"kind": "scaling", "gpus": n, "skipped": "no time left"})
            save()
            continue
        h5 = os.path.join(a.out, f"scaling-{n}gpu.h5")
        for f in glob.glob(h5 + "*"):
            os.remove(f)
        cmd = mpirun_cmd(n, a.mpi_transport) + [galapagos, "run", a.config, "--out", h5, "--budget", str(a.budget)]
        t0 = time.time()
        p, f = launch(cmd, os.path.join(a.out, f"scaling-{n}gpu.log"), os.path.join(a.out, f"cache-{n}gpu"))
        stop_at = a.deadline - a.stop_margin_s if a.deadline else None
        stopped = supervise([p], stop_at, a.deadline + 20 if a.deadline else None)
        f.close()
        wall = time.time() - t0
        runs.append({"kind": "scaling", "gpus": n, "file": os.path.basename(h5), "cmd": " ".join(cmd), "rc": p.returncode,
                     "job_wall_s": round(wall, 2), "stopped": bool(stopped), "start": t0})
        save()
        print(f"gpu_scaling: {n} GPU(s): exit {p.returncode} after {wall:.1f} s{' (stopped at the deadline)' if stopped else ''}",
              flush=True)

    seeds = [int(x) for x in a.ref_seeds.split(",")] if a.ref_seeds else []
    left = (a.deadline - a.stop_margin_s - time.time()) if a.deadline else None
    if a.ref_s is not None:
        left = a.ref_s if left is None else min(left, a.ref_s)
    if seeds and have and (left is None or left >= a.ref_min_s):
        with open(a.config) as f:
            body = f.read()
        procs, logs = [], []
        t0 = time.time()
        for k, seed in enumerate(seeds[:have]):
            config = os.path.join(a.out, f"ref-seed{seed}.toml")
            text = body.replace("[eval]\n", f"[eval]\ndevice = {k % have}\n", 1)
            text = text.replace("[run]\n", f"[run]\ngrace_s = {a.ref_grace_s}\n", 1)
            with open(config, "w") as f:
                f.write(text)
            h5 = os.path.join(a.out, f"ref-seed{seed}.h5")
            for f in glob.glob(h5 + "*"):
                os.remove(f)
            cmd = mpirun_cmd(1, a.mpi_transport) + [galapagos, "run", config, "--out", h5, "--budget", str(a.ref_budget), "--seed", str(seed)]
            p, f = launch(cmd, os.path.join(a.out, f"ref-seed{seed}.log"), os.path.join(a.out, f"cache-ref{seed}"))
            procs.append(p)
            logs.append(f)
            runs.append({"kind": "reference", "gpus": 1, "device": k % have, "seed": seed, "file": os.path.basename(h5),
                         "cmd": " ".join(cmd), "start": t0})
        stop_at = t0 + left if left is not None else None
        kill_at = stop_at + a.ref_grace_s + 15 if stop_at is not None else None
        stopped = supervise(procs, stop_at, kill_at)
        for k, (p, f) in enumerate(zip(procs, logs)):
            f.close()
            r = runs[len(runs) - len(procs) + k]
            r.update({"rc": p.returncode, "job_wall_s": round(time.time() - t0, 2), "stopped": k in stopped})
        save()
        print(f"gpu_scaling: {len(procs)} reference run(s) side by side: exits {[p.returncode for p in procs]} after "
              f"{time.time() - t0:.1f} s", flush=True)
    elif seeds:
        print(f"gpu_scaling: no time left for reference runs ({left:.0f} s < {a.ref_min_s} s)" if left is not None
              else "gpu_scaling: no GPU for reference runs", flush=True)
    for n in [int(x) for x in a.gpus.split(",")]:
        shutil.rmtree(os.path.join(a.out, f"cache-{n}gpu"), ignore_errors=True)
    for seed in seeds:
        shutil.rmtree(os.path.join(a.out, f"cache-ref{seed}"), ignore_errors=True)
    save()


# ------------------------------------------------------------------------------------- analyze
def load(path):
    import h5py
    import numpy as np
    with h5py.File(path, "r") as f:
        gens = f["generations"][:]
        cands = f["candidates"][:]
        attrs = {k: (v.decode() if isinstance(v, bytes) else v) for k, v in f.attrs.items()}
    ok = np.array([s == b"ok" for s in cands["status"]], dtype=bool)
    return {"gens": gens, "cands": cands, "ok": ok, "attrs": attrs}


def orchestration(log):
    if not os.path.exists(log):
        return []
    with open(log, errors="replace") as f:
        text = f.read()
    return [dict(zip(("island", "orch", "search", "pct", "mpi", "migration", "hdf5", "logic", "evaluating"),
                     [int(m.group(1))] + [float(x) for x in m.groups()[1:]])) for m in ORCH.finditer(text)]


def candidate_times(r):
    """Each candidate's estimated end, in its island's search time: each generation's wall time
    (from the end of the last one) spread over its candidates by their eval_time_s, in id order."""
    import numpy as np
    gens, cands = r["gens"], r["cands"]
    ends = np.full(len(cands), np.nan)
    for isl in np.unique(cands["island"]):
        rows = sorted((int(g["generation"]), float(g["wall_time_s"])) for g in gens if g["island"] == isl)
        wall = dict(rows)
        prev = {gen: (rows[k - 1][1] if k else 0.0) for k, (gen, _) in enumerate(rows)}
        for g in np.unique(cands["generation"][cands["island"] == isl]):
            row = int(g) + 1  # candidates of generation g are counted in /generations row g+1
            if row not in wall:
                continue  # a generation dropped at a stop
            idx = np.where((cands["island"] == isl) & (cands["generation"] == g))[0]
            idx = idx[np.argsort(cands["id"][idx])]
            cum = np.cumsum(np.maximum(cands["eval_time_s"][idx], 0))
            span = wall[row] - prev[row]
            ends[idx] = prev[row] + span * (cum / cum[-1] if cum[-1] > 0 else np.ones(len(idx)))
    return ends


def time_to(r, target):
    import numpy as np
    g = r["gens"]
    hit = g["wall_time_s"][g["best_time_s"] <= target]
    exact = float(hit.min()) if len(hit) else None
    ends = candidate_times(r)
    sel = r["ok"] & (r["cands"]["time_median_s"] <= target) & np.isfinite(ends)
    est = float(ends[sel].min()) if sel.any() else None
    return exact, est


def fmt_s(x):
    return "not reached" if x is None else f"{x:.1f} s"


def cmd_analyze(a):
    import numpy as np
    runs_json, budget, scaling, refs = {}, None, [], []
    for d in a.dir:
        rp = os.path.join(d, "runs.json")
        if os.path.exists(rp):
            with open(rp) as f:
                meta = json.load(f)
            budget = budget or meta.get("budget")
            for r in meta["runs"]:
                if "file" in r:
                    runs_json[os.path.join(d, r["file"])] = r
        scaling += sorted(glob.glob(os.path.join(d, "scaling-*gpu.h5")),
                          key=lambda p: int(re.search(r"scaling-(\d+)gpu", p).group(1)))
        refs += sorted(glob.glob(os.path.join(d, "ref-*.h5")))
    if not scaling:
        sys.exit(f"gpu_scaling: no scaling-<n>gpu.h5 in {' '.join(a.dir)}")
    name = (lambda p: os.path.relpath(p, os.path.commonpath(a.dir))) if len(a.dir) > 1 else os.path.basename
    res = {p: load(p) for p in scaling + refs}
    pool = refs if a.reference == "refs" and refs else scaling + refs
    best, where = np.inf, None
    for p in pool:
        r = res[p]
        if r["ok"].any():
            i = int(np.argmin(np.where(r["ok"], r["cands"]["time_median_s"], np.inf)))
            t = float(r["cands"]["time_median_s"][i])
            if t < best:
                best, where = t, (name(p), int(r["cands"]["id"][i]), int(r["cands"]["island"][i]),
                                  r["cands"]["params"][i].decode())
    if where is None:
        sys.exit("gpu_scaling: no correct candidate in any run")
    target = best * (1 + a.within)
    print(f"reference best: {best * 1e6:.1f} us, {'best over all runs' if pool != refs else 'best of the reference runs'} "
          f"({where[0]}, candidate {where[1]} of island {where[2]}: {where[3]}); within {a.within:.0%}: <= {target * 1e6:.1f} us")
    a0 = res[scaling[0]]["attrs"]
    print(f"galapagos {a0.get('galapagos_version', '?')} ({a0.get('git_revision') or 'revision not recorded'}), {a0.get('family')} on "
          f"{a0.get('backend')}, {a0.get('fitness_size')}" + (f", budget {budget} evaluations per island" if budget else ""))
    print()
    print("| run | GPUs (islands) | evaluations | search time | evaluations/s | per GPU | weak-scaling efficiency | device held | "
          "best found | time to within 2%: generation end | per candidate (est.) | migration | HDF5 | MPI | "
          "orchestration, worst island | job wall time |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    base = None
    logs = {p: orchestration(p[:-3] + ".log") for p in scaling}
    for p in scaling:
        r = res[p]
        g = r["gens"]
        islands = sorted(set(int(x) for x in g["island"]))
        n = int(r["attrs"].get("islands", len(islands)))
        last = {i: g[g["island"] == i][np.argmax(g["wall_time_s"][g["island"] == i])] for i in islands}
        evals = sum(int(last[i]["evaluated"]) for i in islands)
        search = max(float(last[i]["wall_time_s"]) for i in islands)
        busy = sum(float(last[i]["device_busy_s"]) for i in islands) / sum(float(last[i]["wall_time_s"]) for i in islands)
        rate = evals / search
        per = rate / n
        if base is None and n == 1:
            base = per
        eff = f"{per / base:.1%}" if base else "n/a (no 1-GPU run)"
        bests = np.where(r["ok"], r["cands"]["time_median_s"], np.inf)
        exact, est = time_to(r, target)
        o = logs[p]
        if o:
            tot = sum(x["search"] for x in o)
            sh = lambda k: f"{100 * sum(x[k] for x in o) / tot:.2f}%"  # noqa: E731
            worst = max(o, key=lambda x: x["pct"])
            mig, h5, mpi, worst_s = sh("migration"), sh("hdf5"), sh("mpi"), f"{worst['pct']:.2f}% (island {worst['island']})"
        else:
            mig = h5 = mpi = worst_s = "no log"
        job = runs_json.get(p, {})
        jw = f"{job['job_wall_s']:.1f} s" if "job_wall_s" in job else "n/a"
        print(f"| {name(p)} | {n} ({len(islands)}) | {evals} | {search:.1f} s | {rate:.3f} | {per:.3f} | {eff} | {busy:.0%} | "
              f"{bests.min() * 1e6:.1f} us | {fmt_s(exact)} | {fmt_s(est)} | {mig} | {h5} | {mpi} | {worst_s} | {jw} |")
    print()
    if any(logs.values()):
        print("Per island (from the logs): search time, evaluating, migration, HDF5, MPI, search logic")
        for p, rows in logs.items():
            for x in sorted(rows, key=lambda x: x["island"]):
                print(f"  {name(p)} island {x['island']}: {x['search']:.1f} s, evaluating {x['evaluating']:.1f} s, "
                      f"migration {x['migration']:.4f} s, HDF5 {x['hdf5']:.4f} s, MPI {x['mpi']:.4f} s, "
                      f"search logic {x['logic']:.4f} s")
    for p in refs:
        r = res[p]
        g = r["gens"]
        job = runs_json.get(p, {})
        search = float(g["wall_time_s"].max()) if len(g) else 0.0
        best_r = np.where(r["ok"], r["cands"]["time_median_s"], np.inf).min()
        exact, est = time_to(r, target)
        print(f"reference run {name(p)} (seed {r['attrs'].get('seed')}, GPU {job.get('device', '?')}): "
              f"{len(r['cands'])} evaluations in {search:.1f} s of search"
              f"{' (stopped)' if job.get('stopped') else ''}, best {best_r * 1e6:.1f} us; within 2%: "
              f"{fmt_s(exact)} (generation end), {fmt_s(est)} (per candidate)")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="what", required=True)
    r = sub.add_parser("run")
    r.add_argument("--galapagos", help="the galapagos executable (default: on PATH)")
    r.add_argument("--config", default=os.path.join(HERE, "..", "configs", "stencil3d7-cuda-scaling.toml"))
    r.add_argument("--gpus", default="1,2", help="island counts, one island per GPU, run one after the other")
    r.add_argument("--budget", type=int, default=24, help="evaluations per island")
    r.add_argument("--gpus-present", type=int, help="GPUs of the node (default: nvidia-smi -L; a CPU config runs too)")
    r.add_argument("--out", default="results/gpu-scaling")
    r.add_argument("--mpi-transport", default="--mca pml ob1 --mca btl self,vader",
                   help="mpirun options for the islands' messages (default: Open MPI's ob1 over shared host memory)")
    r.add_argument("--deadline", type=float, help="epoch seconds by which everything has ended")
    r.add_argument("--stop-margin-s", type=float, default=30, help="SIGUSR1 this long before the deadline")
    r.add_argument("--min-run-s", type=float, default=120, help="start a scaling run only with this much time left")
    r.add_argument("--ref-seeds", default="2,3", help="seeds of the reference runs, one per GPU ('' = none)")
    r.add_argument("--ref-budget", type=int, default=400)
    r.add_argument("--ref-s", type=float, help="seconds for the reference runs (default: until the deadline)")
    r.add_argument("--ref-min-s", type=float, default=60, help="start reference runs only with this much time left")
    r.add_argument("--ref-grace-s", type=int, default=20)
    an = sub.add_parser("analyze")
    an.add_argument("dir", nargs="+", help="folders written by run (the first 1-GPU run found is the base)")
    an.add_argument("--within", type=float, default=0.02)
    an.add_argument("--reference", choices=("all", "refs"), default="all")
    a = p.parse_args()
    (cmd_run if a.what == "run" else cmd_analyze)(a)


if __name__ == "__main__":
    main()
