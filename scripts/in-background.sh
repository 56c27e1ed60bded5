#!/usr/bin/env bash
# Runs a stage of `make test` beside the ones that follow it, for work that mostly computes
# (the static release build) while they mostly wait (the suites wait on moto, subprocesses
# and time-outs): `start` returns at once, `wait` blocks until it ends, prints its output
# and exits with its status, so a failure still fails the run, where it is waited for.
# Usage: scripts/in-background.sh start NAME COMMAND [ARG...] | wait NAME | stop (ends every one)
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=.build/reports/background
mkdir -p "$jobs"

case "${1:-}" in
  start)
    [ $# -ge 3 ] || { echo "usage: scripts/in-background.sh start NAME COMMAND [ARG...]" >&2; exit 64; }
    name=$2
    shift 2
    rm -f "$jobs/$name.status"
    # Its own session: it outlives the make recipe that started it, and nothing reads its stdin.
    setsid bash -c '"${@:2}" >"$1.log" 2>&1 </dev/null; echo $? >"$1.status"' in-background "$jobs/$name" "$@" &
    echo "$!" >"$jobs/$name.pid"
    echo "in-background: $name started (pid $!; output in $jobs/$name.log)"
    ;;
  wait)
    [ $# = 2 ] || { echo "usage: scripts/in-background.sh wait NAME" >&2; exit 64; }
    name=$2
    [ -e "$jobs/$name.log" ] || { echo "in-background: $name was never started" >&2; exit 1; }
    while [ ! -s "$jobs/$name.status" ]; do sleep 2; done
    cat "$jobs/$name.log"
    status=$(cat "$jobs/$name.status")
    echo "in-background: $name ended with status $status"
    exit "$status"
    ;;
  stop)  # a run that ended early leaves nothing computing behind it
    for pid_file in "$jobs"/*.pid; do
      [ -e "$pid_file" ] || continue
      name=$(basename "$pid_file" .pid)
      [ -s "$jobs/$name.status" ] || kill -- -"$(cat "$pid_file")" 2>/dev/null || true
      rm -f "$pid_file"
    done
    ;;
  *) echo "usage: scripts/in-background.sh start NAME COMMAND [ARG...] | wait NAME | stop" >&2; exit 64 ;;
esac
