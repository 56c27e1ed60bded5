#!/usr/bin/env bash
# Builds one executable of the package in .build (debug), or the test binary (--tests),
# unless it is newer than every source already: SwiftPM plans the build again (5 to 8 s here)
# whenever its environment differs from its last command's, even with nothing to build. After
# a build the executable is touched, since SwiftPM relinks only what a change reached.
# SwiftPM's output goes to standard error. The warning-free build is scripts/build-checked.sh's.
# Usage: scripts/build-product.sh PRODUCT | --tests
set -euo pipefail
cd "$(dirname "$0")/.."

case "${1:-}" in
  "" | -h | --help) sed -n '2,7s/^# \{0,1\}//p' "$0" >&2; exit 64 ;;
  --tests) built=.build/debug/paypulse-gmail-connectPackageTests.xctest; build=(--build-tests); sources=(Sources Tests Package.swift) ;;
  *) built=.build/debug/$1; build=(--product "$1"); sources=(Sources Package.swift) ;;
esac
if [ -x "$built" ] && [ -z "$(find "${sources[@]}" -newer "$built" -print -quit)" ]; then
  exit 0
fi
"${SWIFT:-swift}" build "${build[@]}" >&2
touch "$built"
