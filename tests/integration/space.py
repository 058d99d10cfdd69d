#!/usr/bin/python3
"""space.py GALAPAGOS: `galapagos space` against the family files themselves: the parameters and
their values, the constraints, the number of valid points (counted here by brute force over the
Cartesian product for the GPU spaces, small enough), every sampled point valid, a larger space's
exact count, a seed that fixes the sample; bad input gives exit 2 and one line."""
import itertools
import json
import os
import re
import subprocess
import sys
import tomllib

galapagos = sys.argv[1]
root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def fail(msg):
    print(f"FAIL: {msg}")
    sys.exit(1)


def space(*args):
    p = subprocess.run([galapagos, "space", *args], capture_output=True, text=True, timeout=120)
    return p.returncode, p.stdout, p.stderr


def valid(constraints, point):
    """The family's constraints, evaluated in Python (they use C operators and max/min)."""
    env = {k: float(v) for k, v in point.items()}
    for c in constraints:
        expr = c.replace("||", " or ").replace("&&", " and ").replace("!=", "<>").replace("!", " not ").replace("<>", "!=")
        if not eval(expr, {"max": max, "min": min, "__builtins__": {}}, env):
            return False
    return True


for family, backend in [("stencil3d7", "cuda"), ("spmv", "cuda"), ("stencil3d7", "cpu")]:
    with open(os.path.join(root, "kernels", family, "family.toml"), "rb") as f:
        spec = tomllib.load(f)[backend]
    rc, out, err = space(family, "--backend", backend, "--sample", "20", "--json")
    if rc != 0:
        fail(f"{family}/{backend}: exit {rc}: {err}")
    j = json.loads(out)
    params = {p["name"]: [str(v) for v in p["values"]] for p in spec["params"]}
    if j["parameters"] != params or j["constraints"] != spec.get("constraints", []):
        fail(f"{family}/{backend}: parameters or constraints differ from family.toml")
    product = 1
    for v in params.values():
        product *= len(v)
    if j["cartesian_points"] != product or not j["valid_exact"]:
        fail(f"{family}/{backend}: {j['cartesian_points']} points, expected {product} (counted exactly)")
    if product <= 20000:
        names = list(params)
        count = sum(valid(j["constraints"], dict(zip(names, combo))) for combo in itertools.product(*params.values()))
        if j["valid_points"] != count:
            fail(f"{family}/{backend}: {j['valid_points']} valid points, brute force counts {count}")
    if len(j["sample"]) != 20:
        fail(f"{family}/{backend}: {len(j['sample'])} sampled points, asked for 20")
    for point in j["sample"]:
        if any(str(v) not in params[k] for k, v in point.items()) or not valid(j["constraints"], point):
            fail(f"{family}/{backend}: sampled point {point} is not a valid point")
    print(f"{family}/{backend}: {j['valid_points']:.0f} of {product} points valid; 20 sampled points valid")

# Text output: the numbers a user sizes a job with; the seed fixes the sample.
rc, out, err = space("stencil3d7", "--backend", "cpu", "--sample", "3", "--seed", "7")
rc2, out2, _ = space("stencil3d7", "--backend", "cpu", "--sample", "3", "--seed", "7")
if rc != 0 or out != out2 or not re.search(r"space: \d+ points in the Cartesian product, \d+ valid", out):
    fail(f"text output: {out}{err}")
if "max(TILE_Y,1)*max(TILE_Z,1) <= 1024" not in out or out.count('{"TILE_X"') != 3:
    fail(f"text output lacks constraints or the sample: {out}")

for args, want in [(["nosuch"], "unknown family"), (["stencil3d7", "--backend", "fpga"], "has no backend 'fpga'"),
                   ([], "a FAMILY is required"), (["stencil3d7", "--sample", "-1"], "--sample: must be an integer in [0, ")]:
    rc, out, err = space(*args)
    lines = err.strip().splitlines()
    if rc != 2 or len(lines) != 1 or want not in lines[0]:
        fail(f"galapagos space {' '.join(args)}: exit {rc}, stderr {err!r} (wanted '{want}')")
print("PASS")
