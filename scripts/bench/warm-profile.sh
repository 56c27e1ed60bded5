#!/usr/bin/env bash
# Instructions per warm invocation by category (scripts/bench/warm_profile.py), under
# callgrind: store-tokens (new and same users) and user-profile in their Runtime API loop
# against one moto and the peer's fake Google. Builds nothing: pass --bin-dir, or build
# first as scripts/bench/run.sh does (release, static Swift stdlib, .build-lambda).
#   scripts/bench/warm-profile.sh --calls 40 --keep --out .build-bench/warm-profile
set -euo pipefail
cd "$(dirname "$0")/../.."

command -v valgrind >/dev/null || { echo "valgrind is needed (apt-get install valgrind)" >&2; exit 1; }
scripts/ensure-deps.sh --with-moto
export PYTHONDONTWRITEBYTECODE=1
# No venv: our CLI signs the events (paypulse jwt), and the peer's fake Google needs only Python.
exec python3 scripts/bench/warm_profile.py "$@"
