#!/usr/bin/env bash
# Installs what a fresh machine lacks to build and test: libcurl and SQLite headers
# (Debian packages) and, for tests, moto's server (PyPI). Installs nothing already there.
set -euo pipefail

want_moto=no
[ "${1:-}" = "--with-moto" ] && want_moto=yes

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

missing=()
pkg-config --exists libcurl 2>/dev/null || missing+=(libcurl4-openssl-dev)
pkg-config --exists sqlite3 2>/dev/null || missing+=(libsqlite3-dev)
command -v pkg-config >/dev/null 2>&1 || missing+=(pkg-config)
if [ ${#missing[@]} -gt 0 ]; then
  echo "ensure-deps: installing ${missing[*]} with apt-get" >&2
  as_root apt-get update -qq
  DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq "${missing[@]}" >/dev/null
fi

if [ "$want_moto" = yes ] && ! command -v moto_server >/dev/null 2>&1; then
  echo "ensure-deps: installing moto[server] with pip" >&2
  python3 -m pip install --quiet "moto[server]"
  # pyenv finds a newly installed console script only after a rehash.
  if command -v pyenv >/dev/null 2>&1; then pyenv rehash; fi
  hash -r
fi
exit 0
