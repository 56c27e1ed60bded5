"""Warm invocations: one long-lived process answers many events. Ours runs its real Lambda
Runtime API loop against a scripted Runtime API; the peer runs an in-process loop over its
lambda_handler (peer_warm_loop.py). Both are measured alike: the process's own CPU and the time
between two marks where it is idle (procs.reading), divided by the calls between them."""

import json, os, signal, subprocess, sys, threading, time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from . import floor, procs, sides
from .tls import total

WARMUP, SCHEDULED_CALLS = 3, 20  # each scheduled call lists every grant: a few are enough
ARN = "arn:aws:lambda:us-east-1:123456789012:function:bench"


class RuntimeAPI(ThreadingHTTPServer):
    """A scripted Lambda Runtime API on loopback: hands out `events` through /invocation/next,
    takes /response and /error, and takes a procs.reading of the served process (`pid`) when it
    asks for event number k in `marks`. With `record` it appends each request it takes there, as
    the floor's relay records them. After the last event it holds the next request until stopped."""
    daemon_threads = True

    def __init__(self, events: list, marks=(), moto_pid=0, log=None, record: list | None = None):
        super().__init__(("127.0.0.1", 0), RuntimeHandler)
        self.events = [json.dumps(event).encode() for event in events]
        self.marks, self.moto_pid, self.log, self.record = set(marks), moto_pid, log, record
        self.readings, self.statuses, self.errors = {}, [], []
        self.pid, self.next, self.lock = None, 0, threading.Lock()
        self.finished, self.stopping = threading.Event(), threading.Event()
        self.address = f"127.0.0.1:{self.server_address[1]}"
        threading.Thread(target=self.serve_forever, daemon=True).start()

    def __exit__(self, *_) -> None:  # `with RuntimeAPI(...) as api:` serves until the block ends
        self.stopping.set()
        self.shutdown()
        self.server_close()


class RuntimeHandler(BaseHTTPRequestHandler):
    protocol_version, disable_nagle_algorithm = "HTTP/1.1", True

    def log_message(self, *args):
        pass

    def _reply(self, status: int, body: bytes = b"", headers: dict | None = None) -> None:
        self.send_response(status)
        for name, value in {**(headers or {}), "Content-Length": str(len(body))}.items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)

    def _take(self) -> bytes:
        arrived, api = time.monotonic(), self.server
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        if api.record is not None:
            api.record.append({"t": arrived, "endpoint": "runtime", "method": self.command,
                               "target": self.path, "headers": self.headers.items(), "body": body})
        return body

    def do_GET(self):
        self._take()
        api = self.server
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
            "Content-Type": "application/json",
            "Lambda-Runtime-Aws-Request-Id": f"bench-{index:06d}",
            "Lambda-Runtime-Deadline-Ms": str(int(time.time() * 1000) + 900_000),
            "Lambda-Runtime-Invoked-Function-Arn": ARN,
            "Lambda-Runtime-Trace-Id": f"Root=1-00000000-{index:024d};Sampled=0"})

    def do_POST(self):
        body, api = self._take(), self.server
        if self.path.endswith("/response"):
            try:  # an API answer's status; for others (a direct invocation's): "error" or "ok"
                answer = json.loads(body)
                other = "error" if "error" in answer else "ok"
                api.statuses.append(answer.get("statusCode", other))
            except (ValueError, AttributeError):
                api.statuses.append(None)
        elif self.path.endswith("/error"):
            api.errors.append(body.decode(errors="replace")[:300])
        else:
            return self._reply(404)
        self._reply(202, b'{"status":"OK"}', {"Content-Type": "application/json"})


class Warm:
    def __init__(self, setup: sides.Setup, moto: procs.Server, n: int, work: str, terminator=None):
        self.setup, self.moto, self.work, self.terminator = setup, moto, work, terminator
        users = [f"warm-{i:05d}" for i in range(n)]
        warm_users = [f"warm-up-{i}" for i in range(WARMUP)]
        self.users, everyone = users + warm_users, warm_users + users
        setup.mint(self.users)
        store = [setup.event("POST", u) for u in warm_users] + [
            setup.event("POST", u, token) for token in ("ya29.first", "ya29.second") for u in users]
        # Ours alone (the peer has no such handler): fresh-token for the users the store loop
        # connected (none due: a read), and the scheduled refresh with nothing due (the listing).
        scheduled, end = [sides.SCHEDULED] * (WARMUP + min(n, SCHEDULED_CALLS)), WARMUP + n
        self.loops = [  # events, and phases: (name, first index, end index, expected status)
            {"function": "store-tokens", "peer": True, "events": store,
             "phases": [("store-tokens, new users", WARMUP, end, 201),
                        ("store-tokens, same users", end, end + n, 201)]},
            {"function": "user-profile", "peer": True,
             "events": [setup.event("GET", u) for u in everyone],
             "phases": [("user-profile", WARMUP, end, 200)]},
            {"function": "fresh-token", "peer": False, "events": [{"user_id": u} for u in everyone],
             "phases": [("fresh-token (ours alone), not due", WARMUP, end, "ok")]},
            {"function": "token-refresh", "peer": False, "events": scheduled,
             "phases": [("token-refresh (ours alone), nothing due", WARMUP, len(scheduled), "ok")]}]

    def _figures(self, readings: dict, phase: tuple, statuses: list, terminator, log_start) -> dict:
        """With the HTTPS mode's terminator also the phase's new TLS handshakes and requests per
        endpoint, and for a loop's first phase those of the process's first invocation and of
        the next ones before the phase."""
        name, start, end, expected = phase
        if bad := [s for s in statuses[start:end] if s != expected]:
            raise SystemExit(f"warm {name}: {len(bad)} responses not {expected}, e.g. {bad[:3]}")
        (t0, c0, m0), (t1, c1, m1), calls = readings[start][:3], readings[end][:3], end - start
        figures = {"calls": calls, "per_second": calls / (t1 - t0),
                   "cpu_ms_per_call": (c1 - c0) * 1000 / calls,
                   "moto_cpu_ms_per_call": (m1 - m0) * 1000 / calls}
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

    def loop(self, side: str, loop: dict, setup: sides.Setup | None = None, record=None) -> dict:
        """One process of `side` through `loop`'s events: per phase, its figures. With `record`
        (the floor's capture, through the relay's unlogged ports) no handshakes are counted."""
        terminator = self.terminator if record is None else None
        marks = {i for phase in loop["phases"] for i in phase[1:3]} | ({1} if terminator else set())
        log = terminator and terminator.log
        log_start = terminator.log_size() if terminator else None
        if side == "swift":
            readings, statuses, rss = self._swift(setup or self.setup, loop, marks, log, record)
        else:
            readings, statuses, rss = self._peer(loop, sorted(marks), log)
        result = {phase[0]: self._figures(readings, phase, statuses, terminator, log_start)
                  for phase in loop["phases"]}
        for figures in result.values() if rss else ():
            figures["peak_rss_mib"] = rss / 1024
        return result

    def _swift(self, setup, loop, marks, log, record) -> tuple[dict, list, int]:
        timed = procs.Timed(setup.command("swift", loop["function"]))
        with RuntimeAPI(loop["events"], marks, self.moto.proc.pid, log, record) as api:
            proc, api.pid = timed.start(setup.swift_env(extra={
                "AWS_LAMBDA_RUNTIME_API": api.address, "AWS_LAMBDA_FUNCTION_NAME": loop["function"],
                "AWS_LAMBDA_FUNCTION_MEMORY_SIZE": "512"}))
            try:
                while not api.finished.wait(1):
                    if proc.poll() is not None:
                        raise SystemExit(f"warm {loop['function']}: exited with {proc.returncode}")
                os.kill(api.pid, signal.SIGTERM)  # the function; GNU time then reports and exits
                proc.wait(timeout=30)
            finally:
                if proc.poll() is None:
                    os.kill(api.pid, signal.SIGKILL)
                    proc.wait()
        if api.errors:
            raise SystemExit(f"warm {loop['function']}: /error posts: {api.errors[:2]}")
        return api.readings, api.statuses, timed.usage()[0]

    def _peer(self, loop, marks, log) -> tuple[dict, list, None]:
        handler = loop["function"].replace("-", "_")
        path = sides.write(os.path.join(self.work, f"warm-{handler}.json"), loop["events"])
        argv = [self.setup.python, os.path.join(procs.BENCH, "peer_warm_loop.py"),
                self.setup.peer_dir, handler, path, ",".join(map(str, marks)),
                str(self.moto.proc.pid), *([log] if log else [])]
        done = subprocess.run(argv, env=self.setup.peer_env(), stdin=subprocess.DEVNULL,
                              capture_output=True)
        if done.returncode != 0:
            sys.stderr.write(done.stderr.decode(errors="replace")[-2000:])
            raise SystemExit(f"peer warm loop {handler} failed")
        data = procs.last_json(done.stdout)
        return {int(k): v for k, v in data["readings"].items()}, data["statuses"], None

    def _prepare(self) -> None:
        self.moto.call("/moto-api/reset", "POST")
        self.setup.fixtures(self.users)

    def run(self, rounds: int) -> dict:
        """Per side (swift, python), per phase: the medians over the rounds."""
        per_side = {"swift": {}, "python": {}}  # no peer: python stays empty
        for round_index in range(rounds):
            for side in ("swift", "python") if self.setup.peer_dir else ("swift",):
                self._prepare()
                for loop in (loop for loop in self.loops if side == "swift" or loop["peer"]):
                    for phase, figures in self.loop(side, loop).items():
                        per_side[side].setdefault(phase, []).append(figures)
                procs.say(f"  warm round {round_index + 1}/{rounds} {side} done")
        return {side: {phase: procs.medians(rows, [k for k, v in rows[0].items()
                                                   if isinstance(v, (int, float))])
                       for phase, rows in phases.items()} for side, phases in per_side.items()}

    def floor(self, rounds: int, recorder: floor.Recorder) -> dict:
        """The exchange floor of our loops: their requests captured in one more run of ours, then
        replayed through libcurl once per round, moto reset and seeded each time."""
        self._prepare()
        captures = []
        for loop in self.loops:
            record, offset = [], recorder.offset()
            self.loop("swift", loop, recorder.capture_setup, record)
            captures.append(capture := floor.Capture(record + recorder.read(offset), loop))
            procs.say(f"  floor: captured {loop['function']}: {len(capture.requests)} requests")
        per_phase = {}
        for _ in range(rounds):
            self._prepare()
            for loop, capture in zip(self.loops, captures):
                spans = {name: (capture.marks[start], capture.marks[end], end - start)
                         for name, start, end, _ in loop["phases"]}
                path = os.path.join(self.work, f"replay-{loop['function']}.txt")
                with RuntimeAPI(loop["events"]) as api:  # the Runtime API's side of the replay
                    replayed = floor.replay(self.setup, capture, spans, path,
                                            f"http://{api.address}")
                for phase, figures in replayed.items():
                    per_phase.setdefault(phase, []).append(figures)
        return {phase: floor.medians(rows) for phase, rows in per_phase.items()}
