#!/usr/bin/env bash
# Installs what a fresh machine lacks to build and test. Linux (Debian): libcurl and SQLite
# headers with apt-get; `--with-browser` adds Debian's chromium and chromium-driver (the
# console test). macOS: nothing with apt-get, since the SDK already has libcurl and SQLite;
# it checks for the command line tools and names what to install by hand.
# `--with-moto` adds moto's server (PyPI) on either; `--with-tls-relay` adds nginx, socat and
# the openssl command (TLS with a private CA: nginx in front of moto in the AWS_CA_BUNDLE and
# keep-alive tests, socat in front of the stand-in for Google in the bundle proofs);
# `--with-nginx` adds nginx and the openssl command alone (the benchmark's HTTPS mode,
# `scripts/bench/run.sh --tls`); `--with-pyjwt` adds PyJWT with `cryptography` (PyPI), the independent signer of the
# PAYPULSE_AUTH_MODE=jwks tests; `--with-curl-build` adds what scripts/build-libcurl.sh needs
# (OpenSSL's static libraries, dpkg-source, patch, make); `--with-spin` adds Spin and a C
# compiler (the grant protocol's model, Model/check.sh). Installs nothing already there.
set -euo pipefail

want_moto=no want_browser=no want_tls_relay=no want_nginx=no want_pyjwt=no want_curl_build=no want_spin=no
for argument in "$@"; do
  case "$argument" in
    --with-moto) want_moto=yes ;;
    --with-browser) want_browser=yes ;;
    --with-tls-relay) want_tls_relay=yes ;;
    --with-nginx) want_nginx=yes ;;
    --with-pyjwt) want_pyjwt=yes ;;
    --with-curl-build) want_curl_build=yes ;;
    --with-spin) want_spin=yes ;;
    *) echo "ensure-deps: unknown option $argument" >&2; exit 2 ;;
  esac
done

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

case "$(uname -s)" in
  Darwin)
    if ! xcrun --show-sdk-path >/dev/null 2>&1; then
      echo "ensure-deps: the macOS SDK is missing; run: xcode-select --install" >&2
      exit 1
    fi
    if [ "$want_browser" = yes ] && ! command -v chromedriver >/dev/null 2>&1; then
      echo "ensure-deps: the console test needs Chromium and its driver: brew install --cask chromium chromedriver" >&2
    fi
    if { [ "$want_tls_relay" = yes ] || [ "$want_nginx" = yes ]; } && ! command -v nginx >/dev/null 2>&1; then
      echo "ensure-deps: the AWS_CA_BUNDLE and keep-alive tests and the benchmark's --tls need nginx: brew install nginx" >&2
    fi
    if [ "$want_spin" = yes ] && ! command -v spin >/dev/null 2>&1; then
      echo "ensure-deps: the model check needs Spin: brew install spin" >&2
    fi
    ;;
  *)
    missing=()
    pkg-config --exists libcurl 2>/dev/null || missing+=(libcurl4-openssl-dev)
    pkg-config --exists sqlite3 2>/dev/null || missing+=(libsqlite3-dev)
    command -v pkg-config >/dev/null 2>&1 || missing+=(pkg-config)
    if [ "$want_browser" = yes ]; then
      command -v chromium >/dev/null 2>&1 || missing+=(chromium)
      command -v chromedriver >/dev/null 2>&1 || missing+=(chromium-driver)
    fi
    if [ "$want_tls_relay" = yes ]; then
      command -v socat >/dev/null 2>&1 || missing+=(socat)
    fi
    if [ "$want_tls_relay" = yes ] || [ "$want_nginx" = yes ]; then
      command -v openssl >/dev/null 2>&1 || missing+=(openssl)
      # Debian installs nginx in /usr/sbin, which a user's PATH may leave out.
      command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ] || missing+=(nginx)
    fi
    if [ "$want_spin" = yes ]; then
      command -v spin >/dev/null 2>&1 || missing+=(spin)
      # Model/check.sh compiles with clang (the Swift toolchain has it) or else gcc
      command -v clang >/dev/null 2>&1 || command -v gcc >/dev/null 2>&1 || missing+=(gcc)
    fi
    if [ "$want_curl_build" = yes ]; then
      [ -f "/usr/lib/$(gcc -print-multiarch)/libssl.a" ] || missing+=(libssl-dev)
      command -v dpkg-source >/dev/null 2>&1 || missing+=(dpkg-dev)
      command -v patch >/dev/null 2>&1 || missing+=(patch)
      command -v make >/dev/null 2>&1 || missing+=(make)
    fi
    if [ ${#missing[@]} -gt 0 ]; then
      echo "ensure-deps: installing ${missing[*]} with apt-get" >&2
      as_root apt-get update -qq
      DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq "${missing[@]}" >/dev/null
    fi
    ;;
esac

# The tests run moto through python3 (scripts/moto-server.py), so python3 must import it; the
# lifecycle events' suites read moto's EventBridge and SQS through boto3 (moto's own client) and
# check each event with jsonschema.
if [ "$want_moto" = yes ] && ! python3 -c "import moto.server, flask, boto3, jsonschema" >/dev/null 2>&1; then
  echo "ensure-deps: installing moto[server] and jsonschema with pip" >&2
  python3 -m pip install --quiet "moto[server]" jsonschema
fi
if [ "$want_pyjwt" = yes ] && ! python3 -c 'import jwt, cryptography' >/dev/null 2>&1; then
  echo "ensure-deps: installing PyJWT[crypto] with pip" >&2
  python3 -m pip install --quiet "PyJWT[crypto]==2.10.1"
fi
exit 0
