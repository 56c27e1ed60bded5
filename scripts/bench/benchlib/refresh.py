"""Refresh runs: N due grants seeded in moto in each side's format, then one fresh process
of the refresh job with the scheduled event on stdin: wall time, grants per second, the
job's CPU per grant and peak RSS (wait4), moto's and the fake Google's CPU meanwhile. The
result is checked: every grant refreshed, Google asked N times, a sample holds the new token
(on the DynamoDB token store, whose values are sealed: a sample's item was written again).

Sides: `swift` and `python` on Secrets Manager, and `swift-dynamodb`, our same job with
PAYPULSE_STORE=dynamodb (grants in a DynamoDB table, KMS envelope encryption, all on moto)."""

import json
import os
import random
import sys

from . import events, seeding, sides
from .procstat import run_child
from .servers import Server, fake_google_stats, moto_reset
from .stats import median

SIDES = ("swift", "python", "swift-dynamodb")


def _command(setup: sides.Setup, side: str, concurrency: int, writes_per_second: int,
             key_id: str | None = None) -> tuple[list[str], dict]:
    if side == "python":
        env = sides.peer_env(setup, {"REFRESH_CONCURRENCY": str(concurrency)})
        return sides.peer_cmd(setup, "token_refresh"), env
    extra = {"REFRESH_CONCURRENCY": str(concurrency), "REFRESH_MAX_WRITES_PER_SECOND": str(writes_per_second),
             # Our seeds are written now with an hour's token (seeding.due_token_sets): an hour's
             # window makes every one due.
             "REFRESH_WINDOW_SECONDS": "3600"}
    if side == "swift-dynamodb":
        return sides.swift_cmd(setup, "token-refresh"), seeding.dynamodb_environment(setup, key_id, extra)
    return sides.swift_cmd(setup, "token-refresh"), sides.swift_env(setup, extra=extra)


def _job(argv: list[str], env: dict, work: str, what: str):
    """One fresh process of the refresh job, the scheduled event on its stdin; a failed run ends the bench."""
    child = run_child(argv, events.write(os.path.join(work, "scheduled.json"), events.scheduled()), env, work)
    if child.returncode != 0:
        sys.stderr.write(child.stderr.decode(errors="replace")[-3000:])
        raise SystemExit(f"{what}: exit {child.returncode}")
    return child


def one_run(setup: sides.Setup, moto_server: Server, google: Server, moto: seeding.Moto, side: str, count: int,
            concurrency: int, writes_per_second: int, work: str, terminator=None) -> dict:
    moto_reset(moto_server)
    seeding.fixtures(setup)
    sample = random.Random(count).sample(range(count), min(25, count))
    key_id, versions = None, {}
    if side == "swift-dynamodb":
        seed_s, key_id = seeding.due_dynamodb_grants(moto, setup, count)
        versions = {i: seeding.dynamodb_version(moto, seeding.due_user(i)) for i in sample}
    else:
        seed_s = seeding.due_token_sets(moto, setup, count, side)
    fake_google_stats(google, reset=True)
    argv, env = _command(setup, side, concurrency, writes_per_second, key_id)
    log0 = terminator.log_size() if terminator else None
    moto0, google0 = moto_server.cpu_seconds(), google.cpu_seconds()
    child = _job(argv, env, work, f"refresh {side} {count}")
    moto1, google1 = moto_server.cpu_seconds(), google.cpu_seconds()
    tls = terminator.handshakes(log0, terminator.log_size()) if terminator else None
    answer = json.loads([line for line in child.stdout.decode().splitlines() if line.strip()][-1])
    summary = json.loads(answer["body"]) if isinstance(answer.get("body"), str) else answer
    google_stats = fake_google_stats(google)
    if side == "swift-dynamodb":  # sealed values: a refreshed item was written again
        stale = [i for i in sample if seeding.dynamodb_version(moto, seeding.due_user(i)) <= versions[i]]
    else:
        stale = [i for i in sample if seeding.access_token_of(moto, seeding.due_secret_name(i)) != "ya29.new"]
    verified = summary.get("refreshed") == count and google_stats.get("ok") == count and not stale
    if not verified:
        print(f"  warning: refresh {side} {count} not verified: summary {summary}, google {google_stats}, "
              f"{len(stale)} of {len(sample)} sampled grants not written with the new token", file=sys.stderr)
    return {"side": side, "count": count, "seed_s": seed_s, "wall_s": child.exit_s, "grants_per_s": count / child.exit_s,
            "cpu_s": child.cpu_s, "cpu_ms_per_grant": child.cpu_s * 1000 / count, "peak_rss_mib": child.max_rss_kib / 1024,
            "moto_cpu_ms_per_grant": (moto1 - moto0) * 1000 / count, "google_cpu_ms_per_grant": (google1 - google0) * 1000 / count,
            "summary": summary, "google": google_stats, "verified": verified, **({"tls": tls} if tls is not None else {})}


def run(setup: sides.Setup, moto_server: Server, google: Server, moto: seeding.Moto, counts: list[int], reps: dict[int, int],
        concurrency: int, writes_per_second: int, work: str, run_sides: tuple[str, ...] = SIDES, terminator=None) -> dict:
    result: dict = {}
    for count in counts:
        rows: dict[str, list[dict]] = {side: [] for side in run_sides}
        for rep in range(reps[count]):
            for side in run_sides:
                row = one_run(setup, moto_server, google, moto, side, count, concurrency, writes_per_second, work, terminator)
                rows[side].append(row)
                print(f"  refresh {count} {side} rep {rep + 1}/{reps[count]}: {row['wall_s']:.1f} s, "
                      f"{row['grants_per_s']:.0f}/s, {row['cpu_ms_per_grant']:.2f} ms CPU/grant, "
                      f"seeded in {row['seed_s']:.0f} s", file=sys.stderr, flush=True)
        result[str(count)] = {side: _medians(side_rows) for side, side_rows in rows.items()}
    return result


def paced(setup: sides.Setup, moto_server: Server, google: Server, moto: seeding.Moto, count: int, reps: int,
          concurrency: int, writes_per_second: int, work: str) -> dict:
    """Ours alone at a production write rate: shows the limiter, not the process, sets the pace."""
    rows = [one_run(setup, moto_server, google, moto, "swift", count, concurrency, writes_per_second, work)
            for _ in range(reps)]
    return {"writes_per_second": writes_per_second, "count": count, **_medians(rows)}


def _medians(rows: list[dict]) -> dict:
    keys = ["wall_s", "grants_per_s", "cpu_ms_per_grant", "peak_rss_mib", "moto_cpu_ms_per_grant",
            "google_cpu_ms_per_grant", "seed_s"]
    return {**{key: median([row[key] for row in rows]) for key in keys},
            "verified": all(row["verified"] for row in rows), "runs": rows, **({"tls": rows[0]["tls"]} if "tls" in rows[0] else {})}


def floor_run(setup: sides.Setup, moto_server: Server, moto: seeding.Moto, kit, count: int, concurrency: int,
              writes_per_second: int, work: str, reps: int) -> dict:
    """The exchange floor of our refresh run on Secrets Manager: one more run of ours over
    `count` due grants with its requests recorded, then that capture replayed through libcurl
    `reps` times (benchlib/floor.py). The replay writes again what the run wrote: no reset,
    so its answers differ where a write is not idempotent; they are reported."""
    from . import floor
    moto_reset(moto_server)
    seeding.fixtures(setup)
    seeding.due_token_sets(moto, setup, count, "swift")
    offset = kit.recorder.offset()
    _job(*_command(kit.capture_setup, "swift", concurrency, writes_per_second), work, "refresh floor capture")
    capture = floor.Capture.of(kit.recorder.read(offset))
    print(f"  floor: captured the refresh of {count} grants: {len(capture.requests)} requests", file=sys.stderr, flush=True)
    rows = [floor.replay_all(kit, setup, capture, count, "refresh") for _ in range(reps)]
    return {"count": count, **floor.medians(rows)}
