#!/usr/bin/python3
"""llm_test_server.py SCRIPT.json PORT_FILE LOG_FILE: a loopback HTTP server that speaks the
OpenAI Chat Completions API with scripted answers, for testing galapagos's LLM client.

SCRIPT.json is a list of answers, served one per request in order: {"status": 200, "headers":
{...}, "body": <JSON object, or a string sent as it is>, "delay_s": 0, "wait_file": PATH}; an
answer with wait_file is sent once that file exists (a test releases it). A request after the
last answer gets HTTP 500. The server binds 127.0.0.1 on a free port, writes the port to PORT_FILE,
and appends every request (path, headers, JSON body) to LOG_FILE as one JSON line."""
import json
import os
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

script_path, port_file, log_file = sys.argv[1:4]
with open(script_path) as f:
    answers = json.load(f)
lock = threading.Lock()


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args):  # quiet: the request log is LOG_FILE
        pass

    def do_POST(self):
        length = int(self.headers.get("Content-Length", 0))
        raw = self.rfile.read(length).decode()
        with lock:
            with open(log_file, "a") as log:
                log.write(json.dumps({"path": self.path, "headers": dict(self.headers), "body": raw}) + "\n")
            answer = answers.pop(0) if answers else {"status": 500, "body": "no more scripted answers"}
        waited = 0.0
        while answer.get("wait_file") and not os.path.exists(answer["wait_file"]) and waited < 600:
            time.sleep(0.05)
            waited += 0.05
        time.sleep(answer.get("delay_s", 0))
        body = answer.get("body", "")
        data = (body if isinstance(body, str) else json.dumps(body)).encode()
        try:
            self.send_response(answer.get("status", 200))
            for k, v in answer.get("headers", {}).items():
                self.send_header(k, str(v))
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (its time-out)


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
with open(port_file + ".tmp", "w") as f:
    f.write(str(server.server_address[1]))
os.replace(port_file + ".tmp", port_file)
server.serve_forever()
