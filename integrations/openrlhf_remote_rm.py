"""OpenRLHF remote reward model for CHORUS-style coverage RL, Python standard library only.

    python3 integrations/openrlhf_remote_rm.py --port 5000      # then: --remote_rm_url http://host:5000/get_reward

OpenRLHF POSTs {"query": [prompt + response, ...], "prompts": [prompt, ...], "labels": [label, ...]} and reads
{"rewards": [...]}. Each label is the item's design as JSON ({"dut", "sv_files", "files"}, optionally "metrics"),
so this bridge and the servers behind it stay stateless. Each response (the query after its prompt) is scored by
`chorus serve` (CHORUS_SERVE_URLS; a design's requests go to one replica), the items of a batch side by side.
"""

import argparse
import json
import os
import sys
from concurrent.futures import ThreadPoolExecutor
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import chorus_client  # noqa: E402

POOL = ThreadPoolExecutor(max_workers=int(os.environ.get("CHORUS_RM_WORKERS", "16")))


def score(query, prompt, label):
    design = json.loads(label) if isinstance(label, str) else label
    reply = query[len(prompt):] if prompt and query.startswith(prompt) else query
    return chorus_client.reward(design, reply, metrics=design.get("metrics"))


def rewards(body):
    queries = body["query"]
    prompts = body.get("prompts") or [""] * len(queries)
    labels = body["labels"]
    if not (len(queries) == len(prompts) == len(labels)):
        raise ValueError("query, prompts and labels must be as long as one another")
    answers = list(POOL.map(score, queries, prompts, labels))
    values = [a["reward"] for a in answers]
    return {
        "rewards": values,
        "scores": values,
        "extra_logs": {
            "coverage": [a["coverage"] for a in answers],
            "built": [1.0 if a["status"] == "ok" else 0.0 for a in answers],
        },
    }


class Handler(BaseHTTPRequestHandler):
    def do_POST(self):
        try:
            length = int(self.headers.get("content-length") or 0)
            answer, code = rewards(json.loads(self.rfile.read(length))), 200
        except (ValueError, KeyError, RuntimeError) as err:
            answer, code = {"error": str(err)}, 400
        data = json.dumps(answer).encode()
        self.send_response(code)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=5000)
    args = parser.parse_args()
    server = ThreadingHTTPServer((args.host, args.port), Handler)
    # The bound port on stdout, alone: a caller that asked for port 0 learns where to send.
    print("http://%s:%d" % (args.host, server.server_address[1]), flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
