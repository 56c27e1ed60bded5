#!/usr/bin/env python3
"""Benchmark of this project, side by side with the Python + boto3 peer given as --peer DIR (not in
this repository; its contract: docs/performance.md; docs/perf's results were measured with it),
else ours alone.

One moto_server and one fake Google (benchlib/fake_google.py) on free loopback ports
serve both sides. Measures cold invocations (fresh process, one event on stdin), warm
invocations (ours in its Lambda Runtime API loop, the peer in an in-process loop), refresh
runs over N due grants (ours and the peer's on Secrets Manager, and ours on the DynamoDB
token store with KMS envelope encryption beside them), and the deployment bundles' sizes;
prints a table of figures and ratios and writes results.json, results.md and performance.png
to --out. Asserts nothing.

With --tls, moto and the fake Google are reached over HTTPS through nginx (benchlib/tls.py),
the CA trusted through AWS_CA_BUNDLE and PAYPULSE_CA_BUNDLE (the peer: AWS_CA_BUNDLE and
SSL_CERT_FILE), and the warm loops and refresh runs also report the new TLS handshakes
counted at nginx. Both modes measure the exchange floor of our warm loops and of our refresh
(benchlib/floor.py: our requests recorded as they pass, replayed through libcurl).

    scripts/bench/run.sh [--peer DIR]   # what `make bench [PEER=DIR]` runs: builds, then this
    scripts/bench/run.sh --quick        # a few runs, 200 grants: keeps the harness working
"""

import argparse
import contextlib
import glob
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
import zipfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib import chart, cold, floor, refresh, report, seeding, servers, sides, tls, warm  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# What run.sh builds beside the functions: the minimal Swift program, and floor/replay_curl.c (missing: no
# exchange floor). The deployment bundles are scripts/bundle.sh's.
FLOOR, REPLAYER = (os.path.join(ROOT, ".build-bench", name) for name in ("floor", "replay-curl"))
BUNDLES = os.path.join(ROOT, ".build-lambda", "bundles")


def arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="few runs and 200 grants (CI)")
    parser.add_argument("--bin-dir", default=os.path.join(ROOT, ".build-lambda", "release"), help="our built executables")
    parser.add_argument("--cli-dir", default=os.path.join(ROOT, ".build", "debug"),
                        help="where `paypulse` is (signs the events, seeds ours; a tool, not measured)")
    parser.add_argument("--peer", metavar="DIR", help="the Python + boto3 peer to compare with "
                        "(docs/performance.md); none: ours alone")
    parser.add_argument("--out", default=os.path.join(ROOT, "docs", "perf"))
    parser.add_argument("--cold-runs", type=int)
    parser.add_argument("--warm-calls", type=int)
    parser.add_argument("--warm-rounds", type=int)
    parser.add_argument("--refresh-counts", help="comma-separated grant counts")
    parser.add_argument("--refresh-reps", help="runs per side per count, comma-separated like --refresh-counts")
    parser.add_argument("--concurrency", type=int, default=8, help="REFRESH_CONCURRENCY for both sides")
    parser.add_argument("--writes-per-second", type=int, default=10_000, help="our REFRESH_MAX_WRITES_PER_"
                        "SECOND in the side-by-side runs (10000, the highest allowed: unpaced)")
    parser.add_argument("--paced-rate", type=int, help="also one paced run of ours at this write rate (0: none)")
    parser.add_argument("--refresh-sides", help="comma-separated refresh sides: swift and python (the peer)"
                        " on Secrets Manager, swift-dynamodb (ours on DynamoDB + KMS); default all three,"
                        " python only with --peer")
    parser.add_argument("--only", help="comma-separated sections: cold,warm,refresh,bundles")
    parser.add_argument("--tls", action="store_true",
                        help="moto and the fake Google over HTTPS, behind nginx with a CA of this run")
    args = parser.parse_args()
    quick = args.quick
    args.cold_runs = args.cold_runs or (5 if quick else 30)
    args.warm_calls = args.warm_calls or (40 if quick else 500)
    args.warm_rounds = args.warm_rounds or (1 if quick else 3)
    counts = [int(c) for c in (args.refresh_counts or ("200" if quick else "1000,10000")).split(",")]
    reps = [int(r) for r in (args.refresh_reps or ("1" if quick else "3,2")).split(",")]
    args.refresh_counts, args.refresh_reps = counts, {c: reps[min(i, len(reps) - 1)] for i, c in enumerate(counts)}
    args.paced_rate = 0 if quick else (50 if args.paced_rate is None else args.paced_rate)
    args.sections = set((args.only or "cold,warm,refresh,bundles").split(","))
    default_sides = "swift,python,swift-dynamodb" if args.peer else "swift,swift-dynamodb"
    args.refresh_sides = tuple((args.refresh_sides or default_sides).split(","))
    if "python" in args.refresh_sides and not args.peer:
        parser.error("refresh side python is the peer's: give its directory with --peer DIR")
    unknown = set(args.refresh_sides) - set(refresh.SIDES)
    if unknown:
        parser.error(f"unknown refresh sides {sorted(unknown)}; known: {', '.join(refresh.SIDES)}")
    for name in ("bin_dir", "cli_dir", "peer", "out"):  # the children run in a scratch folder
        setattr(args, name, getattr(args, name) and os.path.abspath(getattr(args, name)))  # no --peer: None
    if args.peer and not os.path.isfile(os.path.join(args.peer, "invoke.py")):
        parser.error(f"--peer {args.peer}: no invoke.py there, not the Python + boto3 peer (docs/performance.md)")
    return args


def machine() -> dict:
    with open("/proc/loadavg") as fh:
        load = fh.read().split()[:3]
    swift = subprocess.run(["swift", "--version"], capture_output=True, text=True).stdout.strip().splitlines()
    return {"nproc": os.cpu_count(), "loadavg_at_start": load, "kernel": platform.release(),
            "python": platform.python_version(), "swift": swift[0] if swift else "?",
            "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}


def bundle_sizes() -> list[dict]:
    """Zipped and unzipped size of each deployment bundle (BUNDLES/*.zip, written by scripts/bundle.sh);
    none there gives an empty list, reported as n/a."""
    rows = []
    for path in sorted(glob.glob(os.path.join(BUNDLES, "*.zip"))):
        with zipfile.ZipFile(path) as archive:
            unzipped = sum(info.file_size for info in archive.infolist())
        rows.append({"bundle": os.path.basename(path), "zipped_mib": os.path.getsize(path) / 2**20,
                     "unzipped_mib": unzipped / 2**20})
    return rows


def measure(args, work: str, results: dict) -> float:
    """Starts the servers both sides talk to, runs the chosen sections into `results`, stops the servers;
    returns when the measurements started."""
    log = sys.stderr
    with contextlib.ExitStack() as running:  # each server stopped, last first, however the run ends
        def started(server):
            running.callback(server.stop)
            return server
        moto_server, google = started(servers.start_moto(work)), started(servers.start_fake_google(work))
        upstreams = {"aws": moto_server.port, "google": google.port}
        if not os.access(REPLAYER, os.X_OK):
            print(f"no exchange floor: {REPLAYER} is not built (scripts/bench/run.sh builds it)", file=log)
        with_floor = os.access(REPLAYER, os.X_OK) and bool({"warm", "refresh"} & args.sections)
        recorder = started(floor.Recorder(work, upstreams)) if with_floor else None
        captures = dict(recorder.ports) if recorder else {}  # the relay's port per upstream
        urls = {"aws": moto_server.url, "google": google.url}
        capture_urls = {name: f"http://127.0.0.1:{port}" for name, port in captures.items()}
        terminator = None
        if args.tls:
            unlogged = {f"{name}-capture": port for name, port in captures.items()}
            terminator = started(tls.Terminator(work, upstreams, unlogged))
            urls = {name: terminator.urls[name] for name in ("aws", "google")}
            capture_urls = {name: terminator.urls[f"{name}-capture"] for name in capture_urls}
            print(f"HTTPS through nginx: AWS {urls['aws']}, Google {urls['google']}", file=log, flush=True)
        setup = sides.Setup(swift_bin=args.bin_dir, cli=os.path.join(args.cli_dir, "paypulse"),
                            floor_bin=FLOOR, peer_dir=args.peer or "", python=sys.executable,
                            moto_url=urls["aws"], google_url=urls["google"],
                            state_dir=os.path.join(work, "embedded-state"),
                            ca_bundle=terminator.ca if terminator else None)
        kit = floor.Kit.make(setup, recorder, REPLAYER, capture_urls) if recorder else None
        moto, started_at = seeding.Moto(moto_server.url), time.perf_counter()
        if "cold" in args.sections:
            print(f"cold invocations: {args.cold_runs} runs per case, interleaved", file=log, flush=True)
            servers.moto_reset(moto_server)
            seeding.fixtures(setup)
            results["cold"] = cold.run(setup, runs=args.cold_runs, warmup=3, work=work)
        if "warm" in args.sections:
            print(f"warm invocations: {args.warm_calls} calls per loop, {args.warm_rounds} rounds", file=log,
                  flush=True)
            results["warm"] = warm.run(setup, moto_server, n=args.warm_calls, rounds=args.warm_rounds, work=work,
                                       terminator=terminator, floor_kit=kit)
            if "floor" in results["warm"]:
                results["warm_floor"] = results["warm"].pop("floor")
        if "refresh" in args.sections:
            counts, reps = args.refresh_counts, args.refresh_reps
            print(f"refresh runs: {counts} grants, reps {reps}", file=log, flush=True)
            results["refresh"] = refresh.run(setup, moto_server, google, moto, counts, reps, args.concurrency,
                                             args.writes_per_second, work, args.refresh_sides, terminator)
            if kit and "swift" in args.refresh_sides:
                results["refresh_floor"] = refresh.floor_run(setup, moto_server, moto, kit, counts[0],
                                                             args.concurrency, args.writes_per_second, work,
                                                             reps[counts[0]])
            if args.paced_rate:
                results["refresh_paced"] = refresh.paced(setup, moto_server, google, moto, 1000, 2, args.concurrency,
                                                         args.paced_rate, work)
        if "bundles" in args.sections:
            results["bundles"] = bundle_sizes()
    return started_at


def main() -> int:
    args = arguments()
    ours = ["store-tokens", "user-profile", "token-refresh", "fresh-token"]
    for path in [os.path.join(args.bin_dir, f) for f in ours] + [os.path.join(args.cli_dir, "paypulse"),
                                                                 FLOOR]:
        if not os.access(path, os.X_OK):
            raise SystemExit(f"{path} is not built; scripts/bench/run.sh builds it")
    if not args.peer:
        print("no peer given (--peer DIR): the Python + boto3 comparison is not run", file=sys.stderr, flush=True)
    os.makedirs(args.out, exist_ok=True)
    work = tempfile.mkdtemp(prefix="paypulse-bench-")
    results: dict = {"machine": machine(), "quick": args.quick, "settings": {
        "cold_runs": args.cold_runs, "warm_calls": args.warm_calls, "warm_rounds": args.warm_rounds,
        "refresh_counts": args.refresh_counts, "refresh_reps": args.refresh_reps, "concurrency": args.concurrency,
        "writes_per_second": args.writes_per_second, "paced_rate": args.paced_rate,
        "refresh_sides": list(args.refresh_sides), "peer": args.peer,
        "fake_google": "scripts/bench/benchlib/fake_google.py", "tls": args.tls}}
    started = measure(args, work, results)
    results["duration_s"] = time.perf_counter() - started
    with open("/proc/loadavg") as fh:
        results["machine"]["loadavg_at_end"] = fh.read().split()[:3]
    text = report.markdown(results)
    print(text)
    with open(os.path.join(args.out, "results.json"), "w") as fh:
        json.dump(results, fh, indent=1)
    with open(os.path.join(args.out, "results.md"), "w") as fh:
        fh.write(text)
    chart.draw(results, os.path.join(args.out, "performance.png"))
    print(f"wrote {args.out}/results.json, results.md, performance.png in {results['duration_s']:.0f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
