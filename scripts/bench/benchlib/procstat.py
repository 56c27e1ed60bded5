"""Process measurements: CPU seconds from /proc/PID/stat, and a child's wall time, first
stdout line, CPU and peak RSS.

Peak RSS and CPU come from GNU time (`/usr/bin/time`), which forks the measured command from
its own small process: a child that Python spawns directly inherits the Python process's
high-water mark in wait4's ru_maxrss (the kernel keeps the pre-exec memory's peak, and a
vfork'ed child's is the parent's), so a 5 MB program would show as 78 MB."""

import os
import subprocess
import tempfile
import time
from dataclasses import dataclass

GNU_TIME = "/usr/bin/time"
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    """utime + stime of a live process."""
    with open(f"/proc/{pid}/stat") as fh:
        fields = fh.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS


@dataclass
class ChildRun:
    first_line_s: float | None
    exit_s: float
    cpu_s: float
    max_rss_kib: int
    returncode: int
    stdout: bytes
    stderr: bytes


class Measured:
    """A command run under GNU time; `usage()` reads its peak RSS and CPU once it ended."""

    def __init__(self, argv: list[str]):
        handle, self.path = tempfile.mkstemp(prefix="bench-usage-")
        os.close(handle)
        self.argv = [GNU_TIME, "-f", "%M %U %S", "-o", self.path, *argv]

    def usage(self) -> tuple[int, float]:
        """(peak RSS KiB, CPU seconds) of the command."""
        with open(self.path) as fh:
            last = [line for line in fh.read().splitlines() if line.strip()][-1]
        os.unlink(self.path)
        rss, user, system = last.split()
        return int(rss), float(user) + float(system)


def child_pid(pid: int) -> int:
    """The one child of `pid` (the command GNU time started), waiting for it to appear."""
    for _ in range(500):
        try:
            with open(f"/proc/{pid}/task/{pid}/children") as fh:
                children = fh.read().split()
        except OSError:
            children = []
        if children:
            return int(children[0])
        time.sleep(0.01)
    raise RuntimeError(f"process {pid} started no child")


def run_child(argv: list[str], stdin_path: str, env: dict[str, str], cwd: str) -> ChildRun:
    """Runs one process to its end, the file at stdin_path its standard input: wall time to its
    first stdout line and to its exit, its own CPU and peak RSS, and what it wrote."""
    measured = Measured(argv)
    with open(stdin_path, "rb") as stdin:
        started = time.perf_counter()
        proc = subprocess.Popen(measured.argv, stdin=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                env=env, cwd=cwd)
        with proc.stdout, proc.stderr:
            first = proc.stdout.readline()
            first_s = time.perf_counter() - started if first else None
            rest, err = proc.stdout.read(), proc.stderr.read()
            proc.wait()
            exit_s = time.perf_counter() - started
    rss, cpu = measured.usage()
    return ChildRun(first_s, exit_s, cpu, rss, proc.returncode, first + rest, err)
