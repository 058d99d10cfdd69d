#!/usr/bin/python3
"""llm_search.py GALAPAGOS SOURCE_DIR WORK_DIR [MPIEXEC | --resume | --cancel | --stall]: a search with the LLM proposer against a real
HTTP server on loopback (tools/llm_test_server.py) that serves scripted answers, in order:

  1-3  a 429 (Retry-After), a 500, then a rewrite that drops the slow divisions, declares a new
       parameter BLOCK and does not compile (its text also echoes the API key);
  4    a repair turn that fixes the compile error: the candidate is accepted;
  5    a slow, malformed answer (no choices);
  6    edits that do not apply; 7: an answer without edits (the repair turn of 6).

The run's token budget is spent after answer 7. The test proves: the compile error reaches the
model in the repair turn and the repaired rewrite is accepted; the known faster rewrite wins
the run; the GA tunes the parameter the model declared; malformed answers and failed edits are
recorded and the run goes on; the budget stops the calls; the key is in no output file.

With MPIEXEC: two islands under mpirun, only island 0 asking the model (island_shares), answers
1-4 only (its half of the token budget is spent then). The rewrite migrates with its source: island 1 measures and tunes it too.

With --resume: the run is stopped (SIGTERM) right after the repaired rewrite is accepted and
resumed: the resumed island knows the rewrite again (from /sources), goes on tuning it, never
evaluates a candidate twice, the token budget counts what the first session spent, and the first
prompt of the resumed session tells the model its rewrite was accepted (the conversation state);
a copy whose conversation state is damaged is refused in one line and left as it was.

With --cancel: the model takes two minutes to answer; a SIGTERM that arrives during the call
stops the run within its grace period, the call recorded as cancelled.

With --same-program: the model's one proposal is the parent with a comment added and blanks
changed, the same program; it is not evaluated again (outcome already_evaluated) and the next turn
tells the model so.

With --tools ([llm] tools = true): the model works with tool calls in one variation: it compiles
the blocked rewrite (a compile error), compiles it fixed, evaluates it, profiles it, then proposes
the working source with a larger default block. The proposal is accepted; /llm_calls holds each
tool call (tool, outcome, cost in seconds), the model was sent the tools and each tool's answer,
and the first prompt carries the parent's profile.

With --migrant MPIEXEC: a rewrite in flight as a migrant survives a stop. Two islands under mpirun,
only island 0 asking the model; its first answer waits until island 1's search is over, so
island 1 never takes in the rewrite island 0 then accepts and sends it. The run is stopped
(SIGUSR1 to mpirun) after island 0's generation that sent it, and resumed with a larger budget:
island 1 takes the migrant in from the /migrations row (its source_hash names the text in
/sources) and evaluates the rewrite in the resumed session.

With --supervisor ([llm] tools = true, supervisor_after = 3): the model's first three tool calls
make no progress (a compile error, the same source evaluated and rejected, compiled again); the
supervisor redirects the conversation with a message naming the stall and a direction from the
parent's profile, recorded as a /llm_calls row (tool supervisor, outcome redirected); the model
then fixes the source and its proposal is accepted.

With --stall: the model never proposes anything ("Nothing to change.") and has every slot of a
generation after the first ([llm] share = 1) with no token budget. The search must not stall or
end early: it evaluates its whole budget with genomes, the model asked again and again."""
import glob
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time

import h5py
import numpy as np

import scripted_model

galapagos, source_dir, work = sys.argv[1:4]
mode = sys.argv[4] if len(sys.argv) > 4 else ""
resume = mode == "--resume"
cancel = mode == "--cancel"
stall = mode == "--stall"
same_program = mode == "--same-program"
tools = mode == "--tools"
migrant = mode == "--migrant"
supervised = mode == "--supervisor"
tools = tools or supervised
mpiexec = sys.argv[5] if migrant else mode if mode and not resume and not cancel and not stall and not same_program and not tools else None
os.makedirs(work, exist_ok=True)
for f in glob.glob(os.path.join(work, "*")):
    if os.path.isfile(f):
        os.remove(f)
KEY = "sk-galapagos-test-4f9c2d1e8b7a6"
dec = lambda v: v.decode() if isinstance(v, bytes) else v

LOOP = """#if GLP_SCHEDULE == 1
#pragma omp parallel for schedule(dynamic, 1024 * GLP_CHUNK)
#else
#pragma omp parallel for schedule(static)
#endif
  for (int64_t i = 0; i < n; ++i) {
    double x = in[i];
    GLP_UNROLLED(GLP_UNROLL)
    for (int k = 0; k < 16; ++k) x = x * 3.0 / 3.0;
    out[i] = 2.0 * x + 1.0;
  }"""
BROKEN_LINE = "    for (int64_t i = b; i < e; ++i) out[i] = 2.0 * in[i] + 1.0 + undeclared_offset;"
REWRITE = """  // galapagos:param BLOCK = [4096, 65536]
#ifndef GLP_BLOCK
#define GLP_BLOCK 4096
#endif
#pragma omp parallel for schedule(static)
  for (int64_t b = 0; b < n; b += GLP_BLOCK) {
    const int64_t e = b + GLP_BLOCK < n ? b + GLP_BLOCK : n;
#pragma omp simd
""" + BROKEN_LINE + """
  }"""


def block(search, replace):
    return f"<<<<<<< SEARCH\n{search}\n=======\n{replace}\n>>>>>>> REPLACE\n"


def ok(content, tokens=(60, 40)):
    return {"status": 200, "body": {"choices": [{"message": {"role": "assistant", "content": content}}],
                                    "usage": {"prompt_tokens": tokens[0], "completion_tokens": tokens[1]}}}


def calls(*named, tokens=(50, 30)):
    return {"status": 200, "body": {
        "choices": [{"message": {"role": "assistant", "content": None, "tool_calls": [
            {"id": f"call_{k}", "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}
            for k, (name, args) in named]}}],
        "usage": {"prompt_tokens": tokens[0], "completion_tokens": tokens[1]}}}


FIXED_LINE = BROKEN_LINE.replace(" + undeclared_offset", "")
script = [
    {"status": 429, "headers": {"Retry-After": "0"}, "body": {"error": "slow down"}},
    {"status": 500, "body": "internal error"},
    ok(f"The divisions are useless: compute 2*x+1 directly, in blocks (my key is {KEY}).\n" + block(LOOP, REWRITE)),
    ok("Drop the undeclared name.\n" + block(BROKEN_LINE, BROKEN_LINE.replace(" + undeclared_offset", ""))),
    {"status": 200, "delay_s": 1.0, "body": {"id": "x", "object": "chat.completion"}},
    ok("Unroll it.\n" + block("    this line is not in the source;", "    nor is this one;")),
    ok("I would rather leave it as it is."),
    ok("This answer must never be requested: the budget is spent.\n" + block("a", "b")),
]
if mpiexec:
    script = script[:4]
if resume:  # the proposal and its repair, then answers without edits until the budget (6 calls) is spent
    script = script[2:4] + [ok("Nothing to change.") for _ in range(8)]
if cancel:  # a model that takes two minutes
    script = [dict(ok("Too late."), delay_s=120)]
if tools:  # compile (an error), compile fixed, evaluate, profile, then propose
    script = [calls((1, ("compile", {"edits": block(LOOP, REWRITE)}))),
              calls((2, ("compile", {"edits": block(BROKEN_LINE, FIXED_LINE)}))),
              calls((3, ("evaluate", {}))),
              calls((4, ("profile", {}))),
              ok("Done: a larger block by default.\n" + block("#define GLP_BLOCK 4096", "#define GLP_BLOCK 65536"))]
    script += [ok("Nothing to change.") for _ in range(30)]
if supervised:  # three calls without progress, then the fix, evaluated, and the proposal
    script = [calls((1, ("compile", {"edits": block(LOOP, REWRITE)}))),
              calls((2, ("evaluate", {}))),
              calls((3, ("compile", {}))),
              calls((4, ("evaluate", {"edits": block(BROKEN_LINE, FIXED_LINE)}))),
              ok("Done.")]
    script += [ok("Nothing to change.") for _ in range(30)]
go_file = os.path.join(work, "go")
if migrant:  # the rewrite waits for island 1 to finish; a later call takes long (cancelled by the stop)
    script = [dict(script[2], wait_file=go_file), script[3], dict(ok("Nothing to change."), delay_s=60)]
    script += [ok("Nothing to change.") for _ in range(30)]
if stall:  # a model that never proposes anything
    script = [ok("Nothing to change.") for _ in range(400)]
if same_program:  # a comment and blanks only, then nothing
    script = [ok("Document the loop.\n" + block("#pragma omp parallel for schedule(static)",
                                                   "  // the static schedule, as before\n#pragma omp parallel  for schedule(static)  "))]
    script += [ok("Nothing to change.") for _ in range(12)]
server, port, script_file, log_file = scripted_model.start(source_dir, work, script)
try:
    out = os.path.join(work, "llm.h5")
    config = os.path.join(work, "llm.toml")
    with open(config, "w") as f:
        f.write(f"""[run]
grace_s = 10
family = "llm_axpb"
backend = "cpu"
out = "{out}"
kernel_paths = ["{source_dir}/tests/data/kernels"]
[search]
budget = {30 if migrant else 28 if mpiexec else 10 if stall else 16}
seed = 3
population = 4
offspring = {2 if stall else 4}
elite = 1
[migration]
topology = "{'ring' if mpiexec else 'none'}"
interval = 1
count = 2
[eval]
timeout_s = 30
seeds = 1
min_repetitions = 3
max_repetitions = 6
time_cap_s = 0.3
final_rounds = 3
cache_dir = "{work}/cache"
[llm]
share = {1.0 if stall else 0.25}
turns = {6 if tools else 2}
tools = {'true' if tools else 'false'}
max_tokens = {0 if stall or tools or migrant else 600 if resume else 400}
{'supervisor_after = 3' if supervised else ''}
{'island_shares = [0.25, 0.0]' if mpiexec else ''}
[[llm.models]]
name = "scripted"
{'base_url = "http://127.0.0.1:' + port + '/v1/"' if same_program else 'url = "http://127.0.0.1:' + port + '/v1/chat/completions"'}
model = "test-model"
api_key_env = "GLP_TEST_LLM_KEY"
max_attempts = 4
backoff_initial_s = 0.05
backoff_max_s = 0.2
timeout_s = {120 if migrant else 20}
price_prompt_per_mtok = 1.0
price_completion_per_mtok = 2.0
""")
    env = dict(os.environ, GLP_TEST_LLM_KEY=KEY)
    command = [galapagos, "run", config]
    if mpiexec:
        command = [mpiexec, "-n", "2", "--oversubscribe", "--allow-run-as-root", "--bind-to", "none", "-x", "GLP_TEST_LLM_KEY"] + command
    if cancel:
        proc = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        while proc.poll() is None and not (os.path.exists(log_file) and os.path.getsize(log_file) > 0):
            time.sleep(0.05)
        signalled = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        cancel_log = proc.communicate(timeout=120)[0]
        stop_s = time.monotonic() - signalled
        print(cancel_log)
        run = subprocess.CompletedProcess(command, proc.returncode, cancel_log, "")
    elif migrant:
        first = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        stopped_log = []
        for line in first.stdout:
            stopped_log.append(line)
            if line.startswith("island 1: orchestration"):  # island 1's search is over: the model may answer island 0
                open(go_file, "w").close()
            if line.startswith("island 0 gen 2:"):  # its generation with the model's rewrite, sent at its end
                first.send_signal(signal.SIGUSR1)  # mpirun forwards it to every rank
        first.wait(timeout=300)
        print("".join(stopped_log))
        with h5py.File(out, "r") as f:
            before = len(f["candidates"])
            named = "source_hash" in f["migrations"].dtype.names  # not before migrants carried their source
            sent = [(int(m["generation"]), dec(m["source_hash"]) if named else "", dec(m["params"])) for m in f["migrations"][:]
                    if int(m["to_island"]) == 1]
            through_1 = int(f["checkpoint/island_1"].attrs["migrants_received_through"])
            hashes_1 = {dec(c["source_hash"]) for c in f["candidates"][:] if int(c["island"]) == 1}
            conversation = f.get("checkpoint/island_0/llm_conversation")
            conversation = json.loads(bytes(conversation[()]).decode()) if conversation is not None else None
        run = subprocess.run([mpiexec, "-n", "2", "--oversubscribe", "--allow-run-as-root", "--bind-to", "none", "-x",
                              "GLP_TEST_LLM_KEY", galapagos, "resume", out, "--budget", "34"],
                             env=env, capture_output=True, text=True, timeout=600)
    elif resume:
        first = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        stopped_log = []
        for line in first.stdout:
            stopped_log.append(line)
            if "turn 1: accepted" in line:
                first.send_signal(signal.SIGTERM)
        first.wait(timeout=300)
        print("".join(stopped_log))
        with h5py.File(out, "r") as f:
            before = len(f["candidates"])
            calls_before = len(f["llm_calls"])
            state = f.get("checkpoint/island_0/llm_state")  # text, stored as bytes
            stopped_bandit = json.loads(bytes(state[()]).decode()) if state is not None else None
            talk = f.get("checkpoint/island_0/llm_conversation")
            stopped_declared = json.loads(bytes(talk[()]).decode()).get("declared_to_try", []) if talk is not None else []
        damaged = os.path.join(work, "damaged.h5")  # a conversation state that is not one: refused, nothing written
        shutil.copy(out, damaged)
        with h5py.File(damaged, "r+") as f:
            del f["checkpoint/island_0/llm_conversation"]
            f["checkpoint/island_0/llm_conversation"] = np.frombuffer(b'{"proposer": 3}', dtype=np.uint8)
        damaged_bytes = open(damaged, "rb").read()
        refused = subprocess.run([galapagos, "resume", damaged], env=env, capture_output=True, text=True, timeout=120)
        refused_untouched = open(damaged, "rb").read() == damaged_bytes
        run = subprocess.run([galapagos, "resume", out], env=env, capture_output=True, text=True, timeout=600)
    else:
        run = subprocess.run(command, env=env, capture_output=True, text=True, timeout=600)
finally:
    server.kill()
print(run.stdout)
print(run.stderr, file=sys.stderr)
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAILED:", what, file=sys.stderr)


check(run.returncode == 0, f"galapagos run exit {run.returncode}")
requests = [json.loads(line) for line in open(log_file)]
if migrant:
    check(first.returncode == 0 and any("galapagos resume" in line for line in stopped_log), "SIGUSR1 stopped the first session")
    rewrite = [(g, h, p) for g, h, p in sent if "BLOCK" in p]  # the parameter the rewrite declares
    print("sent to island 1:", sent, "island 1 took in through generation", through_1)
    check(rewrite and all(g > through_1 for g, _, _ in rewrite), "at the stop the rewrite is in flight: sent to island 1, not taken in")
    check(rewrite and all(h and h not in hashes_1 for _, h, _ in rewrite), "its /migrations row names its source")
    feedback = conversation["proposer"]["feedback"] if conversation else None
    check(feedback and "accepted" in feedback, f"island 0's conversation state is checkpointed: {feedback}")
    with h5py.File(out, "r") as f:
        check(f.attrs["finished"].item() is True, "the resumed run finished")
        cands = f["candidates"][:]
        ids = {int(c["id"]): c for c in cands}
        made = {dec(c["source_hash"]) for c in cands if dec(c["origin"]) == "llm" and dec(c["status"]) == "ok"}
        taken = [c for c in cands[before:] if int(c["island"]) == 1 and dec(c["source_hash"]) in made]
        print("island 1 after the resume:", [(int(c["id"]), dec(c["origin"]), dec(c["status"])) for c in cands[before:]
                                            if int(c["island"]) == 1])
        check(any(dec(c["origin"]) == "migrant" and dec(c["status"]) == "ok" for c in taken),
              "after the resume island 1 takes in the rewrite and evaluates it (origin migrant, correct)")
        check(all(json.loads(dec(c["parents"]))[0] in ids and dec(ids[json.loads(dec(c["parents"]))[0]]["source_hash"])
                  == dec(c["source_hash"]) for c in taken), "the migrant's parent is island 0's rewrite")
    if failures:
        sys.exit(1)
    print("llm_search (rewrite in flight as a migrant, stopped and resumed): all checks passed")
    sys.exit(0)
if supervised:
    bodies = [json.loads(r["body"]) for r in requests]
    told = [m["content"] for m in bodies[3]["messages"] if m["role"] == "user"] if len(bodies) > 3 else []
    check(told and told[-1].startswith("## Supervisor") and "3 tool calls in a row made no progress" in told[-1],
          f"the fourth request carries the supervisor's message naming the stall: {told[-1:]}")
    check(told and "-bound" in told[-1], f"the supervisor's direction reads the parent's profile: {told[-1:]}")
    check(bodies[2]["messages"][-1]["role"] == "tool", "no supervisor message before the stall")
    with h5py.File(out, "r") as f:
        rows = [c for c in f["llm_calls"][:] if int(c["variation"]) == 0]
        steps = [(dec(c["tool"]), dec(c["outcome"])) for c in rows]
        print("variation 0:", steps)
        check(steps[:8] == [("", "tool_calls"), ("compile", "compile_error"), ("", "tool_calls"), ("evaluate", "compile_error"),
                            ("", "tool_calls"), ("compile", "compile_error"), ("supervisor", "redirected"), ("", "tool_calls")],
              f"the supervisor's redirection is recorded after the third call without progress: {steps}")
        redirect = [c for c in rows if dec(c["tool"]) == "supervisor"]
        check(len(redirect) == 1 and "compile compile_error" in dec(redirect[0]["prompt"])
              and dec(redirect[0]["response"]).startswith("## Supervisor"), "its row holds the stall and the message")
        check(steps[-1] == ("", "accepted"), f"the redirected conversation ends with an accepted proposal: {steps}")
    sys.exit(1 if failures else 0)
if stall:
    with h5py.File(out, "r") as f:
        evaluated = len(f["candidates"])
        origins = {dec(c["origin"]) for c in f["candidates"][:]}
    check(evaluated == 10, f"the whole budget is evaluated although the model adds nothing: {evaluated} of 10")
    check("llm" not in origins, f"no candidate comes from the model: {origins}")
    check(len(requests) >= 4, f"the model is asked in several generations: {len(requests)} requests")
    sys.exit(1 if failures else 0)
if tools:
    bodies = [json.loads(r["body"]) for r in requests]
    names = [t["function"]["name"] for t in bodies[0].get("tools", [])]
    check(names == ["compile", "evaluate", "profile"], f"the request offers the three tools: {names}")
    check(bodies[0].get("tool_choice") == "auto", "the model may call tools in its first turn")
    first_prompt = bodies[0]["messages"][1]["content"]
    check("Profile of candidate" in first_prompt and "roofline" in first_prompt and "GB/s" in first_prompt,
          "the parent's profile is in the first prompt")
    answers = [m for m in bodies[1]["messages"] if m["role"] == "tool"]
    check(len(answers) == 1 and answers[0]["tool_call_id"] == "call_1" and "undeclared_offset" in answers[0]["content"],
          f"the compile tool's diagnostics reach the model: {answers}")
    assistant = [m for m in bodies[1]["messages"] if m["role"] == "assistant"]
    check(assistant and assistant[-1].get("tool_calls", [{}])[0].get("function", {}).get("name") == "compile",
          "the model's tool calls are sent back as it made them")
    told = [m["content"] for m in bodies[3]["messages"] if m["role"] == "tool"]
    check(any("joined the island's population" in t for t in told), f"evaluate tells the model its candidate: {told[-1:]}")
    told = [m["content"] for m in bodies[4]["messages"] if m["role"] == "tool"]
    check(any("roofline" in t and "bound" in t for t in told), f"profile reads the roofline for the model: {told[-1:]}")
    with h5py.File(out, "r") as f:
        check(f.attrs["finished"].item() is True, "the run finished")
        rows = [c for c in f["llm_calls"][:] if int(c["variation"]) == 0]
        cands = {int(c["id"]): c for c in f["candidates"][:]}
        steps = [(dec(c["tool"]), dec(c["outcome"])) for c in rows]
        print("variation 0:", steps)
        check(steps == [("", "tool_calls"), ("compile", "compile_error"), ("", "tool_calls"), ("compile", "compiled"),
                        ("", "tool_calls"), ("evaluate", "ok"), ("", "tool_calls"), ("profile", "profiled"),
                        ("", "accepted")], f"every tool call is recorded in order: {steps}")
        if len(rows) == 9:
            for r in rows:
                if dec(r["tool"]):
                    check(float(r["latency_s"]) > 0 and int(r["prompt_tokens"]) == 0 and float(r["cost"]) == 0,
                          "a tool call's cost is its seconds, no tokens")
            check("undeclared_offset" in dec(rows[1]["response"]), "the compile row holds the diagnostics")
            evaluated = cands.get(int(rows[5]["candidate_id"]))
            check(evaluated is not None and dec(evaluated["status"]) == "ok" and dec(evaluated["origin"]) == "llm",
                  "the evaluate tool's candidate is a correct candidate of origin llm")
            check("Arithmetic intensity" in dec(rows[7]["response"]), "the profile row holds the reading")
            accepted = cands.get(int(rows[8]["candidate_id"]))
            check(accepted is not None and dec(accepted["status"]) == "ok", "the proposal is an accepted candidate")
            if accepted is not None and evaluated is not None:
                check(dec(accepted["source_hash"]) != dec(evaluated["source_hash"]), "the proposal is the working source, changed")
                text = f["sources"][dec(accepted["source_hash"])][()]
                text = text.decode() if isinstance(text, bytes) else text
                check("#define GLP_BLOCK 65536" in text and "undeclared_offset" not in text, "the proposed source is stored")
                check(json.loads(dec(accepted["params"])).get("BLOCK") == 65536, "the proposal runs with its own default")
        w = f["winner"].attrs
        check(dec(w["origin"]) in ("llm", "offspring") and dec(w["source_hash"]) != dec(cands[min(cands)]["source_hash"]),
              "a rewrite wins the run")
    sys.exit(1 if failures else 0)
if same_program:
    with h5py.File(out, "r") as f:
        outcomes = [dec(c["outcome"]) for c in f["llm_calls"][:]]
        origins = {dec(c["origin"]) for c in f["candidates"][:]}
        hashes = {dec(c["source_hash"]) for c in f["candidates"][:]}
    print("llm calls:", outcomes)
    check(outcomes[:1] == ["already_evaluated"], f"the same program is not evaluated again: {outcomes}")
    check("llm" not in origins, f"no candidate comes from the model: {origins}")
    check(len(hashes) == 1, f"every candidate is built from the template's source: {len(hashes)} sources")
    told = [json.loads(r["body"])["messages"][-1]["content"] for r in requests[1:2]]
    check(any("same program" in t for t in told), f"the next turn tells the model it was the same program: {told}")
    check(all(r["path"] == "/v1/chat/completions" for r in requests), "base_url reaches the chat completions endpoint")
    sys.exit(1 if failures else 0)
if cancel:
    check(stop_s < 10, f"the run stopped {stop_s:.1f} s after SIGTERM, within its 10 s grace period, not after the model")
    check("galapagos resume" in run.stdout, "the stopped run says how to resume")
    with h5py.File(out, "r") as f:
        outcomes = [dec(c["outcome"]) for c in f["llm_calls"][:]]
        check(outcomes == ["llm_cancelled"], f"the call is recorded as cancelled: {outcomes}")
    if failures:
        sys.exit(1)
    print(f"llm_search (cancelled call): stopped {stop_s:.1f} s after SIGTERM; all checks passed")
    sys.exit(0)
if resume:
    check(first.returncode == 0 and any("galapagos resume" in line for line in stopped_log), "SIGTERM stopped the first session")
    check(len(requests) == 6, f"the budget spans both sessions: 6 requests expected, the server got {len(requests)}")
    with h5py.File(out, "r") as f:
        calls = f["llm_calls"][:]
        cands = f["candidates"][:]
        check(f.attrs["finished"].item() is True, "the resumed run finished")
        check(len({int(c["id"]) for c in calls}) == len(calls) == 6 and calls_before == 2, "every call recorded once, ids unique")
        keys = [(dec(c["source_hash"]), dec(c["params"])) for c in cands]
        check(len(set(keys)) == len(keys), "no candidate evaluated twice across the sessions")
        variant = dec({int(c["id"]): c for c in cands}[int(calls[1]["candidate_id"])]["source_hash"])
        check(any(dec(c["source_hash"]) == variant for c in cands[before:]), "the resumed island goes on tuning the rewrite")
        check(len(cands) == 16, f"the budget of evaluations spans both sessions: {len(cands)} candidates")
        # The bandit's statistics are checkpointed with the island and restored: at the end they
        # count every request of both sessions (each is rewarded once), not only the second's.
        bandit = json.loads(bytes(f["checkpoint/island_0/llm_state"][()]).decode())
        asked = sum(1 for c in calls if dec(c["status"]) != "budget_exhausted" and not dec(c["tool"]))
        check(len(bandit) == 1 and bandit[0]["calls"] == asked == 6,
              f"the bandit counts the calls of both sessions: {bandit} for {asked} requests")
        check(stopped_bandit and stopped_bandit[0]["calls"] == 2 and stopped_bandit[0]["gain"] > 0,
              f"the stopped session's checkpoint holds its calls and the accepted rewrite's gain: {stopped_bandit}")
        check(dec(f["winner"].attrs["source_hash"]) == variant, "the rewrite wins the resumed run")
        # The values of the rewrite's declared parameter still to try at the stop are checkpointed
        # and tried first after the resume.
        queued = [(d["source_hash"], d["params"]) for d in stopped_declared]
        resumed_keys = keys[before:]
        check(queued and all(q in resumed_keys[:len(queued) + 2] for q in queued),
              f"the declared values queued at the stop ({queued}) are tried first after the resume: {resumed_keys}")
    # The conversation state is checkpointed too: the resumed session's first prompt tells the
    # model of the rewrite accepted before the stop, not that this is its first proposal.
    lines = refused.stderr.strip().splitlines()
    check(refused.returncode == 2 and len(lines) == 1 and damaged in lines[0] and "LLM conversation state" in lines[0],
          f"a damaged conversation state is refused in one line naming the file: {refused.returncode} {refused.stderr!r}")
    check(refused_untouched, "the refused file is left as it was")
    resumed_prompt = json.loads(requests[2]["body"])["messages"][1]["content"] if len(requests) > 2 else ""
    check("Your last proposal was accepted" in resumed_prompt and "first proposal" not in resumed_prompt,
          "the resumed session's first prompt carries the feedback of the accepted rewrite")
    if failures:
        sys.exit(1)
    print("llm_search (stopped and resumed): all checks passed")
    sys.exit(0)
if mpiexec:
    with h5py.File(out, "r") as f:
        calls = f["llm_calls"][:]
        cands = f["candidates"][:]
        check(f.attrs["finished"].item() is True, "the run finished")
        check({int(c["island"]) for c in calls} == {0}, "only island 0 asks the model (island_shares)")
        check(len(requests) >= 4, f"island 0 spent the scripted answers: {len(requests)} requests")
        accepted = [c for c in calls if dec(c["outcome"]) == "accepted"]
        check(len(accepted) == 1, "the repaired rewrite is accepted")
        if accepted:
            variant = dec({int(c["id"]): c for c in cands}[int(accepted[0]["candidate_id"])]["source_hash"])
            on_1 = [c for c in cands if int(c["island"]) == 1 and dec(c["source_hash"]) == variant]
            check(any(dec(c["origin"]) == "migrant" for c in on_1), "the rewrite migrated to island 1 with its source")
            check(all(dec(c["status"]) == "ok" for c in on_1), "island 1 builds the rewrite it received")
            check(dec(f["winner"].attrs["source_hash"]) == variant, "the rewrite wins the run")
    if failures:
        sys.exit(1)
    print("llm_search (two islands): all checks passed")
    sys.exit(0)
check(len(requests) == 7, f"the budget stops the calls: 7 requests expected, the server got {len(requests)}")
check(all(r["headers"].get("Authorization") == f"Bearer {KEY}" for r in requests), "every request carries the key")
bodies = [json.loads(r["body"]) for r in requests]
repair_prompt = bodies[3]["messages"][-1]["content"]
check("undeclared_offset" in repair_prompt and "error" in repair_prompt,
      "the repair turn shows the model the compiler's error")
check("was not applied" in bodies[6]["messages"][-1]["content"], "a block that does not apply is reported in the next turn")
check("llm budget is spent" in run.stdout.lower(), "the run says the LLM budget is spent")

with h5py.File(out, "r") as f:
    check(f.attrs["finished"].item() is True, "the run finished")
    calls = f["llm_calls"][:]
    cands = f["candidates"][:]
    outcomes = [(int(c["variation"]), int(c["turn"]), dec(c["status"]), dec(c["outcome"])) for c in calls]
    print("llm calls:", outcomes)
    check([o[3] for o in outcomes] == ["compile_error", "accepted", "llm_malformed", "edits_not_applied", "no_edits"],
          f"call outcomes {outcomes}")
    check([(o[0], o[1]) for o in outcomes] == [(0, 0), (0, 1), (1, 0), (2, 0), (2, 1)], "variations and turns")
    check(int(calls[0]["attempts"]) == 3, "the 429 and the 500 were retried within the first call")
    check(int(calls[0]["prompt_tokens"]) == 60 and abs(float(calls[0]["cost"]) - (60 * 1.0 + 40 * 2.0) / 1e6) < 1e-12,
          "tokens and cost are recorded")
    check("***" in dec(calls[0]["response"]) and KEY not in dec(calls[0]["response"]), "the echoed key is masked")
    check("Entry point" in dec(calls[0]["prompt"]) and "llm_axpb" in dec(calls[0]["prompt"]), "the prompt is recorded")
    by_id = {int(c["id"]): c for c in cands}
    accepted = by_id[int(calls[1]["candidate_id"])]
    broken = by_id[int(calls[0]["candidate_id"])]
    check(dec(broken["status"]) == "compile_error" and dec(broken["origin"]) == "llm", "the broken rewrite is a failed candidate")
    check(dec(accepted["status"]) == "ok" and dec(accepted["origin"]) == "llm", "the repaired rewrite is accepted")
    variant = dec(accepted["source_hash"])
    text = f["sources"][variant][()]
    text = text.decode() if isinstance(text, bytes) else text
    check("galapagos:param BLOCK" in text and "undeclared_offset" not in text, "the accepted source is stored")
    blocks = {json.loads(dec(c["params"])).get("BLOCK") for c in cands if dec(c["source_hash"]) == variant}
    check(blocks == {4096, 65536}, f"the GA tried the declared parameter's values: {blocks}")
    check(any(dec(c["origin"]) == "offspring" and dec(c["source_hash"]) == variant for c in cands),
          "the GA bred from the rewrite")
    # The accepted point and the other BLOCK value are two; more are the island's GA breeding the
    # rewrite beside the default strategy's template proposals.
    bred = [c for c in cands if dec(c["source_hash"]) == variant]
    check(len(bred) >= 3, f"the GA bred the rewrite beyond its declared values: {len(bred)} candidates")
    template = [float(c["time_median_s"]) for c in cands if dec(c["status"]) == "ok" and dec(c["origin"]) != "llm"
                and dec(c["source_hash"]) != variant]
    w = f["winner"].attrs
    check(dec(w["source_hash"]) == variant and dec(w["status"]) == "ok", "the rewrite wins the run")
    check(float(w["time_median_s"]) * 3 < min(template), f"the rewrite is several times faster than the template's best "
          f"({float(w['time_median_s']):.2e} s vs {min(template):.2e} s)")
    check(len(cands) == 16, f"the run spent its budget: {len(cands)} candidates")

# The report says what the model contributed: its accepted rewrite, candidates from its source,
# the gain over the template, improvements of the run's best, tokens per improvement.
report_dir = os.path.join(work, "report")
shutil.rmtree(report_dir, ignore_errors=True)
rep = subprocess.run([galapagos, "report", out, "--out", report_dir], env=env, capture_output=True, text=True, timeout=300)
check(rep.returncode == 0, f"galapagos report: exit {rep.returncode}: {rep.stderr[-1000:]}")
md = open(os.path.join(report_dir, "report.md")).read() if rep.returncode == 0 else ""
section = md.split("What the model contributed", 1)[1].split("\n#", 1)[0] if "What the model contributed" in md else ""
check(section != "", "the report has a section on what the model contributed")
check(re.search(r"rewrites accepted \| 1 of [1-9]", section) is not None, f"the report counts the accepted rewrite: {section[:600]}")
check("winner | built from a rewrite" in section, "the report says the winner was built from a rewrite")
check(re.search(r"improvements of the run's best \| [1-9]", section) is not None, "the report counts improvements")
gain = re.search(r"[1-9]\d* of [1-9]\d* beat the best template point measured before them; best gain ([0-9.]+)x", section)
check(gain is not None and float(gain.group(1)) >= 3,
      f"the report shows the rewrite's gain over the template (several times): {section[:600]}")
check(re.search(r"tokens \| \d+, \d+ per improvement", section) is not None, "the report shows tokens per improvement")

leaks = []
for root, _, files in os.walk(work):
    for name in files:
        path = os.path.join(root, name)
        if path in (script_file, log_file):
            continue  # the server's own script and log
        with open(path, "rb") as fh:
            if KEY.encode() in fh.read():
                leaks.append(path)
check(not leaks, f"the key is in no output file: {leaks}")
check(KEY not in run.stdout and KEY not in run.stderr, "the key is in neither stdout nor stderr")
if failures:
    sys.exit(1)
print("llm_search: all checks passed")
