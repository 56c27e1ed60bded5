#!/usr/bin/env bash
# Fails when a function's main.swift does not hand its process to `FunctionMain.main` or
# awaits at top level. An async top-level `main` parks the main thread in dispatch_main(),
# which ends it with pthread_exit, a forced unwind; in the bundles' static executables the
# first unwind sorts every frame description of the binary: 275 M instructions on every cold
# start, where the whole start is 10 M (docs/perf/lean-bundle.md). Nothing else would notice.
set -euo pipefail
cd "$(dirname "$0")/.."
failed=0
for function in store-tokens user-profile token-refresh disconnect fresh-token security-events; do
  main="Sources/Executables/$function/main.swift"
  if ! grep -qE '^FunctionMain\.main\(\.[A-Za-z]+\)$' "$main" || grep -qw 'await' "$main"; then
    echo "lint-mains: $main must be 'FunctionMain.main(.name)' with no top-level await" >&2
    failed=1
  fi
done
[ "$failed" = 0 ] || exit 1
echo "lint-mains: every function's main is FunctionMain.main (no async top-level main)"
