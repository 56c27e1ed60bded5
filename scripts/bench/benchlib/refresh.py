"""Refresh runs: N due grants seeded in moto in each side's format, then one fresh process of
the refresh job, the scheduled event on its stdin, every run checked (docs/performance.md, "How
it measures"; on DynamoDB, whose values are sealed, a sampled item must be written again).
Sides: `swift` and `python` (the peer) on Secrets Manager, `swift-dynamodb` ours on DynamoDB +
KMS (PAYPULSE_STORE=dynamodb)."""

import json, os, random, sys

from . import floor, procs, sides

SIDES = ("swift", "python", "swift-dynamodb")
MEDIANS = ("wall_s", "grants_per_s", "cpu_ms_per_grant", "peak_rss_mib", "moto_cpu_ms_per_grant",
           "google_cpu_ms_per_grant", "seed_s")


def _medians(rows: list[dict]) -> dict:
    verified = all(row["verified"] for row in rows)
    return {**procs.medians(rows, MEDIANS, "runs", ("tls",)), "verified": verified}


class Refresh:
    def __init__(self, setup: sides.Setup, moto: procs.Server, google: procs.Server,
                 concurrency: int, rate: int, work: str, terminator=None):
        self.setup, self.moto, self.google, self.work = setup, moto, google, work
        self.concurrency, self.rate, self.terminator = concurrency, rate, terminator
        self.clients = sides.Moto(moto.url)

    def _seed(self, side: str, count: int) -> tuple[float, str | None]:
        self.moto.call("/moto-api/reset", "POST")
        self.setup.fixtures()
        return self.setup.due_grants(self.clients, count, side)

    def _job(self, side: str, rate: int, key_id=None, setup=None) -> procs.ChildRun:
        """One fresh process of the refresh job, the scheduled event on its stdin; a failed run
        ends the bench."""
        setup, concurrency = setup or self.setup, {"REFRESH_CONCURRENCY": str(self.concurrency)}
        if side == "python":
            env = setup.peer_env(concurrency)
        else:  # our seeds hold an hour's token (Setup.due_grants): an hour's window makes all due
            extra = {"REFRESH_MAX_WRITES_PER_SECOND": str(rate), "REFRESH_WINDOW_SECONDS": "3600"}
            env = setup.swift_env("dynamodb" if key_id else "aws", concurrency | extra, key_id)
        stdin = sides.write(os.path.join(self.work, "scheduled.json"), sides.SCHEDULED)
        child = procs.Timed(setup.command(side, "token-refresh")).run(stdin, env, self.work)
        if child.returncode != 0:
            sys.stderr.write(child.stderr.decode(errors="replace")[-3000:])
            raise SystemExit(f"refresh {side}: exit {child.returncode}")
        return child

    def one_run(self, side: str, count: int, rate: int) -> dict:
        clients, terminator = self.clients, self.terminator
        seed_s, key_id = self._seed(side, count)
        sample = random.Random(count).sample(range(count), min(25, count))
        versions = {i: clients.version(i) for i in sample} if key_id else {}
        self.google.call("/stats?reset=1")
        log0 = terminator.log_size() if terminator else None
        moto0, google0 = self.moto.cpu_seconds(), self.google.cpu_seconds()
        child = self._job(side, rate, key_id)
        moto1, google1 = self.moto.cpu_seconds(), self.google.cpu_seconds()
        tls = {"tls": terminator.handshakes(log0, terminator.log_size())} if terminator else {}
        answer = procs.last_json(child.stdout)
        summary = json.loads(answer["body"]) if isinstance(answer.get("body"), str) else answer
        google = json.loads(self.google.call("/stats"))
        if key_id:  # sealed values: a refreshed item was written again
            stale = [i for i in sample if clients.version(i) <= versions[i]]
        else:
            stale = [i for i in sample if clients.access_token(i) != "ya29.new"]
        verified = summary.get("refreshed") == count and google.get("ok") == count and not stale
        if not verified:
            procs.say(f"  warning: refresh {side} {count} not verified: summary {summary}, "
                      f"google {google}, {len(stale)} of {len(sample)} sampled grants not "
                      "written with the new token")
        return {"side": side, "count": count, "seed_s": seed_s, "wall_s": child.exit_s,
                "grants_per_s": count / child.exit_s, "cpu_s": child.cpu_s,
                "cpu_ms_per_grant": child.cpu_s * 1000 / count,
                "peak_rss_mib": child.max_rss_kib / 1024,
                "moto_cpu_ms_per_grant": (moto1 - moto0) * 1000 / count,
                "google_cpu_ms_per_grant": (google1 - google0) * 1000 / count,
                "summary": summary, "google": google, "verified": verified, **tls}

    def run(self, counts: list[int], reps: dict[int, int], run_sides: tuple[str, ...]) -> dict:
        """Per count, per side: the medians of its runs, the sides alternating."""
        result = {}
        for count in counts:
            rows = {side: [] for side in run_sides}
            for rep in range(reps[count]):
                for side in run_sides:
                    rows[side].append(row := self.one_run(side, count, self.rate))
                    procs.say(f"  refresh {count} {side} rep {rep + 1}/{reps[count]}: "
                              f"{row['wall_s']:.1f} s, {row['grants_per_s']:.0f}/s, "
                              f"{row['cpu_ms_per_grant']:.2f} ms CPU/grant, "
                              f"seeded in {row['seed_s']:.0f} s")
            result[str(count)] = {side: _medians(side_rows) for side, side_rows in rows.items()}
        return result

    def paced(self, rate: int, count: int = 1000, reps: int = 2) -> dict:
        """Ours alone at a production write rate: the limiter, not the process, sets the pace."""
        rows = [self.one_run("swift", count, rate) for _ in range(reps)]
        return {"writes_per_second": rate, "count": count, **_medians(rows)}

    def floor(self, recorder: floor.Recorder, count: int, reps: int) -> dict:
        """The exchange floor of our refresh on Secrets Manager: one more run of ours over `count`
        due grants with its requests recorded, then that capture replayed through libcurl `reps`
        times. The replay writes again what the run wrote: no reset, so its answers differ where
        a write is not idempotent; they are reported."""
        self._seed("swift", count)
        offset = recorder.offset()
        self._job("swift", self.rate, setup=recorder.capture_setup)
        capture = floor.Capture(recorder.read(offset))
        requests = len(capture.requests)
        procs.say(f"  floor: captured the refresh of {count} grants: {requests} requests")
        spans = {"refresh": (0, requests, count)}
        path = os.path.join(self.work, "replay-refresh.txt")
        rows = [floor.replay(self.setup, capture, spans, path)["refresh"] for _ in range(reps)]
        return {"count": count, **floor.medians(rows)}
