"""The exchange floor of our own calls (docs/performance.md, "How it measures"): the requests one
of our runs makes, recorded as they pass (floor/record_relay.py; the scripted Runtime API
records its own), replayed in order through libcurl on one reused easy handle
(floor/replay_curl.c). Nothing here knows what a request means: method, target, headers and
body go back as captured, framing headers left to libcurl as our client leaves them."""

import bisect, http.client, io, os, subprocess, sys
from collections import Counter, defaultdict

from . import procs

RELAY = os.path.join(procs.BENCH, "floor", "record_relay.py")
REPLAYER = os.path.join(procs.BENCH, "..", "..", ".build-bench", "replay-curl")  # run.sh builds it
# libcurl sets these from the URL and the body, as it does for our client.
FRAMING = {"host", "content-length", "transfer-encoding", "connection", "expect", "keep-alive",
           "proxy-connection", "te"}


class Stream(io.BytesIO):
    """Recorded bytes, for http.client's parsers (which take a socket and close a file)."""

    def makefile(self, mode: str):
        return self

    def close(self):
        pass


class Recorder:
    """record_relay.py as a child, one listener per upstream port. `capture_setup` (run.py sets
    it) is a Setup whose endpoints pass through it."""

    def __init__(self, work: str, upstreams: dict[str, int]):
        self.dir, self.capture_setup = os.path.join(work, "floor-capture"), None
        os.makedirs(self.dir)
        argv = [sys.executable, RELAY, self.dir, *(f"{k}={v}" for k, v in upstreams.items())]
        with open(os.path.join(work, "floor-relay.log"), "wb") as log:
            self.proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                         stderr=log, text=True)
        self.ports = {}
        for line in self.proc.stdout:
            if line == "ready\n":
                break
            name, port = line.split()
            self.ports[name] = int(port)
        if set(self.ports) != set(upstreams):
            raise SystemExit(f"the recording relay did not start: {self.ports}")

    def offset(self) -> int:
        return os.path.getsize(os.path.join(self.dir, "index"))

    def read(self, offset: int) -> list[dict]:
        """The requests recorded since `offset`, each with the status our run got (None: none)."""
        pieces = defaultdict(list)  # (connection, name, in|out) -> [(start, end, time)]
        with open(os.path.join(self.dir, "index")) as fh:
            fh.seek(offset)
            for connection, name, way, start, end, arrived in map(str.split, fh):
                pieces[connection, name, way].append((int(start), int(end), float(arrived)))
        requests = []
        for (connection, name, way), parts in pieces.items():
            if way == "in":
                out = pieces.get((connection, name, "out"), [])
                answers = self._bytes(connection, name, "out", out)
                requests += _requests(name, self._bytes(connection, name, way, parts), parts,
                                      _statuses(answers))
        return requests

    def _bytes(self, connection: str, name: str, way: str, parts: list) -> bytes:
        if not parts:
            return b""
        with open(os.path.join(self.dir, f"{connection}.{name}.{way}"), "rb") as fh:
            fh.seek(parts[0][0])
            return fh.read(parts[-1][1] - parts[0][0])


def _requests(name: str, data: bytes, parts: list, statuses: list) -> list[dict]:
    """The requests in one connection's bytes, each with the time the piece ending its head
    arrived. Our client (libcurl) and nginx send a body with its Content-Length."""
    stream, ends, requests = Stream(data), [end - parts[0][0] for _, end, _ in parts], []
    while stream.tell() < len(data):
        method, target, _ = stream.readline().decode("latin-1").split(" ", 2)
        headers = http.client.parse_headers(stream)
        if "chunked" in headers.get("Transfer-Encoding", ""):
            raise SystemExit(f"a chunked request body to {name}: the replay cannot frame it")
        arrived = parts[bisect.bisect_left(ends, stream.tell())][2]
        status = statuses[len(requests)] if len(requests) < len(statuses) else None
        requests.append({"t": arrived, "endpoint": name, "method": method, "target": target,
                         "headers": [(k, v.strip()) for k, v in headers.items()],
                         "body": stream.read(int(headers.get("Content-Length") or 0)),
                         "captured_status": status})
    return requests


def _statuses(data: bytes) -> list[int]:
    """The statuses of the answers in one connection's bytes (interim 1xx answers skipped)."""
    stream, statuses = Stream(data), []
    try:
        while stream.tell() < len(data):
            answer = http.client.HTTPResponse(stream)
            answer.begin()
            answer.read()
            statuses.append(answer.status)
    except (http.client.HTTPException, ValueError):  # an answer cut off: the rest has none
        pass
    return statuses


class Capture:
    """The requests of one run in the order they arrived, and where the marks fall: mark k
    (event number k) is the k-th request for the next event, made when the process is idle.
    With a warm `loop`, cut at its last phase's end: the request there waits for an event that
    never comes."""

    def __init__(self, requests: list[dict], loop: dict | None = None):
        self.requests = sorted(requests, key=lambda r: r["t"])
        self.marks = dict(enumerate(
            i for i, r in enumerate(self.requests) if r["endpoint"] == "runtime"
            and r["method"] == "GET" and r["target"].endswith("/invocation/next")))
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
            headers = [f"{k}: {v}\n" for k, v in request["headers"] if k.lower() not in FRAMING]
            url, body = bases[request["endpoint"]] + request["target"], request["body"]
            fh.write(f"{request['method']} {url} {len(headers)} {len(body)}\n".encode())
            fh.write("".join(headers).encode("latin-1") + body + b"\n")
    marks = sorted({i for first, end, _ in spans.values() for i in (first, end)})
    trust = [setup.ca_bundle] if setup.ca_bundle else []
    done = subprocess.run([REPLAYER, path, ",".join(map(str, marks)), *trust],
                          capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"replay-curl: exit {done.returncode}: {done.stderr[-1500:]}")
    readings, results = {}, []  # mark -> (CPU s, wall s); per request: (status, new connections)
    for fields in map(str.split, done.stdout.splitlines()):
        if fields[0] == "mark":
            user, system, wall = (float(field) / 1e6 for field in fields[2:5])
            readings[int(fields[1])] = (user + system, wall)
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
    counts = defaultdict(Counter)
    for request, status in zip(requests, statuses):
        counts[request["endpoint"]][str(status)] += 1
    return {endpoint: dict(sorted(c.items())) for endpoint, c in counts.items()}


def medians(rows: list[dict]) -> dict:
    """Replays of one capture: the median CPU per call; the other figures (counts) the first's."""
    others = [key for key in rows[0] if key != "cpu_ms_per_call"]
    return procs.medians(rows, ["cpu_ms_per_call"], firsts=others)
