#!/usr/bin/env python3
"""Benchmark of this project (docs/performance.md), side by side with the Python + boto3 peer
given as --peer DIR (not in this repository), else ours alone: cold invocations, warm
invocations, refresh runs over N due grants (ours and the peer's on Secrets Manager, ours on
DynamoDB + KMS beside them), the exchange floor of our warm loops and refresh (benchlib/floor.py)
and the deployment bundles' sizes, against one moto_server and one fake Google on loopback.
Prints the report and writes results.json, results.md and performance.png to --out. With --tls,
moto and the fake Google are reached over HTTPS through nginx (benchlib/tls.py), and the new
TLS handshakes are counted. Asserts nothing.

    scripts/bench/run.sh [--peer DIR]   # what `make bench [PEER=DIR]` runs: builds, then this
    scripts/bench/run.sh --quick        # a few runs, 200 grants: keeps the harness working
"""

import argparse, contextlib, dataclasses, glob, json, os, platform, subprocess, sys, tempfile, time
import zipfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib import cold, floor, procs, refresh, report, sides, tls, warm  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FLOOR = os.path.join(ROOT, ".build-bench", "floor")  # the minimal Swift program, run.sh builds it
SIZES = {  # option: (quick, full)
    "cold_runs": (5, 30), "warm_calls": (40, 500), "warm_rounds": (1, 3),
    "refresh_counts": ("200", "1000,10000"), "refresh_reps": ("1", "3,2")}


def load() -> list[str]:
    with open("/proc/loadavg") as fh:
        return fh.read().split()[:3]


def arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    add = parser.add_argument
    add("--quick", action="store_true", help="few runs and 200 grants (CI)")
    add("--bin-dir", default=os.path.join(ROOT, ".build-lambda", "release"), help="our executables")
    add("--cli-dir", default=os.path.join(ROOT, ".build", "debug"),
        help="where `paypulse` is (signs the events, seeds ours; a tool, not measured)")
    add("--peer", metavar="DIR", help="the Python + boto3 peer to compare with; none: ours alone")
    add("--out", default=os.path.join(ROOT, "docs", "perf"))
    for name in ("cold_runs", "warm_calls", "warm_rounds"):
        add("--" + name.replace("_", "-"), type=int)
    add("--refresh-counts", help="comma-separated grant counts")
    add("--refresh-reps", help="runs per side per count, comma-separated like --refresh-counts")
    add("--concurrency", type=int, default=8, help="REFRESH_CONCURRENCY for both sides")
    add("--writes-per-second", type=int, default=10_000, help="our REFRESH_MAX_WRITES_PER_SECOND "
        "in the side-by-side runs (10000, the highest allowed: unpaced)")
    add("--paced-rate", type=int, help="also one paced run of ours at this write rate (0: none)")
    add("--refresh-sides", help="comma-separated refresh sides: swift and python (the peer) on "
        "Secrets Manager, swift-dynamodb (ours on DynamoDB + KMS); default all, python with --peer")
    add("--only", default="cold,warm,refresh,bundles", help="comma-separated sections")
    add("--tls", action="store_true", help="moto and the fake Google over HTTPS, behind nginx")
    args = parser.parse_args()
    for name, sizes in SIZES.items():
        if getattr(args, name) is None:
            setattr(args, name, sizes[0 if args.quick else 1])
    counts = [int(c) for c in args.refresh_counts.split(",")]
    reps = [int(r) for r in args.refresh_reps.split(",")]
    args.refresh_reps = {c: reps[min(i, len(reps) - 1)] for i, c in enumerate(counts)}
    args.refresh_counts = counts
    args.paced_rate = 0 if args.quick else (50 if args.paced_rate is None else args.paced_rate)
    args.sections = set(args.only.split(","))
    default_sides = "swift,python,swift-dynamodb" if args.peer else "swift,swift-dynamodb"
    args.refresh_sides = tuple((args.refresh_sides or default_sides).split(","))
    if "python" in args.refresh_sides and not args.peer:
        parser.error("refresh side python is the peer's: give its directory with --peer DIR")
    if unknown := set(args.refresh_sides) - set(refresh.SIDES):
        parser.error(f"unknown refresh sides {sorted(unknown)}; known: {', '.join(refresh.SIDES)}")
    for name in ("bin_dir", "cli_dir", "peer", "out"):  # the children run in a scratch folder
        setattr(args, name, getattr(args, name) and os.path.abspath(getattr(args, name)))
    args.cli = os.path.join(args.cli_dir, "paypulse")
    if args.peer and not os.path.isfile(os.path.join(args.peer, "invoke.py")):
        parser.error(f"--peer {args.peer}: no invoke.py there, not the Python + boto3 peer")
    return args


def measure(args, work: str, results: dict) -> float:
    """Starts the servers both sides talk to, runs the chosen sections into `results`, stops the
    servers (last first, however the run ends); returns when the measurements started."""
    with contextlib.ExitStack() as running:
        def started(server):  # moto, the fake Google, the floor's relay, nginx
            running.callback(procs.stop, server.proc)
            return server
        moto, google = map(started, procs.start_servers(work))
        upstreams = {"aws": moto.port, "google": google.port}
        urls = {"aws": moto.url, "google": google.url}
        if not os.access(floor.REPLAYER, os.X_OK):
            procs.say(f"no exchange floor: {floor.REPLAYER} is not built (run.sh builds it)")
        recorder = None
        if os.access(floor.REPLAYER, os.X_OK) and {"warm", "refresh"} & args.sections:
            recorder = started(floor.Recorder(work, upstreams))
        relays = recorder.ports if recorder else {}  # the relay's port per upstream
        captures = {name: f"http://127.0.0.1:{port}" for name, port in relays.items()}
        terminator = None
        if args.tls:
            unlogged = {f"{name}-capture": port for name, port in relays.items()}
            terminator = started(tls.Terminator(work, upstreams, unlogged))
            urls = {name: terminator.urls[name] for name in urls}
            captures = {name: terminator.urls[f"{name}-capture"] for name in captures}
            procs.say(f"HTTPS through nginx: AWS {urls['aws']}, Google {urls['google']}")
        setup = sides.Setup(swift_bin=args.bin_dir, cli=args.cli,
                            floor_bin=FLOOR, peer_dir=args.peer or "", python=sys.executable,
                            moto_url=urls["aws"], google_url=urls["google"],
                            state_dir=os.path.join(work, "embedded-state"),
                            ca_bundle=terminator.ca if terminator else None)
        if recorder:
            recorder.capture_setup = dataclasses.replace(setup, moto_url=captures["aws"],
                                                         google_url=captures["google"])
        started_at = time.perf_counter()
        if "cold" in args.sections:
            procs.say(f"cold invocations: {args.cold_runs} runs per case, interleaved")
            moto.call("/moto-api/reset", "POST")
            results["cold"] = cold.run(setup, runs=args.cold_runs, warmup=3, work=work)
        if "warm" in args.sections:
            procs.say(f"warm invocations: {args.warm_calls} calls per loop, "
                      f"{args.warm_rounds} rounds")
            loops = warm.Warm(setup, moto, args.warm_calls, work, terminator)
            results["warm"] = loops.run(args.warm_rounds)
            if recorder:
                results["warm_floor"] = loops.floor(args.warm_rounds, recorder)
        if "refresh" in args.sections:
            counts, reps = args.refresh_counts, args.refresh_reps
            procs.say(f"refresh runs: {counts} grants, reps {reps}")
            runs = refresh.Refresh(setup, moto, google, args.concurrency, args.writes_per_second,
                                   work, terminator)
            results["refresh"] = runs.run(counts, reps, args.refresh_sides)
            if recorder and "swift" in args.refresh_sides:
                results["refresh_floor"] = runs.floor(recorder, counts[0], reps[counts[0]])
            if args.paced_rate:
                results["refresh_paced"] = runs.paced(args.paced_rate)
        if "bundles" in args.sections:  # scripts/bundle.sh's; none there: reported as n/a
            results["bundles"] = []
            for path in sorted(glob.glob(os.path.join(ROOT, ".build-lambda", "bundles", "*.zip"))):
                with zipfile.ZipFile(path) as archive:
                    unzipped = sum(info.file_size for info in archive.infolist())
                results["bundles"].append({"bundle": os.path.basename(path),
                                           "zipped_mib": os.path.getsize(path) / 2**20,
                                           "unzipped_mib": unzipped / 2**20})
    return started_at


def main() -> None:
    args = arguments()
    ours = ["store-tokens", "user-profile", "token-refresh", "fresh-token"]
    for path in [*(os.path.join(args.bin_dir, f) for f in ours), args.cli, FLOOR]:
        if not os.access(path, os.X_OK):
            raise SystemExit(f"{path} is not built; scripts/bench/run.sh builds it")
    if not args.peer:
        procs.say("no peer given (--peer DIR): the Python + boto3 comparison is not run")
    os.makedirs(args.out, exist_ok=True)
    swift = subprocess.run(["swift", "--version"], capture_output=True, text=True).stdout
    machine = {"nproc": os.cpu_count(), "loadavg_at_start": load(), "kernel": platform.release(),
               "python": platform.python_version(), "swift": (swift.splitlines() or ["?"])[0],
               "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
    settings = {name: getattr(args, name) for name in (
        "cold_runs", "warm_calls", "warm_rounds", "refresh_counts", "refresh_reps", "concurrency",
        "writes_per_second", "paced_rate", "refresh_sides", "peer", "tls")}
    results = {"machine": machine, "quick": args.quick,
               "settings": settings | {"fake_google": "scripts/bench/benchlib/fake_google.py"}}
    started = measure(args, tempfile.mkdtemp(prefix="paypulse-bench-"), results)
    results["duration_s"] = time.perf_counter() - started
    machine["loadavg_at_end"] = load()
    text = report.Report(results).markdown()
    print(text)
    with open(os.path.join(args.out, "results.json"), "w") as fh:
        json.dump(results, fh, indent=1)
    with open(os.path.join(args.out, "results.md"), "w") as fh:
        fh.write(text)
    report.Report(results).draw(os.path.join(args.out, "performance.png"))
    procs.say(f"wrote {args.out}/results.json, results.md, performance.png in "
              f"{results['duration_s']:.0f} s")


if __name__ == "__main__":
    main()
