#!/usr/bin/env bash
# Runs schemathesis (PyPI), a client that generates requests from openapi.yaml, valid and
# invalid (--mode all), against a running server at URL with the bearer token JWT, and
# fails on any 5xx or any answer the document does not describe (status, content type,
# headers, body schema). Deterministic generation makes a failure reproducible; the example
# count keeps the run within a minute here.
# Usage: scripts/schemathesis.sh URL JWT
set -euo pipefail
cd "$(dirname "$0")/.."
url=$1 jwt=$2
report=${SCHEMATHESIS_REPORT_DIR:-.build/schemathesis}
mkdir -p "$report"
schemathesis run openapi.yaml \
  --url "$url" \
  --header "Authorization: Bearer $jwt" \
  --checks not_a_server_error,status_code_conformance,content_type_conformance,response_headers_conformance,response_schema_conformance \
  --mode all \
  --max-examples "${SCHEMATHESIS_EXAMPLES:-500}" \
  --generation-deterministic \
  --workers 1 \
  --request-timeout 30 \
  --no-color \
  --report junit --report-dir "$report"
