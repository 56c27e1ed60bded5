#!/usr/bin/env bash
# Checks template.yaml: cfn-lint, `sam validate --lint`, `sam build` (makefile build in the
# source tree, no container), then scripts/check_template.py for what the linters miss,
# including its self-test (every check must flag a broken copy). Needs no AWS account.
set -euo pipefail
cd "$(dirname "$0")/.."

venv=$(scripts/ensure-sam.sh)
# SAM writes its metadata under $HOME/.aws-sam: give it a throwaway home, and no telemetry.
sam_home=$(mktemp -d -t paypulse-sam-home.XXXXXX)
trap 'rm -rf "$sam_home"' EXIT
export SAM_CLI_TELEMETRY=0
sam() { HOME="$sam_home" "$venv/bin/sam" "$@"; }

started=$SECONDS
step() { printf '== [%3d s] %s\n' "$((SECONDS - started))" "$*" >&2; }

step "cfn-lint template.yaml"
"$venv/bin/cfn-lint" template.yaml

step "sam validate --lint"
sam validate --lint --template-file template.yaml

step "swift build --product paypulse (check_template.py asks \`paypulse deploy-facts\` what the code says)"
scripts/build-product.sh paypulse 2>/dev/null

step "check_template.py --self-test"
"$venv/bin/python" scripts/check_template.py template.yaml --self-test

step "sam build (in source, no container)"
sam build --build-in-source --template-file template.yaml

step "check_template.py"
"$venv/bin/python" scripts/check_template.py template.yaml --build-dir .aws-sam/build
# The built template must still name the same functions with their artifact directories.
"$venv/bin/python" scripts/check_template.py .aws-sam/build/template.yaml --built --build-dir .aws-sam/build

echo "check-template: ok in $((SECONDS - started)) s"
