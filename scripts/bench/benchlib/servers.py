"""The peers both sides talk to: one moto_server and one fake Google, on free loopback ports,
stopped by their own PIDs."""

import json
import os
import re
import socket
import subprocess
import sys
import time
import urllib.request

from .procstat import cpu_seconds


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


# A start-up slower than this is a hang, not a slow machine.
STARTUP_HANG_LIMIT_S = 600


def _announced_port(log: str) -> int | None:
    """The port in a "Running on http://127.0.0.1:PORT" line (werkzeug's, fake_google's), once written."""
    with open(log, "rb") as handle:
        match = re.search(rb"Running on http://127\.0\.0\.1:(\d+)", handle.read())
    return int(match.group(1)) if match else None


class Server:
    """A child process serving on 127.0.0.1. With port 0 the server binds a port the kernel
    picks and announces it in its log, so no other listener can take it in between."""

    def __init__(self, name: str, argv: list[str], port: int, probe_path: str, log_dir: str):
        self.name, self.port = name, port
        self.log = os.path.join(log_dir, f"{name}.log")
        with open(self.log, "wb") as out:
            self.proc = subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        self._wait_until_answers(probe_path)
        self.url = f"http://127.0.0.1:{self.port}"

    def _wait_until_answers(self, probe_path: str) -> None:
        """Waits until the server answers or exits."""
        deadline = time.monotonic() + STARTUP_HANG_LIMIT_S
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise SystemExit(f"{self.name} exited at start; its log is {self.log}")
            port = self.port or _announced_port(self.log)
            if port:
                try:
                    urllib.request.urlopen(f"http://127.0.0.1:{port}{probe_path}", timeout=5).read()
                    self.port = port
                    return
                except OSError:
                    pass
            time.sleep(0.05)
        self.stop()
        raise SystemExit(f"{self.name} did not answer within {STARTUP_HANG_LIMIT_S} s; its log is {self.log}")

    def cpu_seconds(self) -> float:
        return cpu_seconds(self.proc.pid)

    def stop(self) -> None:
        stop_process(self.proc)


def stop_process(proc: subprocess.Popen) -> None:
    """Terminates `proc` if it still runs, then kills it after 10 s."""
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def start_moto(log_dir: str) -> Server:
    """moto as the tests run it: one request at a time (scripts/moto-server.py says why)."""
    launcher = os.path.join(os.path.dirname(__file__), "..", "..", "moto-server.py")
    return Server("moto", [sys.executable, launcher, "-H", "127.0.0.1", "-p", "0"], 0, "/moto-api/", log_dir)


def start_fake_google(log_dir: str) -> Server:
    """The bench's own fake token endpoint (fake_google.py beside this file), a process of its own."""
    fake = os.path.join(os.path.dirname(__file__), "fake_google.py")
    return Server("fake-google", [sys.executable, fake], 0, "/stats", log_dir)


def fake_google_stats(google: Server, reset: bool = False) -> dict:
    url = f"{google.url}/stats" + ("?reset=1" if reset else "")
    return json.loads(urllib.request.urlopen(url, timeout=10).read())


def moto_reset(moto: Server) -> None:
    request = urllib.request.Request(f"{moto.url}/moto-api/reset", method="POST", data=b"")
    urllib.request.urlopen(request, timeout=30).read()
