#!/usr/bin/env python3
"""Instructions per warm invocation, by category, under callgrind.

Runs store-tokens and user-profile in their real Lambda Runtime API loop (the scripted
Runtime API of the benchmark, the same moto and fake Google, the same events as its warm
section) under `valgrind --tool=callgrind`, each loop three times from a reset moto: with
the warm-up events only, then with N more, then with 2N more (store-tokens: N new users,
then the same N again). The differences divided by N are the instructions of one warm
invocation, so start-up, the first calls' lazy work and the process's exit cancel out.
Each difference is split by the inclusive cost of a few functions (see CATEGORIES).
Instructions are user space only: the kernel's share of each socket call is not counted.

    scripts/bench/warm-profile.sh                  # builds nothing; uses .build-lambda/release
    scripts/bench/warm-profile.sh --calls 40 --out .build-bench/profile --bin-dir .build-lambda/release
"""

from __future__ import annotations

import argparse
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib import seeding, servers, sides, warm  # noqa: E402
from benchlib.runtime_api import ScriptedRuntimeAPI  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
WARMUP = 3

# (category, functions, callers left out). A category's instructions are the inclusive
# cost of the calls into its functions (regular expressions over demangled names) from
# functions outside it, so a function calling another of the same category is not counted
# twice. The roots are synchronous functions (an async function's parts are entered from
# the executor, not from their caller). JSON is the AWS bodies, Google's answer, the token
# set and the replies: the event's and the JWT's own parsing count under those. "other" is
# the rest: the Runtime API loop, Swift concurrency and Dispatch, the retry loop, handler
# logic, malloc.
CATEGORIES = [
    ("event decoding", r"IncomingEvent\.decode\(", None),
    ("JWT", r"BearerToken\.|TokenHeaderPolicy\.check|Authenticator\.verifiedClaims|AccessTokenClaims\.check", None),
    ("SigV4", r"SigV4Signer\.sign\(", None),
    ("transport (libcurl)", r"CurlEasyHandle\.perform\(", None),
    ("JSON", r"JSONDecoder\.decode<|JSONEncoder\.encode<|JSONValue\.fastParse|JSONValue\.compactJSON|JSONValue\.decode\(|"
             r"JSONCoding\.(encode|string)",
     r"JSONValue\.parse|IncomingEvent|Payload|ScheduledEvent|TokenHeaderPolicy|verifiedClaims|AccessTokenClaims"),
    ("logging", r"StderrLogHandler\.log\(", None),
]


def arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bin-dir", default=os.path.join(ROOT, ".build-lambda", "release"))
    parser.add_argument("--peer", default=os.path.normpath(os.path.join(ROOT, "..", "shared", "peers", "python-boto3")))
    parser.add_argument("--calls", type=int, default=40, help="N: events per measured phase")
    parser.add_argument("--out", default=os.path.join(ROOT, ".build-bench", "warm-profile"))
    parser.add_argument("--only", help="store-tokens or user-profile")
    parser.add_argument("--keep", action="store_true", help="keep the callgrind files (in --out)")
    parser.add_argument("--reuse", action="store_true", help="analyse the callgrind files kept in --out; run nothing")
    return parser.parse_args()


def plans(setup: sides.Setup, n: int) -> dict[str, list[tuple[str, list[dict]]]]:
    """Per function, the event lists of its runs (the benchmark's warm loops), each a prefix of the next."""
    store, profile = (loop["events"] for loop in warm._plan(setup, n)["loops"])
    return {
        "store-tokens": [("base", store[:WARMUP]), ("new", store[:WARMUP + n]), ("same", store)],
        "user-profile": [("base", profile[:WARMUP]), ("profile", profile)],
    }


def run_once(setup: sides.Setup, function: str, event_list: list[dict], out_file: str) -> None:
    api = ScriptedRuntimeAPI([json.dumps(e).encode() for e in event_list], [], peer_pid=0)
    env = sides.swift_env(setup, extra={"AWS_LAMBDA_RUNTIME_API": api.address, "AWS_LAMBDA_FUNCTION_NAME": function,
                                        "AWS_LAMBDA_FUNCTION_MEMORY_SIZE": "512"})
    argv = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out_file}", os.path.join(setup.swift_bin, function)]
    proc = subprocess.Popen(argv, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        while not api.finished.wait(1):
            if proc.poll() is not None:
                raise SystemExit(f"{function} exited with {proc.returncode}: {proc.stderr.read().decode()[-2000:]}")
        proc.send_signal(signal.SIGTERM)  # callgrind writes its file as the process ends
        proc.wait(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        api.stop()
    bad = [s for s in api.statuses if s not in (200, 201)]
    if api.errors or bad or len(api.statuses) != len(event_list):
        raise SystemExit(f"{function}: {len(api.statuses)} answers of {len(event_list)}, bad {bad[:3]}, errors {api.errors[:2]}")


def _demangle(names: list[str]) -> list[str]:
    return subprocess.run(["swift", "demangle", "--simplified", "--compact"], input="\n".join(names),
                          capture_output=True, text=True, check=True).stdout.splitlines()


def call_edges(callgrind_file: str) -> tuple[int, dict[tuple[str, str], int]]:
    """Program total and inclusive instructions per (caller, callee), demangled."""
    text = subprocess.run(["callgrind_annotate", "--tree=caller", "--inclusive=yes", "--threshold=100", callgrind_file],
                          capture_output=True, text=True, check=True).stdout
    total = 0
    pending: list[tuple[int, str]] = []
    raw: list[tuple[int, str, str]] = []
    for line in text.splitlines():
        match = re.match(r"\s*([\d,]+) \([^)]*\)\s+([<*>])\s+(.*)$", line)
        if not match:
            if "PROGRAM TOTALS" in line:
                total = int(line.split()[0].replace(",", ""))
            continue
        count, kind, rest = int(match.group(1).replace(",", "")), match.group(2), match.group(3)
        name = rest.split(":", 1)[1] if ":" in rest.split(" ")[0] else rest
        name = re.sub(r"( \(\d[\d,]*x\))? \[[^\]]*\]$", "", name.strip())
        if kind == "<":
            pending.append((count, name))
        elif kind == "*":
            raw.extend((cost, caller, name) for cost, caller in pending)
            pending = []
    names = sorted({n for _, caller, callee in raw for n in (caller, callee)})
    readable = dict(zip(names, _demangle(names)))
    edges: dict[tuple[str, str], int] = {}
    for cost, caller, callee in raw:
        key = (readable[caller], readable[callee])
        edges[key] = edges.get(key, 0) + cost
    return total, edges


def _anchored(pattern: str) -> str:
    """The pattern at the start of a function's name (not inside "closure #1 in ...")."""
    return rf"^(specialized )?(static )?(?:{pattern})"


def categorize(total: float, edges: dict[tuple[str, str], float]) -> dict[str, float]:
    result: dict[str, float] = {}
    for name, pattern, left_out in CATEGORIES:
        functions = _anchored(pattern)
        result[name] = sum(cost for (caller, callee), cost in edges.items()
                           if re.search(functions, callee) and not re.search(functions, caller)
                           and not (left_out and re.search(left_out, caller)))
    result["other"] = total - sum(result.values())
    result["total"] = total
    return result


def per_call(later: tuple[int, dict], earlier: tuple[int, dict], n: int) -> tuple[dict, list]:
    total = (later[0] - earlier[0]) / n
    keys = set(later[1]) | set(earlier[1])
    edges = {key: (later[1].get(key, 0) - earlier[1].get(key, 0)) / n for key in keys}
    callees: dict[str, float] = {}
    for (_, callee), cost in edges.items():
        callees[callee] = callees.get(callee, 0) + cost
    top = sorted(callees.items(), key=lambda item: -item[1])[:80]
    return categorize(total, edges), top


def main() -> int:
    args = arguments()
    os.makedirs(args.out, exist_ok=True)
    work = tempfile.mkdtemp(prefix="paypulse-profile-")
    python = sys.executable
    # valgrind 3.19 cannot read Swift 6.3's DWARF 5: profile copies without debug info
    # (the symbol table, which names the functions, stays).
    bin_dir = os.path.join(work, "bin")
    os.makedirs(bin_dir)
    for function in ("store-tokens", "user-profile"):
        subprocess.run(["strip", "--strip-debug", "-o", os.path.join(bin_dir, function),
                        os.path.join(args.bin_dir, function)], check=True)
    os.symlink(os.path.join(args.bin_dir, "paypulse"), os.path.join(bin_dir, "paypulse"))  # signs the events, seeds
    moto_server = servers.start_moto(work)
    google = servers.start_fake_google(python, args.peer, work)
    setup = sides.Setup(swift_bin=bin_dir, floor_bin="", peer_dir=args.peer, python=python,
                        moto_url=moto_server.url, google_url=google.url, state_dir=os.path.join(work, "state"))
    n = args.calls
    users = [f"warm-{i:05d}" for i in range(n)] + [f"warm-up-{i}" for i in range(WARMUP)]
    report: dict = {"calls": n, "loops": {}}
    try:
        for function, runs in plans(setup, n).items():
            if args.only and function != args.only:
                continue
            measured: dict[str, tuple[int, dict[str, int]]] = {}
            for label, event_list in runs:
                servers.moto_reset(moto_server)
                seeding.fixtures(setup)
                seeding.put_users(setup, users)
                out_file = os.path.join(args.out, f"callgrind.{function}.{label}")
                started = time.perf_counter()
                if not args.reuse:
                    run_once(setup, function, event_list, out_file)
                measured[label] = call_edges(out_file)
                print(f"  {function} {label}: {len(event_list)} events, {measured[label][0]:,} Ir, "
                      f"{time.perf_counter() - started:.0f} s", file=sys.stderr, flush=True)
            labels = [label for label, _ in runs]
            for earlier, later in zip(labels, labels[1:]):
                phase = {"new": "store-tokens, new users", "same": "store-tokens, same users"}.get(later, "user-profile")
                categories, top = per_call(measured[later], measured[earlier], n)
                report["loops"][phase] = {"categories": categories, "top_inclusive": top}
            if not args.keep and not args.reuse:
                for label in labels:
                    os.remove(os.path.join(args.out, f"callgrind.{function}.{label}"))
    finally:
        google.stop()
        moto_server.stop()
    with open(os.path.join(args.out, "warm-profile.json"), "w") as fh:
        json.dump(report, fh, indent=1)
    names = [name for name, _, _ in CATEGORIES] + ["other", "total"]
    print("| loop | " + " | ".join(names) + " |")
    print("| --- |" + " ---: |" * len(names))
    for phase, data in report["loops"].items():
        print(f"| {phase} | " + " | ".join(f"{data['categories'][k] / 1000:,.0f} k" for k in names) + " |")
    print(f"(instructions per invocation, N = {n}; details in {args.out}/warm-profile.json)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
