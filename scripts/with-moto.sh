#!/usr/bin/env bash
# Runs a command with a moto_server on a free 127.0.0.1 port (moto picks it), exported to the tests as
# PAYPULSE_TEST_MOTO_ENDPOINT, and stops that server afterwards whatever happens.
# When PAYPULSE_TEST_MOTO_ENDPOINT is already set, uses that server instead.
set -euo pipefail

if [ -n "${PAYPULSE_TEST_MOTO_ENDPOINT:-}" ]; then
  exec "$@"
fi

# moto binds port 0 and prints the port the kernel chose: no window in which another
# listener can take a port picked here first.
log=$(mktemp -t moto-server.XXXXXX.log)
if command -v moto_server >/dev/null 2>&1; then
  moto_server -H 127.0.0.1 -p 0 >"$log" 2>&1 &
else
  python3 -m moto.server -H 127.0.0.1 -p 0 >"$log" 2>&1 &
fi
moto_pid=$!
trap 'kill "$moto_pid" 2>/dev/null || true; wait "$moto_pid" 2>/dev/null || true; rm -f "$log"' EXIT

# Wait until moto answers or exits; ten minutes without either counts as a hang.
endpoint=""
deadline=$((SECONDS + 600))
while [ "$SECONDS" -lt "$deadline" ]; do
  if ! kill -0 "$moto_pid" 2>/dev/null; then echo "moto_server exited; its log:" >&2; cat "$log" >&2; exit 1; fi
  port=$(sed -n 's|.*Running on http://127\.0\.0\.1:\([0-9][0-9]*\).*|\1|p' "$log" | head -n 1)
  if [ -n "$port" ] && curl -fsS -o /dev/null "http://127.0.0.1:$port/moto-api/" 2>/dev/null; then
    endpoint="http://127.0.0.1:$port"
    break
  fi
  sleep 0.1
done
[ -n "$endpoint" ] || { echo "moto_server did not answer within 600 s; its log:" >&2; cat "$log" >&2; exit 1; }
echo "with-moto: moto_server on $endpoint (pid $moto_pid)" >&2

export PAYPULSE_TEST_MOTO_ENDPOINT="$endpoint"
"$@"
