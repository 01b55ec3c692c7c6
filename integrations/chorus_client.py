"""A client of `chorus serve` (docs/serve.md), Python standard library only.

The design travels with every request, so the servers stay stateless: any replica can answer any rollout. With
several replicas (CHORUS_SERVE_URLS="http://a:8765,http://b:8765") a design's requests all go to one replica, picked
by the design's content hash, so its build cache stays warm there (cache locality without a sticky balancer).
"""

import hashlib
import json
import os
import time
import urllib.error
import urllib.request

DEFAULT_URL = "http://127.0.0.1:8765"


def server_urls():
    """The replicas, from CHORUS_SERVE_URLS (comma-separated) or CHORUS_SERVE_URL."""
    urls = os.environ.get("CHORUS_SERVE_URLS") or os.environ.get("CHORUS_SERVE_URL") or DEFAULT_URL
    return [u.strip().rstrip("/") for u in urls.split(",") if u.strip()]


def design_hash(design):
    """The design's content hash: its file names in build order and every file's text but the testbench's."""
    h = hashlib.sha256()
    h.update(json.dumps(design["sv_files"]).encode())
    for name in sorted(design["files"]):
        h.update(b"\0" + name.encode() + b"\0" + design["files"][name].encode())
    return h.hexdigest()


def replica_for(design, urls=None):
    """The replica a design's requests go to: the same one for every rollout of that design."""
    urls = urls or server_urls()
    return urls[int(design_hash(design), 16) % len(urls)]


def post(url, path, body, token=None, timeout=600.0, retries=20):
    """POSTs JSON; a 429 (queue full) is retried after its Retry-After, other errors raise with the server's words."""
    token = token if token is not None else os.environ.get("CHORUS_SERVE_TOKEN")
    data = json.dumps(body).encode()
    headers = {"content-type": "application/json"}
    if token:
        headers["authorization"] = "Bearer " + token
    for attempt in range(retries + 1):
        req = urllib.request.Request(url + path, data=data, headers=headers, method="POST")
        try:
            with urllib.request.urlopen(req, timeout=timeout) as res:
                return json.loads(res.read())
        except urllib.error.HTTPError as err:
            text = err.read().decode("utf-8", "replace")
            if err.code == 429 and attempt < retries:
                time.sleep(float(err.headers.get("retry-after") or 1))
                continue
            raise RuntimeError("chorus serve answered %d: %s" % (err.code, text)) from None
    raise RuntimeError("unreachable")


def reward(design, reply, metrics=None, timeout_s=None, urls=None, token=None):
    """One rollout's reward: `design` is {"dut", "sv_files", "files"}; `reply` the model's text.

    Returns the server's answer: {"reward", "coverage", "fractions", "status", "feedback", "cache_hit", "ms"}.
    """
    body = {"dut": design["dut"], "sv_files": design["sv_files"], "files": design["files"], "reply": reply}
    if metrics:
        body["metrics"] = list(metrics)
    if timeout_s:
        body["timeout"] = timeout_s
    return post(replica_for(design, urls), "/v1/reward", body, token=token)
