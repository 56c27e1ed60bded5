#!/usr/bin/env bash
# Google's token and revoke endpoints over HTTPS, for the bundle proofs: the Swift stand-in
# (`paypulse fake-google`: the grants of events/manifest.json, Google's rules) on a loopback
# port, behind socat, which terminates TLS with a fresh self-signed certificate for
# 127.0.0.1. Writes into DIR: cert.pem (the CA to trust), requests.log (one line per
# request, "METHOD PATH field,names", no values) and, once both listen, url
# (https://127.0.0.1:PORT). Runs until stopped (SIGTERM), then stops both.
# Usage: scripts/fake-google-tls.sh PAYPULSE DIR CLIENT_ID
set -euo pipefail
cd "$(dirname "$0")/.."
paypulse=$1 dir=$2 client_id=$3

scripts/ensure-deps.sh --with-tls-relay
mkdir -p "$dir"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 -subj "/CN=127.0.0.1" \
  -addext "subjectAltName=IP:127.0.0.1" -keyout "$dir/key.pem" -out "$dir/cert.pem" 2>/dev/null

google_pid="" relay_pid=""
stop() {
  # socat forks one child per connection: those first, then socat, then the stand-in.
  if [ -n "$relay_pid" ]; then pkill -P "$relay_pid" 2>/dev/null || true; kill "$relay_pid" 2>/dev/null || true; fi
  if [ -n "$google_pid" ]; then kill "$google_pid" 2>/dev/null || true; fi
}
trap stop EXIT
trap 'exit 0' TERM INT
fail() { echo "fake-google-tls: $*" >&2; exit 1; }

"$paypulse" fake-google --client-id "$client_id" --port-file "$dir/plain-port" --log "$dir/requests.log" &
google_pid=$!
for _ in $(seq 1 300); do [ -s "$dir/plain-port" ] && break; sleep 0.1; done
[ -s "$dir/plain-port" ] || fail "the stand-in for Google did not start"

# Port 0: socat binds a free port and names it in its log ("listening on AF=2 127.0.0.1:PORT").
: >"$dir/relay.log"
socat -d -d "OPENSSL-LISTEN:0,bind=127.0.0.1,reuseaddr,fork,cert=$dir/cert.pem,key=$dir/key.pem,verify=0" \
  "TCP:127.0.0.1:$(cat "$dir/plain-port")" 2>"$dir/relay.log" &
relay_pid=$!
port=""
for _ in $(seq 1 300); do
  port=$(sed -n 's/.* listening on AF=2 127\.0\.0\.1:\([0-9]*\)$/\1/p' "$dir/relay.log")
  [ -n "$port" ] && break
  sleep 0.1
done
[ -n "$port" ] || fail "socat did not listen: $(cat "$dir/relay.log")"
echo "https://127.0.0.1:$port" >"$dir/url.tmp"
mv "$dir/url.tmp" "$dir/url"  # in place only once both listen
wait
