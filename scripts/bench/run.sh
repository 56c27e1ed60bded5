#!/usr/bin/env bash
# `make bench`: the benchmark (scripts/bench/run.py), side by side with a Python + boto3 peer
# given as --peer DIR (a directory of its own, not in this repository; without it ours alone).
# Installs what it needs (moto, GNU time, a venv in .build-bench/ with matplotlib, and the peer's
# PyJWT and boto3),
# builds the functions it measures as the deploy bundles do (release, one static executable
# each, in .build-lambda), the developer CLI it signs events and seeds with (debug, .build:
# a tool, not measured; built by the tests anyway) and the minimal Swift program, then runs.
# Arguments go to run.py:
#   scripts/bench/run.sh --quick                       # CI-sized
#   scripts/bench/run.sh --quick --bin-dir .build/debug  # reuse another build of the functions
#   scripts/bench/run.sh --quick --tls                 # HTTPS through nginx (installed if missing)
#   scripts/bench/run.sh --quick --peer DIR            # beside the peer in DIR
set -euo pipefail
cd "$(dirname "$0")/../.."

if [[ " $* " == *" --tls "* ]]; then scripts/ensure-deps.sh --with-moto --with-nginx; else scripts/ensure-deps.sh --with-moto; fi
if [ ! -x /usr/bin/time ]; then  # GNU time measures peak RSS from a small parent (see benchlib/procs.py)
  sudo_if_needed() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }
  sudo_if_needed apt-get update -qq && DEBIAN_FRONTEND=noninteractive sudo_if_needed apt-get install -y -qq time >/dev/null
fi
export PYTHONDONTWRITEBYTECODE=1

venv=.build-bench/venv
if [ ! -x "$venv/bin/python" ]; then
  base=$(python3 -c 'import sys; print(sys.executable)')
  "$base" -m venv --system-site-packages "$venv"
fi
"$venv/bin/python" -c 'import matplotlib, jwt, boto3' 2>/dev/null ||
  "$venv/bin/pip" install --quiet matplotlib 'PyJWT>=2.8' boto3

if [[ " $* " != *" --cli-dir "* ]]; then swift build --product paypulse 2>&1 | tail -n 1; fi
if [[ " $* " != *" --bin-dir "* ]]; then
  . scripts/lambda-build-flags.sh
  for product in store-tokens user-profile token-refresh fresh-token; do
    swift build "${lambda_build_flags[@]}" --product "$product" 2>&1 | tail -n 1
  done
  # The deployment bundles, whose sizes are reported (the same build; n/a without the script).
  if [ -x scripts/bundle.sh ]; then scripts/bundle.sh >/dev/null; fi
fi
mkdir -p .build-bench
bin=.build-bench/floor src=scripts/bench/floor/echo.swift  # the minimal Swift program (the cold floor)
if [ ! -x "$bin" ] || [ "$src" -nt "$bin" ]; then swiftc -O -static-executable "$src" -o "$bin"; fi
# The exchange floor's replayer (benchlib/floor.py), on the system's libcurl.
bin=.build-bench/replay-curl src=scripts/bench/floor/replay_curl.c
if [ ! -x "$bin" ] || [ "$src" -nt "$bin" ]; then cc -O2 -Wall "$src" -o "$bin" $(pkg-config --cflags --libs libcurl); fi

exec "$venv/bin/python" scripts/bench/run.py "$@"
