#!/usr/bin/env bash
# Google's token and revoke endpoints over HTTPS, for the bundle proofs: the Swift stand-in
# (`paypulse fake-google`: the grants of events/manifest.json, Google's rules) on a loopback
# port, behind scripts/tls-front.sh (socat terminating TLS with a fresh self-signed
# certificate for 127.0.0.1). Writes into DIR: cert.pem (the CA to trust), requests.log (one
# line per request, "METHOD PATH field,names", no values) and, once both listen, url
# (https://127.0.0.1:PORT). Runs until stopped (SIGTERM), then stops both.
# Usage: scripts/fake-google-tls.sh PAYPULSE DIR CLIENT_ID
set -euo pipefail
cd "$(dirname "$0")/.."
paypulse=$1 dir=$2 client_id=$3

google_pid="" relay_pid=""
stop() {
  if [ -n "$relay_pid" ]; then kill "$relay_pid" 2>/dev/null || true; wait "$relay_pid" 2>/dev/null || true; fi
  if [ -n "$google_pid" ]; then kill "$google_pid" 2>/dev/null || true; fi
}
trap stop EXIT
trap 'exit 0' TERM INT
fail() { echo "fake-google-tls: $*" >&2; exit 1; }

mkdir -p "$dir"
"$paypulse" fake-google --client-id "$client_id" --port-file "$dir/plain-port" --log "$dir/requests.log" &
google_pid=$!
for _ in $(seq 1 300); do [ -s "$dir/plain-port" ] && break; sleep 0.1; done
[ -s "$dir/plain-port" ] || fail "the stand-in for Google did not start"

# The front writes url once it listens, after the stand-in does: so once both listen.
scripts/tls-front.sh "$dir" "$(cat "$dir/plain-port")" &
relay_pid=$!
wait
