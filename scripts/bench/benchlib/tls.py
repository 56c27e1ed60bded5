"""The HTTPS mode (`run.py --tls`): moto and the fake Google behind nginx (run as the current
user, its files in the run's folder) with a certificate for 127.0.0.1 from a CA made here,
keeping client connections open as AWS's and Google's endpoints do (moto closes every one).
A request that is its connection's first in nginx's access log is one new TLS handshake."""

import os, shutil, socket, subprocess

from . import procs

# What the access log says per request (the first four are read back).
LOG_FORMAT = ("$server_port $connection $connection_requests $ssl_session_reused $msec "
              "$request_method $status")
SERVER_EXT = ("subjectAltName=IP:127.0.0.1\nbasicConstraints=CA:FALSE\n"
              "keyUsage=critical,digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth\n")


def make_ca(directory: str) -> tuple[str, str, str]:
    """A CA (ca.pem) and a server certificate for IP 127.0.0.1 it signed (server.pem, .key)."""
    os.makedirs(directory, exist_ok=True)
    ca_key, ca, key, request, cert, ext = (os.path.join(directory, name) for name in (
        "ca.key", "ca.pem", "server.key", "server.csr", "server.pem", "server.ext"))
    with open(ext, "w") as fh:
        fh.write(SERVER_EXT)
    for arguments in (
            ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
             "-subj", "/CN=PayPulse benchmark CA", "-keyout", ca_key, "-out", ca],
            ["req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=127.0.0.1", "-keyout", key,
             "-out", request],
            ["x509", "-req", "-in", request, "-CA", ca, "-CAkey", ca_key, "-CAcreateserial",
             "-days", "2", "-extfile", ext, "-out", cert]):
        done = subprocess.run(["openssl", *arguments], capture_output=True, text=True)
        if done.returncode != 0:
            raise SystemExit(f"openssl {arguments[0]}: {done.stderr[-800:]}")
    return ca, cert, key


def _configuration(directory: str, cert: str, key: str, blocks: list[tuple]) -> str:
    """blocks: (listen port, upstream port, access log or None)."""
    lines = ["daemon off;", "master_process off;", "worker_processes 1;",
             f"pid {directory}/nginx.pid;", f"error_log {directory}/error.log warn;",
             "events { worker_connections 1024; }", "http {", f"    log_format tls '{LOG_FORMAT}';",
             *(f"    {kind}_temp_path {directory}/{kind};"
               for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")),
             # As AWS's and Google's front ends: a client's connection stays open between calls.
             "    keepalive_timeout 60s;", "    keepalive_requests 1000000;",
             "    client_max_body_size 16m;", f"    ssl_certificate {cert};",
             f"    ssl_certificate_key {key};", "    ssl_protocols TLSv1.2 TLSv1.3;"]
    for index, (port, upstream, log) in enumerate(blocks):
        lines += [f"    upstream u{index} {{ server 127.0.0.1:{upstream}; keepalive 16; }}",
                  f"    server {{ listen 127.0.0.1:{port} ssl;",
                  f"        access_log {log + ' tls' if log else 'off'};",
                  f"        location / {{ proxy_pass http://u{index}; proxy_http_version 1.1;",
                  '            proxy_set_header Connection ""; proxy_set_header Host $http_host;',
                  "            proxy_buffering off; } }"]
    return "\n".join(lines + ["}", ""])


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def total(counts: dict, key: str = "handshakes") -> int:
    return sum(entry[key] for entry in counts.values())


class Terminator:
    """One nginx: an HTTPS port per upstream (moto, the fake Google) whose requests are logged
    to access.log, and more (the floor's capture) logged nowhere."""

    def __init__(self, work: str, upstreams: dict[str, int], unlogged: dict[str, int]):
        self.directory = os.path.join(work, "nginx")
        os.makedirs(self.directory, exist_ok=True)
        self.ca, cert, key = make_ca(os.path.join(work, "ca"))
        self.log, targets = os.path.join(self.directory, "access.log"), upstreams | unlogged
        nginx = shutil.which("nginx") or "/usr/sbin/nginx"
        if not os.access(nginx, os.X_OK):
            raise SystemExit("nginx is missing: scripts/ensure-deps.sh --with-nginx installs it")
        configuration = os.path.join(self.directory, "nginx.conf")
        for _ in range(5):  # a port taken between the pick and nginx's bind: pick again
            ports = {name: _free_port() for name in targets}
            with open(configuration, "w") as fh:
                fh.write(_configuration(self.directory, cert, key, [
                    (ports[name], port, self.log if name in upstreams else None)
                    for name, port in targets.items()]))
            self.proc = subprocess.Popen([nginx, "-p", self.directory, "-c", configuration, "-e",
                                          os.path.join(self.directory, "error.log")],
                                         stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                         stderr=subprocess.DEVNULL)
            if self._listening(list(ports.values())):
                self.urls = {name: f"https://127.0.0.1:{port}" for name, port in ports.items()}
                self.names = {port: name for name, port in ports.items()}
                return
        with open(os.path.join(self.directory, "error.log"), errors="replace") as fh:
            raise SystemExit(f"nginx did not start: {fh.read()[-800:]}")

    def _listening(self, ports: list[int]) -> bool:
        def ready() -> bool:
            for port in ports:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return True
        return procs.started(self.proc, ready, "nginx", limit=10)

    def log_size(self) -> int:
        """The access log's size once it holds (procs.reading says why)."""
        return procs.settled_size(self.log)

    def handshakes(self, start: int, end: int) -> dict:
        """Requests and new connections (TLS handshakes; `resumed` of them abbreviated) in the
        access log between two of `log_size()`'s offsets, per endpoint name."""
        with open(self.log, "rb") as fh:
            fh.seek(start)
            lines = fh.read(max(0, end - start)).decode(errors="replace").splitlines()
        counts: dict = {}
        for fields in (line.split() for line in lines):
            if len(fields) >= 4:
                entry = counts.setdefault(self.names.get(int(fields[0]), fields[0]),
                                          {"requests": 0, "handshakes": 0, "resumed": 0})
                entry["requests"] += 1
                if fields[2] == "1":
                    entry["handshakes"] += 1
                    entry["resumed"] += fields[3] == "r"
        return counts
