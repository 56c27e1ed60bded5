"""The processes the bench starts and measures, and their statistics. Standard library only:
peer_warm_loop.py imports it beside the peer's modules. Peak RSS and CPU come from GNU time,
which forks the command from its own small process: wait4's ru_maxrss of a child Python spawns
holds the Python process's high-water mark (the kernel keeps the pre-exec peak), so a 5 MB
program would show as 78 MB."""

import json, math, os, re, statistics, subprocess, sys, tempfile, time, urllib.request
from collections import namedtuple

BENCH = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # scripts/bench


def say(text: str) -> None:
    """Progress, on standard error (standard output carries the report)."""
    print(text, file=sys.stderr, flush=True)


def summary(values: list[float]) -> dict:
    """Median, nearest-rank p90, min and max."""
    if not values:
        return {"n": 0}
    ordered = sorted(values)
    return {"n": len(values), "median": statistics.median(values),
            "p90": ordered[max(0, math.ceil(0.9 * len(ordered)) - 1)], "min": min(values),
            "max": max(values)}


def medians(rows: list[dict], keys, rows_as="rounds", firsts=("tls", "first_calls")) -> dict:
    """Repeats of one measurement: the median of each of `keys`, the first repeat's `firsts`
    (counts, the same in every repeat), and every repeat under `rows_as`."""
    return {**{key: statistics.median([row[key] for row in rows if key in row]) for key in keys},
            rows_as: rows, **{key: rows[0][key] for key in firsts if key in rows[0]}}


def last_json(stdout: bytes):
    """A process's answer: its last non-blank line of output."""
    return json.loads([line for line in stdout.decode().splitlines() if line.strip()][-1])


def cpu_seconds(pid: int) -> float:
    """utime + stime of a live process."""
    with open(f"/proc/{pid}/stat") as fh:
        fields = fh.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def settled_size(path: str, quiet: float = 0.02, limit: float = 1.0) -> int:
    """The size of `path` once it has not grown for `quiet` seconds (or after `limit`)."""
    deadline, last, since = time.monotonic() + limit, -1, time.monotonic()
    while time.monotonic() < deadline:
        size = os.path.getsize(path) if os.path.exists(path) else 0
        if size != last:
            last, since = size, time.monotonic()
        elif time.monotonic() - since >= quiet:
            break
        time.sleep(0.002)
    return last


def reading(pid: int, moto_pid: int, log: str | None = None) -> list:
    """At a mark, the measured process idle: [time, its CPU, moto's CPU], and with `log` (the
    HTTPS mode's access log) its size, read first and once it holds: nginx logs a request just
    after answering it, so a client can ask for its next event before the line is there."""
    size = [settled_size(log)] if log else []
    return [time.perf_counter(), cpu_seconds(pid), cpu_seconds(moto_pid), *size]


ChildRun = namedtuple("ChildRun", "first_line_s exit_s cpu_s max_rss_kib returncode stdout stderr")


class Timed:
    """A command under GNU time; `usage()`, once it ended: (peak RSS KiB, CPU seconds)."""

    def __init__(self, argv: list[str]):
        handle, self.path = tempfile.mkstemp(prefix="bench-usage-")
        os.close(handle)
        self.argv = ["/usr/bin/time", "-f", "%M %U %S", "-o", self.path, *argv]

    def usage(self) -> tuple[int, float]:
        with open(self.path) as fh:
            rss, user, system = [line for line in fh if line.strip()][-1].split()
        os.unlink(self.path)
        return int(rss), float(user) + float(system)

    def start(self, env: dict[str, str]) -> tuple[subprocess.Popen, int]:
        """Starts it in the background: GNU time's process and the command's own pid."""
        proc = subprocess.Popen(self.argv, env=env, stdin=subprocess.DEVNULL,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for _ in range(500):
            with open(f"/proc/{proc.pid}/task/{proc.pid}/children") as fh:
                children = fh.read().split()
            if children:
                return proc, int(children[0])
            time.sleep(0.01)
        raise RuntimeError(f"process {proc.pid} started no child")

    def run(self, stdin_path: str, env: dict[str, str], cwd: str) -> ChildRun:
        """Runs it to its end, the file at stdin_path its standard input: wall time to its first
        stdout line and to its exit, its own CPU and peak RSS, and what it wrote."""
        with open(stdin_path, "rb") as stdin:
            started = time.perf_counter()
            proc = subprocess.Popen(self.argv, stdin=stdin, stdout=subprocess.PIPE,
                                    stderr=subprocess.PIPE, env=env, cwd=cwd)
            with proc.stdout, proc.stderr:
                first = proc.stdout.readline()
                first_s = time.perf_counter() - started if first else None
                rest, err = proc.stdout.read(), proc.stderr.read()
                proc.wait()
                exit_s = time.perf_counter() - started
        rss, cpu = self.usage()
        return ChildRun(first_s, exit_s, cpu, rss, proc.returncode, first + rest, err)


def stop(proc: subprocess.Popen) -> None:
    """Terminates `proc` if it still runs, then kills it after 10 s."""
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def started(proc: subprocess.Popen, ready, what: str, limit: float = 600) -> bool:
    """Waits until `ready()` holds (True; an OSError is not yet) or `proc` exits (False). Past
    `limit` seconds it is a hang, not a slow machine: `proc` is stopped, the bench ends."""
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline and proc.poll() is None:
        try:
            if ready():
                return True
        except OSError:
            pass
        time.sleep(0.05)
    if proc.poll() is None:
        stop(proc)
        raise SystemExit(f"{what} did not answer within {limit:.0f} s")
    return False


class Server:
    """moto or the fake Google, on 127.0.0.1: on a port the kernel picked and the child
    announced in its log (werkzeug's words), so no other listener can take it in between."""

    def __init__(self, name: str, script: str, arguments: list[str], probe: str, log_dir: str):
        log = os.path.join(log_dir, f"{name}.log")
        with open(log, "wb") as out:
            argv = [sys.executable, os.path.join(BENCH, script), *arguments]
            self.proc = subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT,
                                         stdin=subprocess.DEVNULL)

        def ready() -> bool:
            with open(log, "rb") as fh:
                port = re.search(rb"Running on http://127\.0\.0\.1:(\d+)", fh.read())
            if port:
                self.port, self.url = int(port[1]), f"http://127.0.0.1:{int(port[1])}"
                self.call(probe, timeout=5)
            return bool(port)
        if not started(self.proc, ready, f"{name} (its log: {log})"):
            raise SystemExit(f"{name} exited at start; its log is {log}")

    def cpu_seconds(self) -> float:
        return cpu_seconds(self.proc.pid)

    def call(self, path: str, method: str = "GET", timeout: float = 30) -> bytes:
        data = b"" if method == "POST" else None
        request = urllib.request.Request(self.url + path, method=method, data=data)
        return urllib.request.urlopen(request, timeout=timeout).read()


def start_servers(log_dir: str) -> tuple[Server, Server]:
    """moto as the tests run it (scripts/moto-server.py: one request at a time, and why), and
    the bench's fake Google."""
    moto = ["-H", "127.0.0.1", "-p", "0"]
    return (Server("moto", "../moto-server.py", moto, "/moto-api/", log_dir),
            Server("fake-google", "benchlib/fake_google.py", [], "/stats", log_dir))
