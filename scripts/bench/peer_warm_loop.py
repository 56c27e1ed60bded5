#!/usr/bin/env python3
"""The Python peer's warm loop, measured like ours: one process imports the peer's handler
modules (its src/, unchanged) and calls lambda_handler on the events of a JSON-lines file;
the process's own CPU (utime + stime from /proc/self/stat), moto's CPU and the time are noted
before event number k for every k in --marks (and --size-of's file size, when given).
Prints {"readings": {k: [seconds, cpu, moto_cpu]}, "statuses": [...]}.

    peer_warm_loop.py --peer DIR --handler store_tokens --events FILE --marks 3,503,1003 --moto-pid PID
"""

import argparse
import importlib
import json
import os
import sys
import time


# The benchmark's own helpers (standard library only), appended to the path so that no
# module of the peer's src/ is shadowed.
sys.path.append(os.path.dirname(os.path.abspath(__file__)))
from benchlib.procstat import cpu_seconds  # noqa: E402
from benchlib.tls import settled_size  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--peer", required=True)
    parser.add_argument("--handler", required=True)
    parser.add_argument("--events", required=True)
    parser.add_argument("--marks", required=True)
    parser.add_argument("--moto-pid", required=True, help="moto_server, whose CPU is noted too")
    parser.add_argument("--size-of", help="a file whose size is noted too (the HTTPS mode's access log)")
    args = parser.parse_args()
    sys.path.insert(0, os.path.join(args.peer, "src"))
    handler = importlib.import_module(args.handler).lambda_handler
    with open(args.events) as fh:
        events = [json.loads(line) for line in fh if line.strip()]
    marks = {int(k) for k in args.marks.split(",")}
    readings, statuses = {}, []
    for index, event in enumerate(events + [None]):
        if index in marks:
            # The log first: the bench's reading waits until nginx has written the lines of the
            # requests answered so far (benchlib/tls.py).
            size = settled_size(args.size_of) if args.size_of else None
            readings[index] = [time.perf_counter(), cpu_seconds(os.getpid()), cpu_seconds(args.moto_pid)] + ([size] if args.size_of else [])
        if event is None:
            break
        statuses.append(handler(event, None).get("statusCode"))
    print(json.dumps({"readings": readings, "statuses": statuses}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
