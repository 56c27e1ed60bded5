#!/usr/bin/env bash
# Runs a command with a moto_server on a free 127.0.0.1 port, exported to it as
# PAYPULSE_TEST_MOTO_ENDPOINT, and stops that server when the command ends, however it ends.
# When PAYPULSE_TEST_MOTO_ENDPOINT is already set, uses that server instead.
#
# moto has one launcher, Swift's MotoServer (Sources/TestSupport), which the suites also use
# for their private servers: this builds its `with-moto` tool (debug, in .build; a no-op
# once built) and runs the command under it. Usage: scripts/with-moto.sh COMMAND [ARG...]
set -euo pipefail

if [ -n "${PAYPULSE_TEST_MOTO_ENDPOINT:-}" ]; then
  exec "$@"
fi

package=$(cd "$(dirname "$0")/.." && pwd)
# A tool newer than every source runs as it is: asking SwiftPM again would cost seconds of
# planning, and the next `swift test` would plan again after it.
tool="$package/.build/debug/with-moto"
if [ -x "$tool" ] && [ -z "$(find "$package/Sources" "$package/Package.swift" -newer "$tool" -print -quit)" ]; then
  exec "$tool" "$@"
fi
log=$(mktemp -t with-moto-build.XXXXXX.log)
if ! swift build --package-path "$package" --product with-moto >"$log" 2>&1; then
  cat "$log" >&2
  rm -f "$log"
  echo "with-moto.sh: building the with-moto tool failed (above)" >&2
  exit 1
fi
rm -f "$log"
# Built from the sources as they are now, even where SwiftPM had nothing to relink.
touch "$tool"
exec "$tool" "$@"
