#!/usr/bin/env bash
# The API contract, checked the ways CI can (make contract, part of make test):
#   1. openapi.yaml validates (openapi-spec-validator) and every expected response under
#      events/ conforms to it (scripts/check-openapi.py, which first proves it can fail);
#   2. the copies made from it are current: the document paypulse serve embeds, and the
#      generated Swift client (Sources/PayPulseClient/Generated);
#   3. schemathesis, a real client generating requests from the document, against a built
#      `paypulse serve` (fresh embedded store, stand-in Google, a seeded user and a JWT
#      minted for them): no 5xx, and every response conforms to the document; once with
#      the development HS256 token, once as `serve --issuer` with an ES256 token of its
#      local issuer (PAYPULSE_AUTH_MODE=jwks). Each pass must see an accepted request.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/ensure-openapi-tools.sh
python3 scripts/check-openapi.py --self-test
python3 scripts/check-openapi.py
scripts/embed-openapi.sh --check
scripts/generate-client.sh --check

scripts/build-product.sh paypulse 2>/dev/null

# One schemathesis pass against a built `paypulse serve` on a fresh embedded store.
# $1: hs256 (the development key's token) or jwks (`serve --issuer`, an ES256 token from
# `paypulse jwt --alg ES256`: the API verifying an identity provider's token under its keys).
contract_pass() {
  local mode=$1 work url="" jwt server
  work=$(mktemp -d -t paypulse-contract.XXXXXX)
  export PAYPULSE_STORE=embedded PAYPULSE_STATE_DIR="$work/state" LOG_LEVEL=warning
  .build/debug/paypulse users put --id user-1 --name "Jane Smith" --email jane@example.com --created-on 2024-11-01T10:00:00Z >/dev/null
  local flags=(--port 0 --fake-google --grants events/manifest.json)
  [ "$mode" = jwks ] && flags+=(--issuer)
  LOG_LEVEL=info .build/debug/paypulse serve "${flags[@]}" >"$work/stdout" 2>"$work/stderr" &
  server=$!
  # shellcheck disable=SC2064 # the values of now, for this pass
  trap "kill $server 2>/dev/null || true; wait $server 2>/dev/null || true; rm -rf '$work'" EXIT
  for _ in $(seq 1 300); do
    url=$(grep -o 'http://127\.0\.0\.1:[0-9]*' "$work/stdout" | head -1 || true)
    [ -n "$url" ] && break
    kill -0 "$server" 2>/dev/null || { cat "$work/stderr" >&2; echo "test-contract: paypulse serve did not start" >&2; exit 1; }
    sleep 0.1
  done
  [ -n "$url" ] || { echo "test-contract: paypulse serve announced no address" >&2; exit 1; }
  # Minted after the start: under --issuer the key and the issuer's URL are the server's.
  if [ "$mode" = jwks ]; then
    jwt=$(.build/debug/paypulse jwt --sub user-1 --ttl 3600 --alg ES256)
  else
    jwt=$(.build/debug/paypulse jwt --sub user-1 --ttl 3600)
  fi
  SCHEMATHESIS_REPORT_DIR=".build/schemathesis/$mode" scripts/schemathesis.sh "$url" "$jwt"
  if grep -E '" 5[0-9][0-9] |\] 5[0-9][0-9] | 5[0-9][0-9] [0-9.]+ ms' "$work/stderr" | head -5 | grep .; then
    echo "test-contract: the server answered 5xx in $mode mode (its access log above)" >&2
    exit 1
  fi
  # An API route answering 200/201 shows the token verified (the console and the document
  # need none): a pass answered only 401 would prove little.
  if ! grep -qE ' /v1/[^ ]* 20[01] [0-9.]+ ms$' "$work/stderr"; then
    echo "test-contract: no request was accepted in $mode mode (its token did not verify)" >&2
    exit 1
  fi
  echo "test-contract: $mode: $(grep -c ' ms$' "$work/stderr" || true) requests from schemathesis answered, none with 5xx"
  kill "$server" 2>/dev/null || true
  wait "$server" 2>/dev/null || true
  rm -rf "$work"
  trap - EXIT
}

contract_pass hs256
contract_pass jwks
