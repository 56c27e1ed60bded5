#!/usr/bin/env bash
# Fails when production code reads the process environment outside the configuration
# folder (Sources/App/Configuration), which reads every variable once into AppConfiguration.
# Test support (Sources/TestSupport) reads its own test knobs and is exempt; writing a
# variable (setenv, the Runtime's _X_AMZN_TRACE_ID export) is not a read.
set -euo pipefail
cd "$(dirname "$0")/.."
pattern='ProcessInfo\.processInfo\.environment|\bgetenv\(|\benviron\b|Context\.environment'
hits=$(grep -rnE "$pattern" Sources --include='*.swift' | grep -vE '^Sources/(App/Configuration|TestSupport)/' || true)
if [ -n "$hits" ]; then
  echo "lint-environment: the environment is read outside Sources/App/Configuration:" >&2
  echo "$hits" >&2
  exit 1
fi
echo "lint-environment: environment reads only in Sources/App/Configuration"
