#!/usr/bin/env bash
# What Linux can check of the macOS build (the iOS developers build there; no Mac runs CI):
#   1. Swift: Glibc-only spellings (SOCK_STREAM.rawValue, MSG_NOSIGNAL, SOCK_CLOEXEC,
#      Glibc.name, posix_spawn types built with ()) only inside an `#if canImport(Glibc)`
#      branch, and every `import Glibc` block with a Darwin branch beside it.
#   2. C: a Linux library file name (libX.so.N) only beside its macOS name (libX.N.dylib).
#   3. Package.swift: Linux-only libraries (dl, rt) linked only `.when(platforms: [.linux])`.
#   4. scripts/ensure-deps.sh on a pretend Mac (uname says Darwin): it succeeds and never
#      calls apt-get.
# Usage: scripts/lint-platforms.sh [--self-test]   (the self-test proves each rule can fail)
set -euo pipefail
cd "$(dirname "$0")/.."

swift_rule() { # $@ = directories
  find "$@" -name '*.swift' -type f -print0 | sort -z | xargs -0 -r awk '
    FNR == 1 { depth = 0; glibc = 0; sawGlibcImport = 0; sawDarwin = 0 }
    # A branch is Linux-only when its condition names Glibc or Linux, or when it is the
    # #else of a condition that named Darwin.
    /^[[:space:]]*#if[[:space:](]/ {
      depth++; branch[depth] = ($0 ~ /canImport\(Glibc\)|os\(Linux\)/); apple[depth] = ($0 ~ /canImport\(Darwin\)|os\(macOS\)/)
      if (apple[depth]) sawDarwin = 1
      next
    }
    /^[[:space:]]*#elseif/ {
      branch[depth] = ($0 ~ /canImport\(Glibc\)|os\(Linux\)/)
      if ($0 ~ /canImport\(Darwin\)|os\(macOS\)/) { sawDarwin = 1; apple[depth] = 1 }
      next
    }
    /^[[:space:]]*#else/ { branch[depth] = apple[depth]; next }
    /^[[:space:]]*#endif/ {
      if (sawGlibcImport && !sawDarwin) printf "%s:%d: import Glibc without a canImport(Darwin) branch\n", FILENAME, FNR
      sawGlibcImport = 0; sawDarwin = 0
      if (depth > 0) depth--; next
    }
    {
      inGlibc = 0
      for (i = 1; i <= depth; i++) if (branch[i]) inGlibc = 1
      line = $0; sub(/\/\/.*/, "", line)
      if (line ~ /^[[:space:]]*(@preconcurrency[[:space:]]+)?import[[:space:]]+Glibc/) sawGlibcImport = 1
      if (!inGlibc && line ~ /SOCK_STREAM\.rawValue|MSG_NOSIGNAL|SOCK_CLOEXEC|Glibc\.[a-z]|posix_spawn_file_actions_t\(\)|posix_spawnattr_t\(\)/)
        printf "%s:%d: a Glibc-only spelling outside an #if canImport(Glibc) branch\n", FILENAME, FNR
    }'
}

c_rule() { # $@ = directories
  local file
  while IFS= read -r -d '' file; do
    if grep -qE '"lib[A-Za-z0-9_+-]+\.so(\.[0-9]+)?"' "$file" && ! grep -qE '"lib[A-Za-z0-9_+-]+(\.[0-9]+)?\.dylib"' "$file"; then
      echo "$file: names a Linux library file (.so) with no macOS name (.dylib) beside it"
    fi
  done < <(find "$@" \( -name '*.c' -o -name '*.h' \) -type f -print0)
}

package_rule() { # $1 = Package.swift
  grep -nE '\.linkedLibrary\("(dl|rt)"' "$1" | grep -v 'when(platforms: \[\.linux\])' | sed "s|^|$1:|;s|$| (Linux-only library linked on every platform)|" || true
}

ensure_deps_rule() { # $1 = the script
  local fake out
  fake=$(mktemp -d -t lint-platforms.XXXXXX)
  for tool in apt-get sudo; do printf '#!/bin/sh\necho called >> "%s/apt-called"\nexit 1\n' "$fake" >"$fake/$tool"; done
  printf '#!/bin/sh\necho Darwin\n' >"$fake/uname"
  printf '#!/bin/sh\necho /Library/Developer/CommandLineTools/SDKs/MacOSX.sdk\n' >"$fake/xcrun"
  printf '#!/bin/sh\nexit 1\n' >"$fake/pkg-config"
  chmod +x "$fake"/*
  if ! out=$(PATH="$fake:$PATH" bash "$1" --with-browser 2>&1) && [ ! -e "$fake/apt-called" ]; then
    echo "$1: fails on macOS: $out"
  fi
  if [ -e "$fake/apt-called" ]; then echo "$1: calls apt-get or sudo on macOS"; fi
  rm -rf "$fake"
}

lint() { # $1 = root
  { swift_rule "$1/Sources" "$1/Tests" $( [ -d "$1/Fuzz" ] && echo "$1/Fuzz" ); c_rule "$1/Sources"; package_rule "$1/Package.swift"
    ensure_deps_rule "$1/scripts/ensure-deps.sh"; }
}

self_test() {
  local dir problems
  dir=$(mktemp -d -t lint-platforms-self.XXXXXX)
  trap 'rm -rf "$dir"' RETURN
  mkdir -p "$dir/Sources/Good" "$dir/Sources/C" "$dir/Tests" "$dir/scripts"
  cat >"$dir/Sources/Good/Good.swift" <<'SWIFT'
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
#if canImport(Glibc)
let kind = Int32(SOCK_STREAM.rawValue)
#else
let kind = SOCK_STREAM
#endif
SWIFT
  # The macOS branch first: Glibc spellings in the #else of a Darwin condition are Linux's.
  cat >"$dir/Sources/Good/DarwinFirst.swift" <<'SWIFT'
#if canImport(Darwin)
import Darwin
let flags: Int32 = 0
#else
import Glibc
let flags = Int32(MSG_NOSIGNAL)
#endif
#if os(macOS)
let spawnActions: posix_spawn_file_actions_t? = nil
#else
let spawnActions = posix_spawn_file_actions_t()
#endif
SWIFT
  printf '#if defined(__APPLE__)\n#define NAME "libz.1.dylib"\n#else\n#define NAME "libz.so.1"\n#endif\n' >"$dir/Sources/C/good.c"
  printf '.linkedLibrary("dl", .when(platforms: [.linux]))\n' >"$dir/Package.swift"
  printf '#!/bin/sh\ncase "$(uname -s)" in Darwin) exit 0;; esac\napt-get install x\n' >"$dir/scripts/ensure-deps.sh"
  problems=$(lint "$dir")
  [ -z "$problems" ] || { echo "lint-platforms self-test: a good tree was flagged: $problems" >&2; return 1; }

  printf '#if canImport(Glibc)\nimport Glibc\n#endif\nlet kind = Int32(SOCK_STREAM.rawValue)\nlet x = Glibc.close(1)\n' >"$dir/Sources/Good/Bad.swift"
  # Linux spellings inside the macOS branch of each form of condition.
  printf '#if canImport(Darwin)\nlet a = SOCK_CLOEXEC\n#elseif canImport(Glibc)\nlet a = 0\n#endif\n#if os(macOS)\nlet b = MSG_NOSIGNAL\n#endif\n' >"$dir/Sources/Good/BadDarwin.swift"
  printf '#define NAME "libcurl.so.4"\n' >"$dir/Sources/C/bad.c"
  printf '.linkedLibrary("dl")\n' >"$dir/Package.swift"
  printf '#!/bin/sh\napt-get install x\n' >"$dir/scripts/ensure-deps.sh"
  problems=$(lint "$dir")
  local expected
  for expected in "Bad.swift:3: import Glibc without" "Bad.swift:4: a Glibc-only spelling" "Bad.swift:5: a Glibc-only spelling" \
    "BadDarwin.swift:2: a Glibc-only spelling" "BadDarwin.swift:7: a Glibc-only spelling" \
    "bad.c: names a Linux library" "Package.swift:1:" "ensure-deps.sh: calls apt-get"; do
    if ! grep -qF "$expected" <<<"$problems"; then
      echo "lint-platforms self-test: missed \"$expected\"; found: $problems" >&2
      return 1
    fi
  done
  # ensure-deps.sh's macOS path failing without touching apt-get (no SDK found, say).
  printf '#!/bin/sh\ncase "$(uname -s)" in Darwin) echo "no macOS SDK" >&2; exit 1;; esac\n' >"$dir/scripts/ensure-deps.sh"
  problems=$(ensure_deps_rule "$dir/scripts/ensure-deps.sh")
  if ! grep -qF "ensure-deps.sh: fails on macOS: no macOS SDK" <<<"$problems"; then
    echo "lint-platforms self-test: missed an ensure-deps.sh that fails on macOS; found: $problems" >&2
    return 1
  fi
  echo "lint-platforms: self-test passed (a good tree with Linux-first and macOS-first branches passes; 9 planted faults are caught)"
}

if [ "${1:-}" = "--self-test" ]; then self_test; exit; fi
problems=$(lint .)
if [ -n "$problems" ]; then
  echo "$problems" >&2
  echo "lint-platforms: the macOS build would break (see above)" >&2
  exit 1
fi
echo "lint-platforms: Swift, C, Package.swift and ensure-deps.sh are fit for macOS as far as Linux can tell"
