"""Warm invocations: one long-lived process answers many events. Ours runs its real Lambda
Runtime API loop against a scripted Runtime API; the peer runs an in-process loop over its
lambda_handler (peer_warm_loop.py). Both are measured alike: the process's own CPU (utime +
stime) and the time between two points where it is idle, divided by the calls."""

import base64, json, os, signal, subprocess, sys, threading, time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from . import floor, procs, sides
from .tls import total

WARMUP = 3
SCHEDULED_CALLS = 20  # each lists every grant: a few are enough
PEER_LOOP = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                         "peer_warm_loop.py")


class RuntimeAPI(ThreadingHTTPServer):
    """A scripted Lambda Runtime API on loopback: hands out `events` through /invocation/next,
    takes /response and /error, and takes a procs.reading of the served process (`pid`) when it
    asks for event number k in `marks` (it is then idle, waiting). With `record` it appends each
    request it takes there, as the floor's relay records them. After the last event it holds the
    next request until stopped."""

    daemon_threads = True

    def __init__(self, events: list, marks=(), moto_pid: int = 0, log: str | None = None,
                 record: list | None = None):
        super().__init__(("127.0.0.1", 0), RuntimeHandler)
        self.events = [json.dumps(event).encode() for event in events]
        self.marks, self.moto_pid, self.log, self.record = set(marks), moto_pid, log, record
        self.readings, self.statuses, self.errors = {}, [], []
        self.pid, self.next, self.lock = None, 0, threading.Lock()
        self.finished, self.stopping = threading.Event(), threading.Event()
        self.address = f"127.0.0.1:{self.server_address[1]}"
        threading.Thread(target=self.serve_forever, daemon=True).start()

    def stop(self) -> None:
        self.stopping.set()
        self.shutdown()
        self.server_close()


class RuntimeHandler(BaseHTTPRequestHandler):
    protocol_version, disable_nagle_algorithm = "HTTP/1.1", True

    def log_message(self, *args):
        pass

    def _note(self, arrived: float, body: bytes = b"") -> None:
        if self.server.record is not None:
            self.server.record.append({
                "t": arrived, "endpoint": "runtime", "method": self.command, "target": self.path,
                "headers": [[k, v] for k, v in self.headers.items()],
                "body": base64.b64encode(body).decode()})

    def _reply(self, status: int, body: bytes = b"", headers: dict | None = None) -> None:
        self.send_response(status)
        for name, value in {**(headers or {}), "Content-Length": str(len(body))}.items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        api = self.server
        self._note(time.monotonic())
        if self.path != "/2018-06-01/runtime/invocation/next":
            return self._reply(404)
        with api.lock:
            index, api.next = api.next, api.next + 1
        if index in api.marks and api.pid is not None:
            api.readings[index] = procs.reading(api.pid, api.moto_pid, api.log)
        if index >= len(api.events):
            api.finished.set()
            api.stopping.wait()
            self.close_connection = True  # the process is gone by now: answer nothing
            return
        self._reply(200, api.events[index], {
            "Content-Type": "application/json", "Lambda-Runtime-Aws-Request-Id": f"bench-{index:06d}",
            "Lambda-Runtime-Deadline-Ms": str(int(time.time() * 1000) + 900_000),
            "Lambda-Runtime-Invoked-Function-Arn": "arn:aws:lambda:us-east-1:123456789012:function:bench",
            "Lambda-Runtime-Trace-Id": f"Root=1-00000000-{index:024d};Sampled=0"})

    def do_POST(self):
        arrived = time.monotonic()
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self._note(arrived, body)
        if self.path.endswith("/response"):
            try:  # an API answer's status; for others (a direct invocation's): "error" or "ok"
                answer = json.loads(body)
                self.server.statuses.append(answer.get("statusCode", "error" if "error" in answer else "ok"))
            except (ValueError, AttributeError):
                self.server.statuses.append(None)
        elif self.path.endswith("/error"):
            self.server.errors.append(body.decode(errors="replace")[:300])
        else:
            return self._reply(404)
        self._reply(202, b'{"status":"OK"}', {"Content-Type": "application/json"})


def _plan(setup: sides.Setup, n: int) -> dict:
    """Per loop: the events and the phases (name, first index, end index, expected status)."""
    users, warm_users = [f"warm-{i:05d}" for i in range(n)], [f"warm-up-{i}" for i in range(WARMUP)]
    sides.mint(setup, users + warm_users)
    store = ([sides.store_tokens(u) for u in warm_users]
             + [sides.store_tokens(u, "ya29.first") for u in users]
             + [sides.store_tokens(u, "ya29.second") for u in users])
    # Ours alone (the peer has no such handler): fresh-token for the users the store loop
    # connected (none due: a read), and the scheduled refresh with nothing due (the listing).
    scheduled = [sides.scheduled() for _ in range(WARMUP + min(n, SCHEDULED_CALLS))]
    end = WARMUP + n
    return {"users": users + warm_users, "loops": [
        {"function": "store-tokens", "handler": "store_tokens", "events": store,
         "phases": [("store-tokens, new users", WARMUP, end, 201),
                    ("store-tokens, same users", end, end + n, 201)]},
        {"function": "user-profile", "handler": "user_profile",
         "events": [sides.user_profile(u) for u in warm_users + users],
         "phases": [("user-profile", WARMUP, end, 200)]},
        {"function": "fresh-token", "handler": None,
         "events": [{"user_id": u} for u in warm_users + users],
         "phases": [("fresh-token (ours alone), not due", WARMUP, end, "ok")]},
        {"function": "token-refresh", "handler": None, "events": scheduled,
         "phases": [("token-refresh (ours alone), nothing due", WARMUP, len(scheduled), "ok")]}]}


def _figures(readings: dict, phase: tuple, statuses: list, terminator, log_start) -> dict:
    """readings: index -> procs.reading. With the HTTPS mode's terminator: the phase's new TLS
    handshakes and requests per endpoint, and for a loop's first phase those of the process's
    first invocation and of the next ones before the phase (from `log_start`)."""
    name, start, end, expected = phase
    bad = [s for s in statuses[start:end] if s != expected]
    if bad:
        raise SystemExit(f"warm {name}: {len(bad)} responses not {expected}, e.g. {bad[:3]}")
    (t0, c0, m0), (t1, c1, m1), calls = readings[start][:3], readings[end][:3], end - start
    figures = {"calls": calls, "per_second": calls / (t1 - t0),
               "cpu_ms_per_call": (c1 - c0) * 1000 / calls, "moto_cpu_ms_per_call": (m1 - m0) * 1000 / calls}
    if terminator:
        tls = terminator.handshakes(readings[start][3], readings[end][3])
        figures |= {"tls": tls, "handshakes_per_call": total(tls) / calls,
                    "tls_requests_per_call": total(tls, "requests") / calls}
        if start == WARMUP:
            first = terminator.handshakes(log_start, readings[1][3])
            then = terminator.handshakes(readings[1][3], readings[start][3])
            figures["first_calls"] = {"calls": start, "tls": first, "handshakes": total(first),
                                      "then_tls": then, "then_handshakes": total(then)}
    return figures


def _loop(setup: sides.Setup, side: str, loop: dict, moto_pid: int, work: str, terminator=None,
          record: list | None = None) -> dict:
    """One process of `side` through `loop`'s events: per phase, its figures."""
    marks = sorted({i for phase in loop["phases"] for i in phase[1:3]} | ({1} if terminator else set()))
    log = terminator.log if terminator else None
    log_start = terminator.log_size() if terminator else None
    if side == "swift":
        readings, statuses, rss = _swift(setup, loop, marks, moto_pid, log, record)
    else:
        readings, statuses, rss = _peer(setup, loop, marks, moto_pid, log, work)
    result = {phase[0]: _figures(readings, phase, statuses, terminator, log_start)
              for phase in loop["phases"]}
    for figures in result.values() if rss else ():
        figures["peak_rss_mib"] = rss / 1024
    return result


def _swift(setup, loop, marks, moto_pid, log, record) -> tuple[dict, list, int]:
    api = RuntimeAPI(loop["events"], marks, moto_pid, log, record)
    env = sides.swift_env(setup, extra={"AWS_LAMBDA_RUNTIME_API": api.address, "AWS_LAMBDA_FUNCTION_NAME":
                                        loop["function"], "AWS_LAMBDA_FUNCTION_MEMORY_SIZE": "512"})
    timed = procs.Timed(sides.swift_cmd(setup, loop["function"]))
    proc, api.pid = timed.start(env)
    try:
        while not api.finished.wait(1):
            if proc.poll() is not None:
                raise SystemExit(f"warm {loop['function']}: the process exited with {proc.returncode}")
        os.kill(api.pid, signal.SIGTERM)  # the function itself; GNU time then reports and exits
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            os.kill(api.pid, signal.SIGKILL)
            proc.wait()
        api.stop()
    if api.errors:
        raise SystemExit(f"warm {loop['function']}: /error posts: {api.errors[:2]}")
    return api.readings, api.statuses, timed.usage()[0]


def _peer(setup, loop, marks, moto_pid, log, work) -> tuple[dict, list, None]:
    path = sides.write(os.path.join(work, f"warm-{loop['handler']}.json"), loop["events"])
    argv = [setup.python, PEER_LOOP, setup.peer_dir, loop["handler"], path,
            ",".join(map(str, marks)), str(moto_pid), *([log] if log else [])]
    done = subprocess.run(argv, env=sides.peer_env(setup), stdin=subprocess.DEVNULL, capture_output=True)
    if done.returncode != 0:
        sys.stderr.write(done.stderr.decode(errors="replace")[-2000:])
        raise SystemExit(f"peer warm loop {loop['handler']} failed")
    data = json.loads(done.stdout.decode().strip().splitlines()[-1])
    return {int(k): v for k, v in data["readings"].items()}, data["statuses"], None


def _prepare(setup: sides.Setup, moto, plan: dict) -> None:
    procs.moto_reset(moto)
    sides.fixtures(setup)
    sides.put_users(setup, plan["users"])


def run(setup: sides.Setup, moto, n: int, rounds: int, work: str, terminator=None,
        recorder=None) -> dict:
    """Per side (swift, python), per phase: the medians over the rounds. With the floor's
    `recorder` also the exchange floor of our loops: their requests captured in one more run
    of ours, then replayed through libcurl once per round, moto reset and seeded each time."""
    plan, per_side = _plan(setup, n), {"swift": {}, "python": {}}
    for round_index in range(rounds):
        for side in ("swift", "python") if setup.peer_dir else ("swift",):  # no peer: python empty
            _prepare(setup, moto, plan)
            for loop in plan["loops"]:
                if side == "swift" or loop["handler"]:
                    figures = _loop(setup, side, loop, moto.proc.pid, work, terminator)
                    for phase, values in figures.items():
                        per_side[side].setdefault(phase, []).append(values)
            print(f"  warm round {round_index + 1}/{rounds} {side} done", file=sys.stderr, flush=True)
    result = {side: {phase: procs.medians(rows, [k for k, v in rows[0].items() if isinstance(v, (int, float))])
                     for phase, rows in phases.items()} for side, phases in per_side.items()}
    if recorder is None:
        return result
    _prepare(setup, moto, plan)
    captures = []
    for loop in plan["loops"]:
        record, offset = [], recorder.offset()
        _loop(recorder.capture_setup, "swift", loop, moto.proc.pid, work, record=record)
        captures.append(floor.Capture(record + recorder.read(offset), loop))
        print(f"  floor: captured {loop['function']}: {len(captures[-1].requests)} requests",
              file=sys.stderr, flush=True)
    per_phase = {}
    for _ in range(rounds):
        _prepare(setup, moto, plan)
        for loop, capture in zip(plan["loops"], captures):
            spans = {name: (capture.marks[start], capture.marks[end], end - start)
                     for name, start, end, _ in loop["phases"]}
            path = os.path.join(work, f"replay-{loop['function']}.txt")
            api = RuntimeAPI(loop["events"])  # the Runtime API's side of the replay
            try:
                replayed = floor.replay(setup, capture, spans, path, f"http://{api.address}")
            finally:
                api.stop()
            for phase, figures in replayed.items():
                per_phase.setdefault(phase, []).append(figures)
    result["floor"] = {phase: floor.medians(rows) for phase, rows in per_phase.items()}
    return result
