#!/usr/bin/env bash
# Installs from PyPI what `make contract` needs and the machine lacks: openapi-spec-validator
# and jsonschema (scripts/check-openapi.py) and schemathesis (scripts/schemathesis.sh), at
# the versions the contract was last checked with. Installs nothing already there.
set -euo pipefail

missing=()
python3 -c 'import openapi_spec_validator' 2>/dev/null || missing+=("openapi-spec-validator>=0.7")
python3 -c 'import jsonschema, referencing, yaml' 2>/dev/null || missing+=("jsonschema>=4.18" "PyYAML>=6")
command -v schemathesis >/dev/null 2>&1 || missing+=("schemathesis==4.32.5")
if [ ${#missing[@]} -gt 0 ]; then
  echo "ensure-openapi-tools: installing ${missing[*]} with pip" >&2
  python3 -m pip install --quiet "${missing[@]}"
  # pyenv finds a newly installed console script only after a rehash.
  if command -v pyenv >/dev/null 2>&1; then pyenv rehash; fi
  hash -r
fi
