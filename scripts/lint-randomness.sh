#!/usr/bin/env bash
# Fails when the product's own code draws an id from `UUID()`. Foundation's UUID() silently
# yields all zeros where /dev/urandom is missing (seen in a bare chroot): two lifecycle events,
# two claims of a security event or two temporary files would then share one id. The product
# draws ids from the system generator (`SecretVersionID.random()`, getrandom(2)). Tools, test
# support and the local server (Executables, TestSupport, LocalServer, FakeGoogle) may use it.
# `--self-test` plants a use and checks that it is found.
set -euo pipefail
cd "$(dirname "$0")/.."

# Lines of code (not comments) under the given folders that call UUID().
uses() { grep -rnE --include='*.swift' 'UUID\(\)' "$@" | grep -vE '^[^:]+:[0-9]+:[[:space:]]*//' || true; }

if [ "${1:-}" = --self-test ]; then
  dir=$(mktemp -d)
  trap 'rm -rf "$dir"' EXIT
  printf '/// not `UUID()` but the system generator\nlet id = SecretVersionID.random()\n' >"$dir/Clean.swift"
  [ -z "$(uses "$dir")" ] || { echo "lint-randomness self-test: a comment was taken for a use" >&2; exit 1; }
  printf 'let path = "/tmp/" + UUID().uuidString\n' >"$dir/Planted.swift"
  [ -n "$(uses "$dir")" ] || { echo "lint-randomness self-test: a planted UUID() was not found" >&2; exit 1; }
  echo "lint-randomness self-test: a planted UUID() is found, a comment is not"
  exit 0
fi

found=$(uses Sources/Domain Sources/Handlers Sources/Adapters Sources/Ports Sources/Runtime Sources/App Sources/Transport Sources/Coding)
if [ -n "$found" ]; then
  echo "$found" >&2
  echo "lint-randomness: ids in the product come from the system generator (SecretVersionID.random()), not UUID()" >&2
  exit 1
fi
echo "lint-randomness: no UUID() in the product's code"
