"""The peers both sides talk to: one moto_server and one fake Google, on free loopback ports,
stopped by their own PIDs."""

from __future__ import annotations

import os
import shutil
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


def _wait_until_answers(url: str, proc: subprocess.Popen, what: str, log: str) -> None:
    for _ in range(600):
        if proc.poll() is not None:
            raise SystemExit(f"{what} exited at start; its log is {log}")
        try:
            urllib.request.urlopen(url, timeout=1).read()
            return
        except OSError:
            time.sleep(0.1)
    raise SystemExit(f"{what} did not answer on {url}; its log is {log}")


class Server:
    """A child process serving on 127.0.0.1:port."""

    def __init__(self, name: str, argv: list[str], port: int, probe_path: str, log_dir: str):
        self.name, self.port = name, port
        self.url = f"http://127.0.0.1:{port}"
        self.log = os.path.join(log_dir, f"{name}.log")
        with open(self.log, "wb") as out:
            self.proc = subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        _wait_until_answers(self.url + probe_path, self.proc, name, self.log)

    def cpu_seconds(self) -> float:
        return cpu_seconds(self.proc.pid)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def start_moto(log_dir: str) -> Server:
    port = free_port()
    exe = shutil.which("moto_server")
    argv = [exe, "-H", "127.0.0.1", "-p", str(port)] if exe else [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)]
    return Server("moto", argv, port, "/moto-api/", log_dir)


def start_fake_google(python: str, peer_dir: str, log_dir: str) -> Server:
    """The peer's fake token endpoint (tools/fake_google.py), run as its own process."""
    port = free_port()
    argv = [python, os.path.join(peer_dir, "tools", "fake_google.py"), "--host", "127.0.0.1", "--port", str(port)]
    return Server("fake-google", argv, port, "/stats", log_dir)


def fake_google_stats(google: Server, reset: bool = False) -> dict:
    import json
    url = f"{google.url}/stats" + ("?reset=1" if reset else "")
    return json.loads(urllib.request.urlopen(url, timeout=10).read())


def moto_reset(moto: Server) -> None:
    request = urllib.request.Request(f"{moto.url}/moto-api/reset", method="POST", data=b"")
    urllib.request.urlopen(request, timeout=30).read()
