#!/usr/bin/env bash
# Makes sure .venv-sam holds the AWS SAM CLI and cfn-lint (pip), creating it when missing;
# quiet when all is there. Prints the venv's absolute path on stdout: the SAM CLI is
# "$(scripts/ensure-sam.sh)/bin/sam", and the Lambda Runtime Interface Emulator ships
# inside it (samcli/local/rapid/aws-lambda-rie-x86_64).
set -euo pipefail
cd "$(dirname "$0")/.."

venv="$PWD/.venv-sam"
if [ ! -x "$venv/bin/sam" ] || [ ! -x "$venv/bin/cfn-lint" ]; then
  echo "ensure-sam: installing aws-sam-cli and cfn-lint into $venv" >&2
  [ -x "$venv/bin/python" ] || python3 -m venv "$venv"
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check aws-sam-cli cfn-lint >&2
fi
echo "$venv"
