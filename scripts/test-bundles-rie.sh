#!/usr/bin/env bash
# Runs every Lambda bundle under the AWS Lambda Runtime Interface Emulator that ships
# inside the SAM CLI (samcli/local/rapid/aws-lambda-rie-x86_64; no Docker needed), on
# loopback ports: several invocations in one process, malformed events and a failing
# handler reported through /error, a start-up failure through /runtime/init/error.
# The checks are the suite BundleEmulatorTests (Tests/ReplayTests), which runs only when
# this names the emulator and the bundles. Run scripts/bundle.sh first.
set -euo pipefail
cd "$(dirname "$0")/.."

bundles="${PAYPULSE_LAMBDA_SCRATCH:-.build-lambda}/bundles"
for f in store-tokens user-profile token-refresh disconnect; do
  [ -f "$bundles/$f.zip" ] || { echo "test-bundles-rie: $bundles/$f.zip is missing; run scripts/bundle.sh" >&2; exit 1; }
done
venv=$(scripts/ensure-sam.sh)
rie=$(find "$venv"/lib/python3*/site-packages/samcli/local/rapid -name "aws-lambda-rie-$(uname -m)" | head -n 1)
[ -n "$rie" ] || { echo "test-bundles-rie: no aws-lambda-rie-$(uname -m) in $venv" >&2; exit 1; }
[ -x "$rie" ] || chmod +x "$rie"
# The developer CLI seeds the store and checks the answers (`paypulse seed`, `match-response`).
scripts/build-product.sh --tests  # with the CLI
PAYPULSE_RIE="$rie" PAYPULSE_BUNDLES="$(cd "$bundles" && pwd)" scripts/swift-test.sh --filter BundleEmulatorTests
