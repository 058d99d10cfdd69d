#!/usr/bin/python3
"""llm_inlined_kernel.py GALAPAGOS SOURCE_DIR WORK_DIR [--gpu BACKEND]: the LLM proposer edits a
kernel that the template includes from a shared header of its family (as the CUDA and HIP
templates include kernels/<family>/cuda_hip/), against a scripted server on loopback
(tools/llm_test_server.py).

Without --gpu: a CPU family written out here, llm_shared_kernel, whose template is a launcher
that includes ../shared/axpb_kernel.hpp, where the slow loop lives (llm_axpb's, 16 divisions per
element). The model's first answer only adds a comment inside the inlined header: the same
program as the template, not evaluated again (already_evaluated). Its second (the repair turn)
drops the divisions inside the inlined header: the edit applies, the rewrite is built from its own
text (the header on disk keeps the slow loop) and wins the run. The test proves: the model is sent
the header's text between the inline markers, with no #include of it left; the rewrite stored in
/sources is that self-contained text; the template's own source is stored as its file reads.

`galapagos export --id` of the rewrite gives a patch of the template and of the header, each as
its own file, that applies to a copy of the family's folder.

With --gpu BACKEND (cuda or hip): the same two answers against stencil3d7's template on that
backend, editing a line of its kernel in the inlined cuda_hip header; the edited candidate is
evaluated correct. Skipped (exit 77) where nvidia-smi lists no GPU."""
import glob
import json
import os
import shutil
import subprocess
import sys

import h5py

import scripted_model

galapagos, source_dir, work = sys.argv[1:4]
gpu = sys.argv[5] if len(sys.argv) > 5 and sys.argv[4] == "--gpu" else None
if gpu and (shutil.which("nvidia-smi") is None or subprocess.run(["nvidia-smi", "-L"], capture_output=True).returncode != 0):
    print("skipped: no NVIDIA GPU on this machine (nvidia-smi lists none)")
    sys.exit(77)
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
dec = lambda v: v.decode() if isinstance(v, bytes) else v
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAILED:", what, file=sys.stderr)


def block(search, replace):
    return f"<<<<<<< SEARCH\n{search}\n=======\n{replace}\n>>>>>>> REPLACE\n"


def ok(content):
    return {"status": 200, "body": {"choices": [{"message": {"role": "assistant", "content": content}}],
                                    "usage": {"prompt_tokens": 60, "completion_tokens": 40}}}


if gpu:
    family, ext = "stencil3d7", "cu" if gpu == "cuda" else "hip"
    family_dir = os.path.join(source_dir, "kernels", family)
    template = os.path.join(family_dir, gpu, f"stencil3d7.{ext}")
    header = os.path.join(family_dir, "cuda_hip", "stencil3d7_kernels.hpp")
    included = "../cuda_hip/stencil3d7_kernels.hpp"
    slow = "  __shared__ double plane[BY + 2][TX + 2];"
    fast = "  __shared__ double plane[BY + 2][TX + 2 + 1];  // one column of padding"
    kernel_paths = ""
else:
    family = "llm_shared_kernel"
    kernels = os.path.join(work, "kernels")
    family_dir = os.path.join(kernels, family)
    axpb = os.path.join(source_dir, "tests", "data", "kernels", "llm_axpb")
    os.makedirs(os.path.join(family_dir, "cpu"))
    os.makedirs(os.path.join(family_dir, "shared"))
    for f in ("reference.cpp", "baseline.cpp"):
        shutil.copy(os.path.join(axpb, f), family_dir)
    with open(os.path.join(axpb, "family.toml")) as f:
        toml = f.read().replace('name = "llm_axpb"', f'name = "{family}"')
    with open(os.path.join(family_dir, "family.toml"), "w") as f:
        f.write(toml)
    template = os.path.join(family_dir, "cpu", "axpb.cpp")
    header = os.path.join(family_dir, "shared", "axpb_kernel.hpp")
    included = "../shared/axpb_kernel.hpp"
    slow = "    for (int k = 0; k < 16; ++k) x = x * 3.0 / 3.0;"
    fast = "    for (int k = 0; k < 1; ++k) x = 1.0 * x;  // x * 3.0 / 3.0 is x"
    with open(header, "w") as f:
        f.write("""// llm_shared_kernel's kernel, out[i] = 2*in[i] + 1, the slow way (16 divisions per element).
#pragma once
#include <cstdint>

#ifndef GLP_UNROLL
#define GLP_UNROLL 1
#endif
#ifndef GLP_SCHEDULE
#define GLP_SCHEDULE 0
#endif
#ifndef GLP_CHUNK
#define GLP_CHUNK 4
#endif
#define GLP_PRAGMA(x) _Pragma(#x)
#define GLP_UNROLLED(n) GLP_PRAGMA(GCC unroll n)

namespace axpb_kernel {
inline void sweep(const double* in, double* out, int64_t n) {
#if GLP_SCHEDULE == 1
#pragma omp parallel for schedule(dynamic, 1024 * GLP_CHUNK)
#else
#pragma omp parallel for schedule(static)
#endif
  for (int64_t i = 0; i < n; ++i) {
    double x = in[i];
    GLP_UNROLLED(GLP_UNROLL)
""" + slow + """
    out[i] = 2.0 * x + 1.0;
  }
}
}  // namespace axpb_kernel
""")
    with open(template, "w") as f:
        f.write("""// llm_shared_kernel template: a launcher; the kernel is in ../shared/axpb_kernel.hpp.
#include <cstdint>

#include "glp_kernel.h"
#include \"""" + included + """\"
// galapagos:evolve-begin
GLP_EXPORT int glp_kernel(const glp_arg* args, int nargs, const int64_t* sizes, void* /*stream*/) {
  if (args == nullptr || sizes == nullptr || nargs != 2) return 1;
  const int64_t n = sizes[0];
  if (args[0].count != n || args[1].count != n) return 2;
  axpb_kernel::sweep(static_cast<const double*>(args[0].data), static_cast<double*>(args[1].data), n);
  return 0;
}
// galapagos:evolve-end
""")
    kernel_paths = f'kernel_paths = ["{kernels}"]'

header_before = open(header).read()
template_text = open(template).read()
script = [ok("Document the loop.\n" + block(slow, "    // the loop as it was\n" + slow)),
          ok("Change the kernel itself.\n" + block(slow, fast))]
script += [ok("Nothing to change.") for _ in range(40)]
server, port, script_file, log_file = scripted_model.start(source_dir, work, script)
try:
    out = os.path.join(work, "run.h5")
    config = os.path.join(work, "run.toml")
    with open(config, "w") as f:
        f.write(f"""[run]
grace_s = 10
family = "{family}"
backend = "{gpu or 'cpu'}"
out = "{out}"
{kernel_paths}
[search]
budget = {8 if gpu else 16}
seed = 3
population = 4
offspring = 4
elite = 1
[migration]
topology = "none"
[eval]
timeout_s = 60
seeds = 1
min_repetitions = 3
max_repetitions = 6
time_cap_s = {1.0 if gpu else 0.3}
final_rounds = 3
cache_dir = "{work}/cache"
[llm]
share = 0.25
turns = 2
max_tokens = 0
[[llm.models]]
name = "scripted"
url = "http://127.0.0.1:{port}/v1/chat/completions"
model = "test-model"
api_key_env = "GLP_TEST_LLM_KEY"
timeout_s = 20
""")
    run = subprocess.run([galapagos, "run", config], env=dict(os.environ, GLP_TEST_LLM_KEY="sk-test"),
                         capture_output=True, text=True, timeout=900)
    print(run.stdout[-6000:], run.stderr[-3000:])
finally:
    server.terminate()
    server.wait()

check(run.returncode == 0, f"galapagos run exit {run.returncode}")
requests = [json.loads(line) for line in open(log_file)]
check(len(requests) >= 2, f"the model is asked: {len(requests)} requests")
if requests:
    shown = json.loads(requests[0]["body"])["messages"][-1]["content"]
    check(f"galapagos:inline-begin {included}" in shown and slow in shown,
          "the model is sent the header's text between the inline markers")
    check(f'#include "{included}"' not in shown, "the model's source no longer includes the header")
if len(requests) >= 2:
    told = json.loads(requests[1]["body"])["messages"][-1]["content"]
    check("same program" in told, "the repair turn tells the model its first answer was the template's program")
with h5py.File(out, "r") as f:
    calls = [c for c in f["llm_calls"][:] if int(c["variation"]) == 0]
    outcomes = [dec(c["outcome"]) for c in calls]
    print("first variation:", outcomes)
    check(outcomes == ["already_evaluated", "accepted"],
          f"a comment in the inlined header is the template's program; the kernel edit is accepted: {outcomes}")
    check(len(calls) == 2 and int(calls[1]["edits_applied"]) == 1 and int(calls[1]["edits_failed"]) == 0,
          "the edit inside the inlined header applies")
    cands = {int(c["id"]): c for c in f["candidates"][:]}
    accepted = cands.get(int(calls[1]["candidate_id"])) if len(calls) == 2 else None
    check(accepted is not None and dec(accepted["status"]) == "ok" and dec(accepted["origin"]) == "llm",
          "the edited kernel is a correct candidate")
    sources = {k: dec(f["sources"][k][()]) for k in f["sources"]}
    if accepted is not None:
        text = sources.get(dec(accepted["source_hash"]), "")
        check(fast in text and slow not in text, "the stored rewrite holds the edited kernel")
        check(f"galapagos:inline-begin {included}" in text and f'#include "{included}"' not in text,
              "the stored rewrite is self-contained: the header inlined, not included")
    check(template_text in sources.values(), "the template's source is stored as its file reads")
    first = [c for c in cands.values() if int(c["generation"]) == 0]
    check(first and all(sources.get(dec(c["source_hash"])) == template_text for c in first),
          "the template's candidates are built from its file's text, as without a model")
    if not gpu:
        w = f["winner"].attrs
        check(dec(w["source_hash"]) != "" and fast in sources.get(dec(w["source_hash"]), ""),
              "the rewrite with the edited kernel wins the run (it was built from its own text)")
check(open(header).read() == header_before, "the header on disk is left as it was")

# The review package of the rewrite: the patch changes the header and the template each as its
# own file (no inlined text), applies to a copy of the family's folder with patch -p0, and leaves
# the header as it was with the one line edited; the exported source is the rewrite's own text.
if accepted is not None:
    pkg = os.path.join(work, "export")
    ex = subprocess.run([galapagos, "export", out, "--id", str(int(accepted["id"])), "--out", pkg],
                        capture_output=True, text=True, timeout=900)
    print(ex.stdout[-2000:], ex.stderr[-2000:])
    check(ex.returncode == 0, f"galapagos export of the rewrite: exit {ex.returncode}")
    rel_header = os.path.relpath(header, family_dir)
    rel_template = os.path.relpath(template, family_dir)
    if ex.returncode == 0:
        patch = open(os.path.join(pkg, "winner.patch")).read()
        check(f"--- {rel_header}\n" in patch and f"+++ {rel_header}\n" in patch, "the patch changes the header as its own file")
        check(f"--- {rel_template}\n" in patch, "the patch changes the template as its own file (its parameters)")
        check("galapagos:inline" not in patch and f"-#include \"{included}\"" not in patch,
              "the patch keeps the template's #include of the header, with no inlined text")
        applied = os.path.join(work, "applied")
        shutil.copytree(family_dir, applied)
        p = subprocess.run(["patch", "-p0", "--batch", "-d", applied, "-i", os.path.join(pkg, "winner.patch")],
                           capture_output=True, text=True)
        check(p.returncode == 0, f"winner.patch applies to the family's folder: {p.stdout}{p.stderr}")
        check(open(os.path.join(applied, rel_header)).read() == header_before.replace(slow, fast),
              "patched, the header is the one on disk with the model's line (its #pragma once kept)")
        patched_template = open(os.path.join(applied, rel_template)).read()
        check(f'#include "{included}"' in patched_template and "galapagos:inline" not in patched_template,
              "patched, the template still includes the header")
        diff = open(os.path.join(pkg, os.path.basename(template) + ".diff")).read()
        check(f"+++ b/" in diff and diff.count("+++ ") == 2 and rel_header.replace(os.sep, "/") in diff,
              "the package's .diff shows the template and the header, each as its own file")
        exported = open(os.path.join(pkg, os.path.basename(template))).read()
        check(f"galapagos:inline-begin {included}" in exported and fast in exported,
              "the exported source is the rewrite's self-contained text (what was built)")
if failures:
    sys.exit(1)
print("llm_inlined_kernel" + (f" ({gpu})" if gpu else "") + ": all checks passed")
