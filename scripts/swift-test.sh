#!/usr/bin/env bash
# Runs the built test binary as `swift test --skip-build` would, without asking SwiftPM first.
# SwiftPM plans the build again (5 to 8 s here) whenever its environment differs from its
# last command's, and every run under scripts/with-moto.sh (a fresh moto port) or of a mutant
# (PAYPULSE_MUTANT) differs. The binary is `swift build --build-tests`'s (scripts/build-checked.sh).
# On macOS, where a test bundle needs its runner, this is `swift test --skip-build`.
# Usage: scripts/swift-test.sh [--filter REGEX] [--skip REGEX] [--list-tests] ...
set -euo pipefail

if [ "$(uname -s)" = Darwin ]; then
  [ "${1:-}" != --list-tests ] || { shift; exec swift test list --skip-build "$@"; }
  exec swift test --skip-build "$@"
fi
tests="$(cd "$(dirname "$0")/.." && pwd)/.build/debug/paypulse-gmail-connectPackageTests.xctest"
if [ ! -x "$tests" ]; then
  echo "swift-test.sh: $tests is not built (swift build --build-tests)" >&2
  exit 1
fi
exec "$tests" --testing-library swift-testing "$@"
