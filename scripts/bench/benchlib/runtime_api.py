"""A scripted Lambda Runtime API on loopback: hands out a fixed list of events through
/2018-06-01/runtime/invocation/next, takes /response and /error, and notes the served
process's CPU, a peer's CPU (moto's) and the time whenever it asks for event number k in
`marks` (it is then idle, waiting), with `extra_reading()` when given (the HTTPS mode's
access-log offset). With `record` it appends each request it takes (method, path, headers,
body, the CLOCK_MONOTONIC time it arrived) there: the exchange floor's capture. After the
last event it holds the next request until stopped."""

import base64
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from .procstat import cpu_seconds

PREFIX = "/2018-06-01/runtime"


class ScriptedRuntimeAPI:
    def __init__(self, event_bodies: list[bytes], marks: list[int], peer_pid: int, extra_reading=None, record: list | None = None):
        self.events = event_bodies
        self.marks = set(marks)
        self.peer_pid = peer_pid
        self.readings: dict[int, tuple] = {}
        self.extra_reading, self.record = extra_reading, record
        self.statuses: list[int | None] = []
        self.errors: list[str] = []
        self.pid: int | None = None
        self.finished = threading.Event()
        self._stop = threading.Event()
        self._next = 0
        self._lock = threading.Lock()
        api = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            disable_nagle_algorithm = True

            def log_message(self, *args):
                pass

            def _note(self, arrived: float, body: bytes = b"") -> None:
                if api.record is not None:
                    api.record.append({"t": arrived, "endpoint": "runtime", "method": self.command, "target": self.path,
                                       "headers": [[k, v] for k, v in self.headers.items()], "body": base64.b64encode(body).decode()})

            def _reply(self, status: int, body: bytes = b"", headers: dict[str, str] | None = None) -> None:
                self.send_response(status)
                for name, value in (headers or {}).items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_GET(self):
                self._note(time.monotonic())
                if self.path != f"{PREFIX}/invocation/next":
                    return self._reply(404)
                with api._lock:
                    index = api._next
                    api._next += 1
                if index in api.marks and api.pid is not None:
                    extra = api.extra_reading() if api.extra_reading else None  # first: it may wait for a quiet log
                    api.readings[index] = (time.perf_counter(), cpu_seconds(api.pid), cpu_seconds(api.peer_pid), extra)
                if index >= len(api.events):
                    api.finished.set()
                    api._stop.wait()
                    self.close_connection = True  # the process is gone by now: answer nothing
                    return
                deadline = int(time.time() * 1000) + 900_000
                self._reply(200, api.events[index], {
                    "Content-Type": "application/json", "Lambda-Runtime-Aws-Request-Id": f"bench-{index:06d}",
                    "Lambda-Runtime-Deadline-Ms": str(deadline),
                    "Lambda-Runtime-Invoked-Function-Arn": "arn:aws:lambda:us-east-1:123456789012:function:bench",
                    "Lambda-Runtime-Trace-Id": f"Root=1-00000000-{index:024d};Sampled=0"})

            def do_POST(self):
                arrived = time.monotonic()
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                self._note(arrived, body)
                if self.path.endswith("/response"):
                    try:  # an API answer's status; for others (a direct invocation's): "error" or "ok"
                        answer = json.loads(body)
                        api.statuses.append(answer.get("statusCode", "error" if "error" in answer else "ok"))
                    except (ValueError, AttributeError):
                        api.statuses.append(None)
                elif self.path.endswith("/error"):
                    api.errors.append(body.decode(errors="replace")[:300])
                else:
                    return self._reply(404)
                self._reply(202, b'{"status":"OK"}', {"Content-Type": "application/json"})

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.address = f"127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def stop(self) -> None:
        self._stop.set()
        self.server.shutdown()
        self.server.server_close()
