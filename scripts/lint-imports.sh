#!/usr/bin/env bash
# Fails, naming file:line, when a Swift file imports anything but a platform module inside
# an `#if`/`#elseif`/`#else` block. A project or dependency module (PayPulse*, Logging,
# Crypto, ArgumentParser...) imported only there is lost on a platform where the condition
# goes the other way (e.g. without FoundationEssentials), and the file stops compiling.
#
# A script rather than a Swift test: it runs before the build (seconds, not minutes), and
# it also reads Fuzz/, whose targets a normal build never compiles.
#
# Usage: scripts/lint-imports.sh [DIR...]   (default: Sources Tests Fuzz)
#        scripts/lint-imports.sh --self-test  (proves it fails on a bad file, passes a good one)
set -euo pipefail
cd "$(dirname "$0")/.."

# Modules that exist per platform, and so belong inside a platform #if.
platform='Foundation|FoundationEssentials|FoundationNetworking|Glibc|Musl|Darwin|Bionic|Android|WinSDK|WASILibc|ucrt|CRT'

lint() { # $@ = directories; prints file:line: message for each offending import
  find "$@" -name '*.swift' -type f -print0 | sort -z | xargs -0 -r awk -v platform="^($platform)$" '
    FNR == 1 { depth = 0 }
    /^[[:space:]]*#if([[:space:](!]|$)/ { depth++; next }
    /^[[:space:]]*#endif([[:space:]]|\/\/|$)/ { if (depth > 0) depth--; next }
    depth > 0 {
      line = $0
      sub(/\/\/.*/, "", line)
      # Attributes (@testable, @preconcurrency, @_exported) and access levels may precede it.
      while (match(line, /^[[:space:]]*@[A-Za-z_]+(\([^)]*\))?/)) line = substr(line, RLENGTH + 1)
      sub(/^[[:space:]]*((public|package|internal|fileprivate|private)[[:space:]]+)?/, "", line)
      if (line !~ /^import[[:space:]]/) next
      sub(/^import[[:space:]]+((typealias|struct|class|enum|protocol|let|var|func)[[:space:]]+)?/, "", line)
      module = line
      sub(/[.[:space:]].*/, "", module)
      if (module !~ platform)
        printf "%s:%d: import of %s inside an #if block; import it outside the #if (only platform modules belong there)\n", FILENAME, FNR, module
    }'
}

self_test() {
  local dir
  dir=$(mktemp -d -t lint-imports.XXXXXX)
  trap 'rm -rf "$dir"' RETURN
  mkdir -p "$dir/good" "$dir/bad"
  cat >"$dir/good/Good.swift" <<'SWIFT'
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Logging
import struct PayPulsePorts.UserRecord
SWIFT
  cat >"$dir/bad/Bad.swift" <<'SWIFT'
#if canImport(FoundationEssentials)
import FoundationEssentials
import PayPulseCoding
#else
import Foundation
#if DEBUG
@testable import Logging
#endif
#endif
#if os(Linux)
#elseif os(macOS)
public import struct Crypto.SHA256
#endif
import PayPulseDomain
SWIFT
  local out
  out=$(lint "$dir/good")
  [ -z "$out" ] || { echo "lint-imports self-test: a good file was flagged: $out" >&2; return 1; }
  out=$(lint "$dir/bad")
  local expected="$dir/bad/Bad.swift:3: import of PayPulseCoding inside an #if block
$dir/bad/Bad.swift:7: import of Logging inside an #if block
$dir/bad/Bad.swift:12: import of Crypto inside an #if block"
  if [ "$(sed 's/;.*//' <<<"$out")" != "$expected" ]; then
    echo "lint-imports self-test: expected
$expected
got
$out" >&2
    return 1
  fi
  echo "lint-imports self-test: flags imports inside #if/#elseif/#else (nested too), passes platform imports"
}

if [ "${1:-}" = "--self-test" ]; then
  self_test
  exit
fi

dirs=("$@")
[ ${#dirs[@]} -gt 0 ] || dirs=(Sources Tests Fuzz)
hits=$(lint "${dirs[@]}")
if [ -n "$hits" ]; then
  echo "$hits" >&2
  echo "lint-imports: project modules are imported inside a platform #if (above)" >&2
  exit 1
fi
echo "lint-imports: only platform modules are imported inside #if blocks (${dirs[*]})"
