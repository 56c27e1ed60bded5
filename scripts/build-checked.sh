#!/usr/bin/env bash
# Builds everything (tests included) and fails on any compiler warning in our own sources.
set -euo pipefail
log=$(mktemp -t paypulse-build.XXXXXX.log)
swift build --build-tests "$@" 2>&1 | tee "$log"
root=$(pwd)
if grep -E "^($root/)?(Sources|Tests)/[^:]+:[0-9]+:[0-9]+: warning:" "$log" | sort -u | grep .; then
  echo "build-checked: the warnings above are in our sources; the build must be warning-free" >&2
  exit 1
fi
