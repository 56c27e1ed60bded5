"""The processes the bench starts and measures, and the statistics it takes of them. Standard
library only: peer_warm_loop.py imports it beside the peer's own modules.

Peak RSS and CPU of a child come from GNU time, which forks the measured command from its own
small process: a child that Python spawns directly inherits the Python process's high-water
mark in wait4's ru_maxrss (the kernel keeps the pre-exec memory's peak, and a vfork'ed child's
is the parent's), so a 5 MB program would show as 78 MB."""

import json, math, os, re, statistics, subprocess, sys, tempfile, time, urllib.request
from dataclasses import dataclass

BENCH = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # scripts/bench


def percentile(values: list[float], p: float) -> float:
    """Nearest rank."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(p / 100 * len(ordered)) - 1)] if ordered else float("nan")


def summary(values: list[float]) -> dict:
    if not values:
        return {"n": 0}
    return {"n": len(values), "median": statistics.median(values),
            "p90": percentile(values, 90), "min": min(values), "max": max(values)}


def medians(rows: list[dict], keys, rows_as: str = "rounds", firsts=("tls", "first_calls")) -> dict:
    """Repeats of one measurement: the median of each of `keys`, the first repeat's `firsts`
    (counts, the same in every repeat), and every repeat under `rows_as`."""
    return {**{key: statistics.median([row[key] for row in rows if key in row]) for key in keys},
            rows_as: rows, **{key: rows[0][key] for key in firsts if key in rows[0]}}


def last_json(stdout: bytes):
    """A process's answer: its last non-blank line of output, as JSON."""
    return json.loads([line for line in stdout.decode(errors="replace").splitlines() if line.strip()][-1])


def cpu_seconds(pid: int) -> float:
    """utime + stime of a live process."""
    with open(f"/proc/{pid}/stat") as fh:
        fields = fh.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def settled_size(path: str, quiet: float = 0.02, limit: float = 1.0) -> int:
    """The size of `path` once it has not grown for `quiet` seconds (or after `limit`)."""
    def size() -> int:
        try:
            return os.path.getsize(path)
        except OSError:
            return 0
    deadline, last, since = time.monotonic() + limit, size(), time.monotonic()
    while time.monotonic() < deadline:
        time.sleep(0.002)
        now = size()
        if now != last:
            last, since = now, time.monotonic()
        elif time.monotonic() - since >= quiet:
            break
    return last


def reading(pid: int, moto_pid: int, log: str | None = None) -> list:
    """At a mark, the measured process idle: [time, its CPU, moto's CPU], and with `log` (the
    HTTPS mode's access log) its size, read first: nginx writes a request's line just after the
    answer, so on a loaded machine a client can ask for its next event before the line is there,
    and the size is taken once it holds."""
    size = [settled_size(log)] if log else []
    return [time.perf_counter(), cpu_seconds(pid), cpu_seconds(moto_pid), *size]


@dataclass
class ChildRun:
    first_line_s: float | None
    exit_s: float
    cpu_s: float
    max_rss_kib: int
    returncode: int
    stdout: bytes
    stderr: bytes


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
            try:
                with open(f"/proc/{proc.pid}/task/{proc.pid}/children") as fh:
                    children = fh.read().split()
            except OSError:
                children = []
            if children:
                return proc, int(children[0])
            time.sleep(0.01)
        raise RuntimeError(f"process {proc.pid} started no child")


def run_child(argv: list[str], stdin_path: str, env: dict[str, str], cwd: str) -> ChildRun:
    """Runs one process to its end, the file at stdin_path its standard input: wall time to its
    first stdout line and to its exit, its own CPU and peak RSS, and what it wrote."""
    timed = Timed(argv)
    with open(stdin_path, "rb") as stdin:
        started = time.perf_counter()
        proc = subprocess.Popen(timed.argv, stdin=stdin, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, env=env, cwd=cwd)
        with proc.stdout, proc.stderr:
            first = proc.stdout.readline()
            first_s = time.perf_counter() - started if first else None
            rest, err = proc.stdout.read(), proc.stderr.read()
            proc.wait()
            exit_s = time.perf_counter() - started
    rss, cpu = timed.usage()
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


def started(proc: subprocess.Popen, ready, limit: float, what: str) -> bool:
    """Waits until `ready()` holds (True) or `proc` exits (False); OSError from `ready` is not
    yet. Past `limit` seconds: a hang, not a slow machine; `proc` is stopped."""
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline and proc.poll() is None:
        try:
            if ready():
                return True
        except OSError:
            pass
        time.sleep(0.05)
    if proc.poll() is not None:
        return False
    stop(proc)
    raise SystemExit(f"{what} did not answer within {limit:.0f} s")


class Server:
    """A child serving on 127.0.0.1, on a port the kernel picked and the child announced in its
    log ("Running on http://127.0.0.1:PORT", werkzeug's words), so no other listener can take
    it in between; ready once `probe` answers."""

    def __init__(self, name: str, argv: list[str], probe: str, log_dir: str):
        log = os.path.join(log_dir, f"{name}.log")
        with open(log, "wb") as out:
            self.proc = subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT,
                                         stdin=subprocess.DEVNULL)

        def ready() -> bool:
            with open(log, "rb") as fh:
                port = re.search(rb"Running on http://127\.0\.0\.1:(\d+)", fh.read())
            if port:
                self.port = int(port[1])
                self.url = f"http://127.0.0.1:{self.port}"
                self.call(probe, timeout=5)
            return bool(port)
        if not started(self.proc, ready, 600, f"{name} (its log: {log})"):
            raise SystemExit(f"{name} exited at start; its log is {log}")

    def cpu_seconds(self) -> float:
        return cpu_seconds(self.proc.pid)

    def call(self, path: str, method: str = "GET", timeout: float = 30) -> bytes:
        request = urllib.request.Request(self.url + path, method=method,
                                         data=b"" if method == "POST" else None)
        return urllib.request.urlopen(request, timeout=timeout).read()

    def stop(self) -> None:
        stop(self.proc)


def start_moto(log_dir: str) -> Server:
    """moto as the tests run it: one request at a time (scripts/moto-server.py says why)."""
    argv = [sys.executable, os.path.join(BENCH, "..", "moto-server.py"), "-H", "127.0.0.1", "-p", "0"]
    return Server("moto", argv, "/moto-api/", log_dir)


def start_fake_google(log_dir: str) -> Server:
    fake = os.path.join(BENCH, "benchlib", "fake_google.py")
    return Server("fake-google", [sys.executable, fake], "/stats", log_dir)


def moto_reset(moto: Server) -> None:
    moto.call("/moto-api/reset", "POST")


def google_stats(google: Server, reset: bool = False) -> dict:
    """The fake Google's /token outcomes so far (then zeroed, with `reset`)."""
    return json.loads(google.call("/stats" + ("?reset=1" if reset else "")))
