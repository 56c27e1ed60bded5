#!/usr/bin/env bash
# A TLS front for a plain-HTTP server on loopback, for the bundle proofs: socat terminates
# TLS with a fresh self-signed certificate for 127.0.0.1 (and aws.internal, the name the
# chroot proof gives it in a root's /etc/hosts) and relays each connection to
# 127.0.0.1:PORT. Writes into DIR: cert.pem (the CA to trust), key.pem, relay.log and, once
# socat listens, url (https://127.0.0.1:TLS_PORT). Runs until stopped (SIGTERM), then stops
# socat and its per-connection children.
# Usage: scripts/tls-front.sh DIR PORT
set -euo pipefail
cd "$(dirname "$0")/.."
dir=$1 upstream=$2

scripts/ensure-deps.sh --with-tls-relay
mkdir -p "$dir"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 -subj "/CN=127.0.0.1" \
  -addext "subjectAltName=IP:127.0.0.1,DNS:aws.internal" -keyout "$dir/key.pem" -out "$dir/cert.pem" 2>/dev/null

relay_pid=""
stop() {
  # socat forks one child per connection: those first, then socat.
  if [ -n "$relay_pid" ]; then pkill -P "$relay_pid" 2>/dev/null || true; kill "$relay_pid" 2>/dev/null || true; fi
}
trap stop EXIT
trap 'exit 0' TERM INT
fail() { echo "tls-front: $*" >&2; exit 1; }

# Port 0: socat binds a free port and names it in its log ("listening on AF=2 127.0.0.1:PORT").
: >"$dir/relay.log"
socat -d -d "OPENSSL-LISTEN:0,bind=127.0.0.1,reuseaddr,fork,cert=$dir/cert.pem,key=$dir/key.pem,verify=0" \
  "TCP:127.0.0.1:$upstream" 2>"$dir/relay.log" &
relay_pid=$!
port=""
for _ in $(seq 1 300); do
  port=$(sed -n 's/.* listening on AF=2 127\.0\.0\.1:\([0-9]*\)$/\1/p' "$dir/relay.log")
  [ -n "$port" ] && break
  kill -0 "$relay_pid" 2>/dev/null || fail "socat exited: $(cat "$dir/relay.log")"
  sleep 0.1
done
[ -n "$port" ] || fail "socat did not listen: $(cat "$dir/relay.log")"
echo "https://127.0.0.1:$port" >"$dir/url.tmp"
mv "$dir/url.tmp" "$dir/url"  # in place only once socat listens
wait "$relay_pid"
