#!/usr/bin/env python3
"""The Python peer's warm loop, measured as ours is (benchlib/warm.py): one process imports the
peer's handler module (its src/, unchanged) and calls lambda_handler on each event of a JSON
list; before event number k, for every k in MARKS, it takes a procs.reading of itself (with
LOG: the size of that file too). Prints {"readings": {k: reading}, "statuses": [...]}.

    peer_warm_loop.py PEER_DIR HANDLER EVENTS_FILE MARKS MOTO_PID [LOG]
"""

import importlib, json, os, sys

# The bench's own helpers (standard library only), appended to the path so that no module of
# the peer's src/ is shadowed.
sys.path.append(os.path.dirname(os.path.abspath(__file__)))
from benchlib.procs import reading  # noqa: E402

peer, handler, events, marks, moto_pid, *log = sys.argv[1:]
sys.path.insert(0, os.path.join(peer, "src"))
handle = importlib.import_module(handler).lambda_handler
with open(events) as fh:
    events = json.load(fh)
marks, readings, statuses = {int(k) for k in marks.split(",")}, {}, []
for index, event in enumerate(events + [None]):
    if index in marks:
        readings[index] = reading(os.getpid(), int(moto_pid), *log)
    if event is not None:
        statuses.append(handle(event, None).get("statusCode"))
print(json.dumps({"readings": readings, "statuses": statuses}))
