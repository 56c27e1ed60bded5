#!/usr/bin/env bash
# Runs a command with a moto_server on a free 127.0.0.1 port, exported to the tests as
# PAYPULSE_TEST_MOTO_ENDPOINT, and stops that server afterwards whatever happens.
# When PAYPULSE_TEST_MOTO_ENDPOINT is already set, uses that server instead.
set -euo pipefail

if [ -n "${PAYPULSE_TEST_MOTO_ENDPOINT:-}" ]; then
  exec "$@"
fi

port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
log=$(mktemp -t moto-server.XXXXXX.log)
if command -v moto_server >/dev/null 2>&1; then
  moto_server -H 127.0.0.1 -p "$port" >"$log" 2>&1 &
else
  python3 -m moto.server -H 127.0.0.1 -p "$port" >"$log" 2>&1 &
fi
moto_pid=$!
trap 'kill "$moto_pid" 2>/dev/null || true; wait "$moto_pid" 2>/dev/null || true' EXIT

endpoint="http://127.0.0.1:$port"
for _ in $(seq 1 300); do
  if curl -fsS -o /dev/null "$endpoint/moto-api/" 2>/dev/null; then break; fi
  if ! kill -0 "$moto_pid" 2>/dev/null; then echo "moto_server exited; its log:" >&2; cat "$log" >&2; exit 1; fi
  sleep 0.1
done
curl -fsS -o /dev/null "$endpoint/moto-api/" || { echo "moto_server did not answer on $endpoint" >&2; exit 1; }
echo "with-moto: moto_server on $endpoint (pid $moto_pid)" >&2

export PAYPULSE_TEST_MOTO_ENDPOINT="$endpoint"
"$@"
