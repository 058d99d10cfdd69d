"""The scripted model of the LLM tests: tools/llm_test_server.py on loopback, answering a chat
request with the next reply of a script and logging every request it gets."""
import json
import os
import subprocess
import sys
import time


def start(source_dir, work, script):
    """Writes `script` (the replies, in order) to WORK/script.json and starts the server.
    Returns (process, port, script file, requests log): the log holds one JSON request per line."""
    script_file = os.path.join(work, "script.json")
    port_file, log_file = os.path.join(work, "port"), os.path.join(work, "requests.jsonl")
    with open(script_file, "w") as f:
        json.dump(script, f)
    server = subprocess.Popen([sys.executable, os.path.join(source_dir, "tools", "llm_test_server.py"), script_file,
                               port_file, log_file])
    for _ in range(200):
        if os.path.exists(port_file) and os.path.getsize(port_file) > 0:
            break
        time.sleep(0.05)
    else:
        server.kill()
        raise SystemExit("FAIL: the scripted model's server did not start")
    return server, open(port_file).read().strip(), script_file, log_file
