"""The exchange floor of our own calls, without a copy of the product's requests: the requests
one of our runs makes are recorded as they pass (floor/record_relay.py in front of moto and the
fake Google, behind nginx in the HTTPS mode; the scripted Runtime API records its own), then
replayed in the same order through libcurl with one reused easy handle (floor/replay_curl.c),
in the same mode, from the same state of moto. The replayer measures its own CPU (getrusage)
between the marks. Nothing here knows what a request means: the method, target, headers and
body go back as captured, framing headers left to libcurl as our client leaves them."""

import base64, json, os, subprocess, sys
from collections import Counter

from . import procs

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RELAY = os.path.join(HERE, "floor", "record_relay.py")
REPLAYER = os.path.join(HERE, "..", "..", ".build-bench", "replay-curl")  # run.sh builds it
# libcurl sets these from the URL and the body, as it does for our client.
FRAMING = {"host", "content-length", "transfer-encoding", "connection", "expect", "keep-alive",
           "proxy-connection", "te"}


class Recorder:
    """record_relay.py as a child: one listener per upstream port, all into one file.
    `capture_setup` (set by run.py) is a Setup whose endpoints pass through it."""

    def __init__(self, work: str, upstreams: dict[str, int]):
        self.out, self.capture_setup = os.path.join(work, "floor-capture.jsonl"), None
        open(self.out, "w").close()
        self.log = open(os.path.join(work, "floor-relay.log"), "wb")
        argv = [sys.executable, RELAY, "--out", self.out, *(f"{k}={v}" for k, v in upstreams.items())]
        self.proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                     stderr=self.log, text=True)
        self.ports = {}
        for line in self.proc.stdout:
            if line == "ready\n":
                break
            name, port = line.split()
            self.ports[name] = int(port)
        if set(self.ports) != set(upstreams):
            raise SystemExit(f"the recording relay did not start: {self.ports}")

    def offset(self) -> int:
        return os.path.getsize(self.out)

    def read(self, offset: int) -> list[dict]:
        with open(self.out) as fh:
            fh.seek(offset)
            return [json.loads(line) for line in fh if line.strip()]

    def stop(self) -> None:
        procs.stop(self.proc)
        self.log.close()


class Capture:
    """The requests of one run in the order they arrived, each with the status our run got, and
    where the marks fall: mark k (event number k) is the k-th request for the next event, made
    when the process is idle. With a warm `loop`, cut at its last phase's end: the request there
    waits for an event that never comes."""

    def __init__(self, records: list[dict], loop: dict | None = None):
        answers = {r["answer"]: r["status"] for r in records if "answer" in r}
        self.requests = sorted((r for r in records if "answer" not in r), key=lambda r: r["t"])
        for request in self.requests:
            if "id" in request:
                request["captured_status"] = answers.get(request["id"])
        nexts = [i for i, r in enumerate(self.requests) if r["endpoint"] == "runtime"
                 and r["method"] == "GET" and r["target"].endswith("/invocation/next")]
        self.marks = dict(enumerate(nexts))
        if loop is not None:
            self.requests = self.requests[:self.marks[max(p[2] for p in loop["phases"])]]


def replay(setup, capture: Capture, spans: dict[str, tuple[int, int, int]], path: str,
           runtime_url: str | None = None) -> dict:
    """One replay of `capture` through libcurl, written to `path` first (the Runtime API's part
    to `runtime_url`); spans: name -> (first request, end request, calls). Per span: the floor's
    CPU per call and what it sent and got."""
    bases = {"runtime": runtime_url, "aws": setup.moto_url, "google": setup.google_url}
    with open(path, "wb") as fh:
        for request in capture.requests:
            headers = [f"{k}: {v}" for k, v in request["headers"] if k.lower() not in FRAMING]
            body = base64.b64decode(request["body"])
            url = bases[request["endpoint"]] + request["target"]
            fh.write(f"{request['method']} {url} {len(headers)} {len(body)}\n".encode())
            fh.write("".join(line + "\n" for line in headers).encode("latin-1") + body + b"\n")
    marks = sorted({i for first, end, _ in spans.values() for i in (first, end)})
    trust = [setup.ca_bundle] if setup.ca_bundle else []
    done = subprocess.run([REPLAYER, path, ",".join(map(str, marks)), *trust],
                          capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"replay-curl: exit {done.returncode}: {done.stderr[-1500:]}")
    readings, results = {}, []  # mark -> (CPU s, wall s); per request (status, new connections)
    for fields in map(str.split, done.stdout.splitlines()):
        if fields[0] == "mark":
            readings[int(fields[1])] = ((float(fields[2]) + float(fields[3])) / 1e6,
                                        float(fields[4]) / 1e6)
        elif fields[0] == "req":
            results.append((int(fields[2]), int(fields[3])))
    figures = {}
    for name, (start, end, calls) in spans.items():
        (c0, t0), (c1, t1), span = readings[start], readings[end], capture.requests[start:end]
        ours = [r for r in span if r["endpoint"] != "runtime"]
        figures[name] = {
            "calls": calls, "cpu_ms_per_call": (c1 - c0) * 1000 / calls,
            "wall_ms_per_call": (t1 - t0) * 1000 / calls, "requests_per_call": len(span) / calls,
            "requests_by_endpoint": dict(Counter(r["endpoint"] for r in span)),
            "new_connections_per_call": sum(n for _, n in results[start:end]) / calls,
            "answers": _answers(span, [status for status, _ in results[start:end]]),
            # What the same requests were answered when our run made them (the relay saw them).
            "captured_answers": _answers(ours, [r.get("captured_status") for r in ours])}
    return figures


def _answers(requests: list[dict], statuses: list) -> dict[str, dict[str, int]]:
    counts: dict[str, Counter] = {}
    for request, status in zip(requests, statuses):
        counts.setdefault(request["endpoint"], Counter())[str(status)] += 1
    return {endpoint: dict(sorted(c.items())) for endpoint, c in counts.items()}


def medians(rows: list[dict]) -> dict:
    """Replays of one capture: the median CPU per call; the other figures (counts) the first's."""
    others = [key for key in rows[0] if key != "cpu_ms_per_call"]
    return procs.medians(rows, ["cpu_ms_per_call"], firsts=others)
