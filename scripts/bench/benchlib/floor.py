"""The exchange floor of our own calls, without a copy of the product's requests: the requests
one of our runs makes are recorded as they pass (floor/record_relay.py in front of moto and
the fake Google, behind nginx in the HTTPS mode; the scripted Runtime API records its own),
then replayed in the same order through libcurl with one reused easy handle
(floor/replay_curl.c), in the same mode, from the same state of moto. The replayer measures
its own CPU (getrusage) between the phase marks. Nothing here knows what a request means:
the method, target, headers and body go back as captured, framing headers (Host,
Content-Length, Connection, ...) left to libcurl as our client leaves them."""

import base64
import dataclasses
import json
import os
import subprocess
import sys
from collections import Counter
from dataclasses import dataclass

from . import sides
from .runtime_api import ScriptedRuntimeAPI
from .stats import median

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RELAY = os.path.join(HERE, "floor", "record_relay.py")
# libcurl sets these from the URL and the body, as it does for our client.
FRAMING = {"host", "content-length", "transfer-encoding", "connection", "expect", "keep-alive", "proxy-connection", "te"}


class Recorder:
    """record_relay.py as a child: one listener per upstream port, all into one file."""

    def __init__(self, work: str, upstreams: dict[str, int]):
        self.out = os.path.join(work, "floor-capture.jsonl")
        open(self.out, "w").close()
        argv = [sys.executable, RELAY, "--out", self.out] + [f"{name}={port}" for name, port in upstreams.items()]
        self.log = open(os.path.join(work, "floor-relay.log"), "wb")
        self.proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=self.log, text=True)
        self.ports: dict[str, int] = {}
        for line in self.proc.stdout:
            if line.strip() == "ready":
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
        if self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(timeout=10)
        self.log.close()


@dataclass
class Kit:
    """What capturing and replaying need: the relay, a Setup whose endpoints pass through it,
    the built replayer, and the CA to trust in the HTTPS mode."""
    recorder: Recorder
    capture_setup: sides.Setup
    replayer: str
    ca_bundle: str | None

    @staticmethod
    def make(setup: sides.Setup, recorder: Recorder, replayer: str, capture_urls: dict[str, str]) -> "Kit":
        capture = dataclasses.replace(setup, moto_url=capture_urls["aws"], google_url=capture_urls["google"])
        return Kit(recorder, capture, replayer, setup.ca_bundle)


@dataclass
class Capture:
    """The requests of one run in the order they arrived, and where the marks fall: mark k
    (event number k) is the k-th request for the next event, made when the process is idle."""
    requests: list[dict]
    marks: dict[int, int]

    @staticmethod
    def of(records: list[dict], loop: dict | None = None) -> "Capture":
        answers = {r["answer"]: r["status"] for r in records if "answer" in r}
        ordered = sorted((r for r in records if "answer" not in r), key=lambda r: r["t"])
        for record in ordered:
            if "id" in record:
                record["captured_status"] = answers.get(record["id"])
        marks, nexts = {}, 0
        for position, record in enumerate(ordered):
            if record["endpoint"] == "runtime" and record["method"] == "GET" and record["target"].endswith("/invocation/next"):
                marks[nexts] = position
                nexts += 1
        if loop is not None:  # stop at the last phase's end: the request then waits for an event that never comes
            last = max(phase[2] for phase in loop["phases"])
            ordered = ordered[:marks[last]]
        return Capture(ordered, marks)


def _write(path: str, requests: list[dict], bases: dict[str, str]) -> None:
    with open(path, "wb") as fh:
        for request in requests:
            headers = [f"{name}: {value}" for name, value in request["headers"] if name.lower() not in FRAMING]
            body = base64.b64decode(request["body"])
            fh.write(f"{request['method']} {bases[request['endpoint']]}{request['target']} {len(headers)} {len(body)}\n".encode())
            for line in headers:
                fh.write(line.encode("latin-1") + b"\n")
            fh.write(body + b"\n")


def _run(kit: Kit, path: str, marks: list[int]) -> tuple[dict[int, tuple[float, float]], list[tuple[int, int]]]:
    argv = [kit.replayer, path, ",".join(map(str, marks))] + ([kit.ca_bundle] if kit.ca_bundle else [])
    done = subprocess.run(argv, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"replay-curl: exit {done.returncode}: {done.stderr[-1500:]}")
    readings, requests = {}, []
    for line in done.stdout.splitlines():
        fields = line.split()
        if fields[0] == "mark":
            readings[int(fields[1])] = ((float(fields[2]) + float(fields[3])) / 1e6, float(fields[4]) / 1e6)
        elif fields[0] == "req":
            requests.append((int(fields[2]), int(fields[3])))
    return readings, requests


def _answers(requests: list[dict], statuses: list) -> dict[str, dict[str, int]]:
    counts: dict[str, Counter] = {}
    for request, status in zip(requests, statuses):
        counts.setdefault(request["endpoint"], Counter())[str(status)] += 1
    return {endpoint: dict(sorted(c.items())) for endpoint, c in counts.items()}


def _figures(capture: Capture, readings: dict, results: list, start: int, end: int, calls: int) -> dict:
    (c0, t0), (c1, t1) = readings[start], readings[end]
    span = capture.requests[start:end]
    return {"calls": calls, "cpu_ms_per_call": (c1 - c0) * 1000 / calls, "wall_ms_per_call": (t1 - t0) * 1000 / calls,
            "requests_per_call": len(span) / calls,
            "requests_by_endpoint": dict(Counter(r["endpoint"] for r in span)),
            "new_connections_per_call": sum(n for _, n in results[start:end]) / calls,
            "answers": _answers(span, [status for status, _ in results[start:end]]),
            # What the same requests were answered when our run made them (the relay saw them).
            "captured_answers": _answers([r for r in span if r["endpoint"] != "runtime"],
                                         [r.get("captured_status") for r in span if r["endpoint"] != "runtime"])}


def replay(kit: Kit, setup: sides.Setup, capture: Capture, loop: dict, moto_pid: int) -> dict:
    """One replay of a warm loop's capture: per phase, the floor's CPU per call. The Runtime
    API part goes to a scripted Runtime API of its own handing out the same events."""
    api = ScriptedRuntimeAPI([json.dumps(e).encode() for e in loop["events"]], [], peer_pid=moto_pid)
    try:
        path = os.path.join(os.path.dirname(kit.recorder.out), f"replay-{loop['function']}.txt")
        _write(path, capture.requests, {"runtime": f"http://{api.address}", "aws": setup.moto_url, "google": setup.google_url})
        marks = sorted({capture.marks[i] for phase in loop["phases"] for i in phase[1:3]})
        readings, results = _run(kit, path, marks)
    finally:
        api.stop()
    return {name: _figures(capture, readings, results, capture.marks[start], capture.marks[end], end - start)
            for name, start, end, _ in loop["phases"]}


def medians(rows: list[dict]) -> dict:
    """Replays of one capture: the median CPU per call; the other figures (counts) the first's; all rows."""
    return {"cpu_ms_per_call": median([row["cpu_ms_per_call"] for row in rows]),
            **{k: v for k, v in rows[0].items() if k != "cpu_ms_per_call"}, "rounds": rows}


def replay_all(kit: Kit, setup: sides.Setup, capture: Capture, calls: int, name: str) -> dict:
    """One replay of a whole capture (a refresh run's): the floor's CPU per `calls` (grants)."""
    path = os.path.join(os.path.dirname(kit.recorder.out), f"replay-{name}.txt")
    _write(path, capture.requests, {"aws": setup.moto_url, "google": setup.google_url})
    readings, results = _run(kit, path, [0, len(capture.requests)])
    return _figures(capture, readings, results, 0, len(capture.requests), calls)
