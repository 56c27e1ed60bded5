"""Warm invocations: one long-lived process answers many events. Ours runs its real Lambda
Runtime API loop against a scripted Runtime API; the peer runs an in-process loop over its
lambda_handler (peer_warm_loop.py). Both are measured the same way: the process's own CPU
(utime + stime) and the time between two points where it is idle, divided by the calls.
Ours also runs fresh-token and the scheduled refresh (nothing due) warm, which the peer has
no handler for. In the HTTPS mode each phase also counts the new TLS handshakes at nginx
(benchlib/tls.py), and with the floor kit our loops' requests are recorded and replayed
(benchlib/floor.py)."""

import json
import os
import signal
import subprocess
import sys

from . import events, seeding, sides
from .procstat import Measured, child_pid
from .runtime_api import ScriptedRuntimeAPI
from .servers import Server, moto_reset
from .stats import median

WARMUP = 3
SCHEDULED_CALLS = 20  # each lists every grant: a few are enough


def _plan(setup: sides.Setup, n: int) -> dict:
    """Per loop: the events and the phases (name, first index, end index, expected status)."""
    users = [f"warm-{i:05d}" for i in range(n)]
    warm_users = [f"warm-up-{i}" for i in range(WARMUP)]
    events.mint(setup, users + warm_users)
    store = ([events.store_tokens(u) for u in warm_users] + [events.store_tokens(u, "ya29.first") for u in users]
             + [events.store_tokens(u, "ya29.second") for u in users])
    profile = [events.user_profile(u) for u in warm_users] + [events.user_profile(u) for u in users]
    # Ours alone (the peer has no such handler): fresh-token for the users the store loop
    # connected (none due: a read), and the scheduled refresh with nothing due (the listing).
    fresh = [{"user_id": u} for u in warm_users + users]
    scheduled = [events.scheduled() for _ in range(WARMUP + min(n, SCHEDULED_CALLS))]
    return {
        "users": users + warm_users,
        "loops": [
            {"function": "store-tokens", "handler": "store_tokens", "events": store,
             "phases": [("store-tokens, new users", WARMUP, WARMUP + n, 201), ("store-tokens, same users", WARMUP + n, WARMUP + 2 * n, 201)]},
            {"function": "user-profile", "handler": "user_profile", "events": profile,
             "phases": [("user-profile", WARMUP, WARMUP + n, 200)]},
            {"function": "fresh-token", "handler": None, "events": fresh,
             "phases": [("fresh-token (ours alone), not due", WARMUP, WARMUP + n, "ok")]},
            {"function": "token-refresh", "handler": None, "events": scheduled,
             "phases": [("token-refresh (ours alone), nothing due", WARMUP, len(scheduled), "ok")]},
        ],
    }


def _phase_figures(readings: dict, phase: tuple, statuses: list, terminator=None, log_start: int | None = None) -> dict:
    """readings: index -> (seconds, process CPU, moto CPU[, the access log's size]). With the
    HTTPS mode's terminator: the phase's new TLS handshakes and requests per endpoint, and
    for a loop's first phase those of the process's first invocations (from `log_start`)."""
    name, start, end, expected = phase
    bad = [s for s in statuses[start:end] if s != expected]
    if bad:
        raise SystemExit(f"warm {name}: {len(bad)} responses not {expected}, e.g. {bad[:3]}")
    (t0, c0, m0), (t1, c1, m1) = readings[start][:3], readings[end][:3]
    calls = end - start
    figures = {"calls": calls, "per_second": calls / (t1 - t0), "cpu_ms_per_call": (c1 - c0) * 1000 / calls,
               "moto_cpu_ms_per_call": (m1 - m0) * 1000 / calls}
    if terminator is not None:
        tls = terminator.handshakes(readings[start][3], readings[end][3])
        figures["tls"] = tls
        figures["handshakes_per_call"] = sum(e["handshakes"] for e in tls.values()) / calls
        figures["tls_requests_per_call"] = sum(e["requests"] for e in tls.values()) / calls
        if log_start is not None and start == WARMUP:
            first = terminator.handshakes(log_start, readings[1][3])
            then = terminator.handshakes(readings[1][3], readings[start][3])
            figures["first_calls"] = {"calls": start, "tls": first, "handshakes": sum(e["handshakes"] for e in first.values()),
                                      "then_tls": then, "then_handshakes": sum(e["handshakes"] for e in then.values())}
    return figures


def _marks(loop: dict, terminator) -> list[int]:
    """The phases' ends, and with the terminator 1: the first invocation's handshakes apart."""
    return sorted({i for phase in loop["phases"] for i in phase[1:3]} | ({1} if terminator else set()))


def _swift_loop(setup: sides.Setup, loop: dict, moto_pid: int, terminator=None, record: list | None = None) -> dict:
    marks = _marks(loop, terminator)
    log_start = terminator.log_size() if terminator else None
    api = ScriptedRuntimeAPI([json.dumps(e).encode() for e in loop["events"]], marks, peer_pid=moto_pid,
                             extra_reading=terminator.log_size if terminator else None, record=record)
    env = sides.swift_env(setup, extra={"AWS_LAMBDA_RUNTIME_API": api.address, "AWS_LAMBDA_FUNCTION_NAME": loop["function"],
                                        "AWS_LAMBDA_FUNCTION_MEMORY_SIZE": "512"})
    measured = Measured(sides.swift_cmd(setup, loop["function"]))
    proc = subprocess.Popen(measured.argv, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    api.pid = child_pid(proc.pid)
    try:
        while not api.finished.wait(1):
            if proc.poll() is not None:
                raise SystemExit(f"warm {loop['function']}: the process exited with {proc.returncode}")
        os.kill(api.pid, signal.SIGTERM)  # the function itself; GNU time then reports and exits
        proc.wait(timeout=30)
        rss, _ = measured.usage()
    finally:
        if proc.poll() is None:
            os.kill(api.pid, signal.SIGKILL)
            proc.wait()
        api.stop()
    if api.errors:
        raise SystemExit(f"warm {loop['function']}: /error posts: {api.errors[:2]}")
    result = {phase[0]: _phase_figures(api.readings, phase, api.statuses, terminator, log_start) for phase in loop["phases"]}
    for figures in result.values():
        figures["peak_rss_mib"] = rss / 1024
    return result


def _peer_loop(setup: sides.Setup, loop: dict, work: str, moto_pid: int, terminator=None) -> dict:
    path = os.path.join(work, f"warm-{loop['handler']}.jsonl")
    with open(path, "w") as fh:
        for event in loop["events"]:
            fh.write(json.dumps(event) + "\n")
    marks = _marks(loop, terminator)
    argv = [setup.python, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "peer_warm_loop.py"),
            "--peer", setup.peer_dir, "--handler", loop["handler"], "--events", path, "--marks", ",".join(map(str, marks)),
            "--moto-pid", str(moto_pid)] + (["--size-of", terminator.log] if terminator else [])
    log_start = terminator.log_size() if terminator else None
    proc = subprocess.Popen(argv, env=sides.peer_env(setup), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out, err = proc.communicate()
    if proc.returncode != 0:
        sys.stderr.write(err.decode(errors="replace")[-2000:])
        raise SystemExit(f"peer warm loop {loop['handler']} failed")
    data = json.loads(out.decode().strip().splitlines()[-1])
    readings = {int(k): tuple(v) for k, v in data["readings"].items()}
    return {phase[0]: _phase_figures(readings, phase, data["statuses"], terminator, log_start) for phase in loop["phases"]}


def _prepare(setup: sides.Setup, moto_server: Server, plan: dict) -> None:
    moto_reset(moto_server)
    seeding.fixtures(setup)
    seeding.put_users(setup, plan["users"])


def run(setup: sides.Setup, moto_server: Server, n: int, rounds: int, work: str, terminator=None, floor_kit=None) -> dict:
    """Per side (swift, python), per loop: the medians over the rounds. With `floor_kit`
    (floor.Kit) also the exchange floor of our loops: their requests captured in one more
    run of ours, then replayed through libcurl once per round."""
    plan = _plan(setup, n)
    per_side: dict[str, dict[str, list[dict]]] = {"swift": {}, "python": {}}
    for round_index in range(rounds):
        for side in ("swift", "python") if setup.peer_dir else ("swift",):  # no peer: "python" stays empty
            _prepare(setup, moto_server, plan)
            for loop in plan["loops"]:
                if side == "python" and not loop["handler"]:
                    continue
                figures = (_swift_loop(setup, loop, moto_server.proc.pid, terminator) if side == "swift"
                           else _peer_loop(setup, loop, work, moto_server.proc.pid, terminator))
                for phase, values in figures.items():
                    per_side[side].setdefault(phase, []).append(values)
            print(f"  warm round {round_index + 1}/{rounds} {side} done", file=sys.stderr, flush=True)
    result = {side: {phase: _medians(rows) for phase, rows in phases.items()}
              for side, phases in per_side.items()}
    if floor_kit is not None:
        result["floor"] = _floor(setup, moto_server, plan, rounds, floor_kit)
    return result


def _medians(rows: list[dict]) -> dict:
    """One phase's rounds: the median of each figure; the counts (tls, first_calls) the first round's."""
    keys = [key for key, value in rows[0].items() if isinstance(value, (int, float))]
    return {**{key: median([row[key] for row in rows if key in row]) for key in keys}, "rounds": rows,
            **{key: rows[0][key] for key in ("tls", "first_calls") if key in rows[0]}}


def _floor(setup: sides.Setup, moto_server: Server, plan: dict, rounds: int, kit) -> dict:
    """Our loops' requests captured (in one more run of ours, from the same start: moto
    reset and seeded), then replayed through libcurl from that start again, per round."""
    from . import floor
    _prepare(setup, moto_server, plan)
    captures = []
    for loop in plan["loops"]:
        record: list = []
        offset = kit.recorder.offset()
        _swift_loop(kit.capture_setup, loop, moto_server.proc.pid, record=record)
        captures.append(floor.Capture.of(record + kit.recorder.read(offset), loop))
        print(f"  floor: captured {loop['function']}: {len(captures[-1].requests)} requests", file=sys.stderr, flush=True)
    per_phase: dict[str, list[dict]] = {}
    for _ in range(rounds):
        _prepare(setup, moto_server, plan)
        for loop, capture in zip(plan["loops"], captures):
            for phase, figures in floor.replay(kit, setup, capture, loop, moto_server.proc.pid).items():
                per_phase.setdefault(phase, []).append(figures)
    return {phase: floor.medians(rows) for phase, rows in per_phase.items()}
