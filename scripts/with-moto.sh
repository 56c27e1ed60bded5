#!/usr/bin/env bash
# Runs a command with a moto_server on a free 127.0.0.1 port, exported to it as
# PAYPULSE_TEST_MOTO_ENDPOINT, and stops that server when the command ends, however it ends.
# When PAYPULSE_TEST_MOTO_ENDPOINT is already set, uses that server instead.
#
# moto has one launcher, Swift's MotoServer (Sources/TestSupport), which the suites also use
# for their private servers: this builds its `with-moto` tool (debug, in .build; nothing
# once built: scripts/build-product.sh) and runs the command under it. Usage: scripts/with-moto.sh COMMAND [ARG...]
set -euo pipefail

if [ -n "${PAYPULSE_TEST_MOTO_ENDPOINT:-}" ]; then
  exec "$@"
fi

package=$(cd "$(dirname "$0")/.." && pwd)
log=$(mktemp -t with-moto-build.XXXXXX.log)
if ! "$package/scripts/build-product.sh" with-moto 2>"$log"; then
  cat "$log" >&2
  rm -f "$log"
  echo "with-moto.sh: building the with-moto tool failed (above)" >&2
  exit 1
fi
rm -f "$log"
exec "$package/.build/debug/with-moto" "$@"
