#!/usr/bin/env bash
# Fails, naming file:line, on a `public` declaration outside Sources/PayPulseClient: the one
# library this package offers to others is the generated API client, so everything else is
# `package` (it crosses the package's own modules) or internal. A reader then sees a
# module's API apart from its insides, and nothing is promised to code outside the package.
#
# Usage: scripts/lint-access.sh [DIR...]   (default: Sources Tests Fuzz)
#        scripts/lint-access.sh --self-test  (proves it flags a planted declaration and passes a clean one)
set -euo pipefail
cd "$(dirname "$0")/.."

# The access modifier, not the word: the declaration keywords and modifiers that can follow it.
declaration='(func|var|let|init|struct|enum|class|protocol|static|typealias|extension|subscript|final|actor|private\(set\)|nonisolated|convenience|required|indirect|mutating|override|lazy|case|associatedtype|macro|import|@)'

lint() { # $@ = directories; prints file:line: message for each public declaration
  grep -rn --include='*.swift' -E "(^|[[:space:]])(@[A-Za-z_]+[[:space:]]+)*public[[:space:]]+$declaration" "$@" 2>/dev/null |
    grep -v -E '^Sources/PayPulseClient/' | grep -v -E '^[^:]+:[0-9]+:[[:space:]]*//' |
    sed -E 's/^([^:]+:[0-9]+):.*/\1: a public declaration outside the PayPulseClient product; make it package (or internal)/' || true
}

self_test() {
  local dir found
  dir=$(mktemp -d -t lint-access.XXXXXX)
  trap 'rm -rf "$dir"' RETURN
  printf 'package struct A {\n    /// a public key, in a comment\n    package let key = "public"\n}\n' >"$dir/Clean.swift"
  found=$(lint "$dir")
  [ -z "$found" ] || { echo "lint-access: self-test: a clean file was flagged: $found" >&2; return 1; }
  printf 'public struct B {\n    @discardableResult public func run() -> Int { 1 }\n}\n' >"$dir/Planted.swift"
  found=$(lint "$dir")
  [ "$(grep -c 'a public declaration' <<<"$found")" = 2 ] ||
    { echo "lint-access: self-test: the two planted declarations were not both flagged: $found" >&2; return 1; }
  echo "lint-access: self-test passed (2 planted declarations flagged, a clean file passes)"
}

if [ "${1:-}" = --self-test ]; then self_test; exit; fi
if [ $# = 0 ]; then set -- Sources Tests Fuzz; fi
found=$(lint "$@")
if [ -n "$found" ]; then
  echo "$found" >&2
  echo "lint-access: $(wc -l <<<"$found") public declaration(s) outside Sources/PayPulseClient" >&2
  exit 1
fi
