#!/usr/bin/env python3
"""fuzz_inputs.py GALAPAGOS SOURCE_DIR WORK_DIR [CASES]: galapagos takes damaged inputs calmly.

Mutates the shipped configs (configs/*.toml), copies of the families' family.toml files and
results files (tests/data/spaces/*.h5 and one made by a tiny --replay run): values of the wrong
type, out of range (0, -1, 2^31, 2^63, huge, inf, nan), truncated files, flipped bits. Each case
runs the command that reads the input with a time-out and must end in one of two ways:
  - exit 0 (exit 1 where documented: `space` of an empty space, `simulate` with nothing to find),
  - exit 2 with exactly one line on stderr that names a file (or the option at fault),
and never by a signal, a hang, a Python traceback, or a change to an input file. A fixed seed
makes every run the same cases; cases run in parallel on a small pool.
"""
import concurrent.futures
import hashlib
import os
import random
import re
import shutil
import subprocess
import sys
import time

galapagos, src, work = (os.path.abspath(a) for a in sys.argv[1:4])
cases_wanted = int(sys.argv[4]) if len(sys.argv) > 4 else 250
python = "/usr/bin/python3"  # Debian's, with h5py and pandas
rng = random.Random(20261201)
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
spaces = os.path.join(src, "tests", "data", "spaces")
recording = os.path.join(spaces, "stencil3d7-cpu.h5")

BAD_VALUES = ["0", "-1", "2147483648", "4294967297", "9223372036854775807", "9223372036854775808", "-9223372036854775809",
              "1e308", "1e-320", "inf", "-inf", "nan", "0.5", "-0.0", '"text"', '""', "[1, 2]", "[]", "{}", "true"]
BAD_EXPRESSIONS = ["n/0", "nx/(nx-nx)", "-1", "1e300*1e300", "0/0", "nrows*ncols*nnz*1e30", "sqrt(-1)", "m*n*k*m*n*k", "("]


def sha(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def mutate_value(text):
    """One `key = number` line gets a bad value; else the text is truncated or has a flipped bit."""
    lines = text.split("\n")
    numeric = [i for i, l in enumerate(lines) if re.match(r"^\s*\w+\s*=\s*[-+0-9.\[]", l) and not l.lstrip().startswith("#")]
    if numeric and rng.random() < 0.7:
        i = rng.choice(numeric)
        key = lines[i].split("=")[0]
        lines[i] = key + "= " + rng.choice(BAD_VALUES)
        return "\n".join(lines), "value " + lines[i].strip()
    return mutate_bytes(text.encode())


def mutate_bytes(data, flips_allowed=True):
    if isinstance(data, str):
        data = data.encode()
    if (not flips_allowed or rng.random() < 0.5) and len(data) > 1:
        cut = rng.randrange(1, len(data))
        return data[:cut], f"truncated at {cut} of {len(data)}"
    b = bytearray(data)
    flips = rng.randint(1, 8)
    for _ in range(flips):
        k = rng.randrange(len(b))
        b[k] ^= 1 << rng.randrange(8)
    return bytes(b), f"{flips} bit flips"


def mutate_family(text):
    lines = text.split("\n")
    exprs = [i for i, l in enumerate(lines) if re.match(r'^(shape|bytes|flops) = "', l)]
    r = rng.random()
    if exprs and r < 0.35:
        i = rng.choice(exprs)
        lines[i] = lines[i].split("=")[0] + '= "' + rng.choice(BAD_EXPRESSIONS) + '"'
        return "\n".join(lines), "expression " + lines[i]
    if r < 0.5:
        values = [i for i, l in enumerate(lines) if l.startswith("values = [")]
        if values:
            i = rng.choice(values)
            lines[i] = rng.choice(['values = ["a", "b"]', "values = []", "values = [[1]]", "values = [1e308, nan]", 'values = "x"'])
            return "\n".join(lines), "parameter " + lines[i]
    return mutate_value(text)


class case:
    def __init__(self, name, argv, inputs, env=None, ok_codes=(0,), changes_allowed=False, output=None, hang_s=90):
        self.name, self.argv, self.inputs, self.env, self.hang_s = name, argv, inputs, env, hang_s
        self.ok_codes, self.changes_allowed, self.output = ok_codes, changes_allowed, output


def write(path, data):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb" if isinstance(data, bytes) else "w") as f:
        f.write(data)
    return path


def make_cases():
    out = []
    # CPU configs only: a GPU config needs a GPU even replayed ("backend cuda: no NVIDIA GPU found").
    configs = sorted(f for f in os.listdir(os.path.join(src, "configs"))
                     if f.endswith(".toml") and "cuda" not in f and "hip" not in f)
    kernels = os.path.join(src, "kernels")
    families = [f for f in sorted(os.listdir(kernels)) if os.path.isfile(os.path.join(kernels, f, "family.toml"))]
    results = [os.path.join(spaces, f) for f in sorted(os.listdir(spaces)) if f.endswith(".h5")]
    tiny = os.path.join(work, "tiny.h5")  # a results file of this galapagos: a tiny replayed run
    subprocess.run([galapagos, "run", os.path.join(src, "configs", "stencil3d7-cpu-ci.toml"), "--budget", "2", "--replay", recording,
                    "--out", tiny, "--quiet"], check=True, capture_output=True, timeout=120)
    results.append(tiny)
    n = 0
    while len(out) < cases_wanted:
        n += 1
        d = os.path.join(work, f"case{n:04d}")
        kind = rng.random()
        if kind < 0.4:  # a config, run against the recording (nothing is timed) or simulated
            name = rng.choice(configs)
            with open(os.path.join(src, "configs", name)) as f:
                text, what = mutate_value(f.read())
            cfg = write(os.path.join(d, name), text)
            if rng.random() < 0.75:
                recorded = os.path.join(spaces, "gemm-cpu.h5") if name.startswith("gemm-") else recording
                argv = [galapagos, "run", cfg, "--budget", "2", "--replay", recorded, "--out", os.path.join(d, "out.h5"), "--quiet"]
                out.append(case(f"run {name}: {what}", argv, [cfg], output=os.path.join(d, "out.h5")))
            else:
                argv = [galapagos, "simulate", recording, "--config", cfg, "--budget", "5"]
                out.append(case(f"simulate --config {name}: {what}", argv, [cfg], ok_codes=(0, 1)))
        elif kind < 0.7:  # a family.toml in a kernel folder of its own
            fam = rng.choice(families)
            shutil.copytree(os.path.join(kernels, fam), os.path.join(d, fam))
            shutil.copytree(os.path.join(kernels, "include"), os.path.join(d, "include"))
            path = os.path.join(d, fam, "family.toml")
            with open(path) as f:
                text, what = mutate_family(f.read())
            write(path, text)
            env = dict(os.environ, GALAPAGOS_KERNELS=d)
            out.append(case(f"space {fam}: {what}", [galapagos, "space", fam, "--sample", "3"], [path], env=env, ok_codes=(0, 1)))
        else:  # a results file
            original = rng.choice(results)
            tool = rng.choice(["simulate", "simulate", "loader", "loader", "resume", "report", "export"])
            # Truncations and bit flips anywhere (headers, B-trees, global heaps, chunks): libhdf5
            # can crash on them, so every reader reads in a child process (store/results_reader,
            # python/galapagos/results.py) and a crash there is one line naming the file.
            with open(original, "rb") as f:
                data, what = mutate_bytes(f.read())
            path = write(os.path.join(d, os.path.basename(original)), data)
            if tool == "simulate":
                out.append(case(f"simulate {os.path.basename(original)}: {what}", [galapagos, "simulate", path, "--budget", "5"], [path],
                                ok_codes=(0, 1)))
            elif tool == "loader":
                out.append(case(f"galapagos/results.py {os.path.basename(original)}: {what}",
                                [python, os.path.join(src, "python", "galapagos", "results.py"), path], [path]))
            elif tool == "resume":
                out.append(case(f"resume {os.path.basename(original)}: {what}", [galapagos, "resume", path, "--quiet"], [path],
                                changes_allowed=True))
            elif tool == "export":  # exit 1: the winner re-checked and flagged (a damaged source is exit 2)
                # Export verifies the winner again on every held-out problem: real work, which a
                # busy node (the suite beside it) can stretch well past a minute; one seed each
                # and a longer limit keep a slow export from passing for a hang.
                out.append(case(f"export {os.path.basename(original)}: {what}",
                                [galapagos, "export", path, "--out", os.path.join(d, "export"), "--seeds", "1"], [path],
                                ok_codes=(0, 1), hang_s=240))
            else:
                out.append(case(f"report {os.path.basename(original)}: {what}",
                                [galapagos, "report", path, "--out", os.path.join(d, "report")], [path]))
    return out


def names_a_file(line):
    return re.search(r"[\w./-]+\.(toml|h5|mtx|cpp|json)\b|--[a-z-]+|family '", line) is not None


def run(c):
    before = {p: sha(p) for p in c.inputs}
    t0 = time.time()
    for attempt in range(2):
        try:
            p = subprocess.run(c.argv, capture_output=True, text=True, errors="replace", timeout=c.hang_s, env=c.env,
                               cwd=os.path.dirname(c.inputs[0]))
        except subprocess.TimeoutExpired:
            return f"HANG ({c.hang_s} s) {c.name}", "hang"
        # Open MPI's singleton start-up fails now and then when several start at once on a busy
        # node ("before MPI_INIT completed"), before galapagos reads anything: that is tried again.
        if "before MPI_INIT completed" not in p.stderr:
            break
    took = time.time() - t0
    err_lines = [l for l in p.stderr.split("\n") if l.strip()]
    problem = None
    if p.returncode < 0 or p.returncode > 128:
        problem = f"killed by a signal (return code {p.returncode})"
    elif "Traceback (most recent call last)" in p.stderr:
        problem = "a Python traceback"
    elif p.returncode == 2:
        if len(err_lines) != 1:
            problem = f"exit 2 with {len(err_lines)} lines on stderr"
        elif not names_a_file(err_lines[0]):
            problem = "exit 2 without naming the file"
    elif p.returncode not in c.ok_codes:
        problem = f"exit {p.returncode}"
    elif p.returncode == 0 and c.output and not os.path.isfile(c.output):
        problem = "exit 0 without its results file"
    if problem is None and not (c.changes_allowed and p.returncode == 0):
        changed = [x for x in c.inputs if os.path.exists(x) and sha(x) != before[x]]
        if changed:
            problem = "changed its input " + changed[0]
    if problem:
        return f"FAIL {c.name}: {problem} ({took:.1f} s)\n  command: {' '.join(c.argv)}\n  stderr: {p.stderr.strip()[-600:]}", p.returncode
    return None, p.returncode


def main():
    t0 = time.time()
    cases = make_cases()
    with concurrent.futures.ThreadPoolExecutor(max_workers=3) as pool:
        outcomes = list(pool.map(run, cases))
    failures = [f for f, _ in outcomes if f]
    for f in failures:
        print(f)
    tally = {}
    for c, (_, code) in zip(cases, outcomes):
        key = f"{c.argv[1] if c.argv[0] == galapagos else 'loader'} exit {code}"
        tally[key] = tally.get(key, 0) + 1
    print(", ".join(f"{k}: {v}" for k, v in sorted(tally.items())))
    print(f"{len(cases)} cases, {len(failures)} failures, {time.time() - t0:.0f} s")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
