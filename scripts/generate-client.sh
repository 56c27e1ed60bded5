#!/usr/bin/env bash
# Generates Sources/PayPulseClient/Generated (Types.swift, Client.swift) from openapi.yaml
# with swift-openapi-generator, built from Tools/OpenAPIGenerator in .build-openapi (its
# build plugin would cost every build of the package minutes; the output is committed).
# Its Types*.swift files are merged into one (scripts/merge-generated-types.py says why).
# `--check` writes nothing and fails when the committed output is not current (make test).
set -euo pipefail
cd "$(dirname "$0")/.."

target=Sources/PayPulseClient/Generated
swift build --package-path Tools/OpenAPIGenerator --scratch-path .build-openapi --product swift-openapi-generator -q
generator=$(swift build --package-path Tools/OpenAPIGenerator --scratch-path .build-openapi --show-bin-path)/swift-openapi-generator
out=$(mktemp -d -t paypulse-client.XXXXXX)
trap 'rm -rf "$out"' EXIT
if ! "$generator" generate openapi.yaml --config Sources/PayPulseClient/openapi-generator-config.yaml --output-directory "$out" \
  >"$out.log" 2>&1; then
  cat "$out.log" >&2
  exit 1
fi
# Its own settings go to the log; a warning (a schema it skips) fails here, not in the app.
if grep -iE 'warning|error' "$out.log" >&2; then echo "generate-client: the generator complained (above)" >&2; rm -f "$out.log"; exit 1; fi
rm -f "$out.log"

python3 scripts/merge-generated-types.py "$out"

if [ "${1:-}" = "--check" ]; then
  if ! diff -r -q "$out" "$target" >/dev/null 2>&1; then
    diff -r "$out" "$target" | head -40 >&2 || true
    echo "generate-client: $target is not what openapi.yaml generates; run scripts/generate-client.sh" >&2
    exit 1
  fi
  echo "generate-client: $target is current with openapi.yaml"
else
  rm -rf "$target"
  mkdir -p "$target"
  cp "$out"/*.swift "$target"/
  echo "generate-client: wrote $(ls "$target" | tr '\n' ' ')in $target"
fi
