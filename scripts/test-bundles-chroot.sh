#!/usr/bin/env bash
# Proves each Lambda bundle is self-contained: unpacks its zip into an empty directory,
# adds only a static shell (busybox-static as /bin/sh, no other applets), an empty /tmp,
# the embedded store's state directory and what every Lambda sandbox has from the kernel
# (/dev/null, /dev/urandom, a /proc mounted in a private mount namespace), and answers
# events on stdin under `unshare --mount --pid --fork --mount-proc chroot`. Each answer
# must equal the expected file from events/ (`paypulse match-response`: the replay tests' matcher).
# Without /proc the binaries trapped (SIGILL) in about 1 run in 3, and without
# /dev/urandom Foundation's UUID() returned all zeros: Lambda has both, so they are given.
#
# One embedded store travels from bundle to bundle (store-tokens writes the grant,
# user-profile reads it, token-refresh scans it, disconnect revokes it). Google is the
# Swift stand-in over HTTPS (scripts/fake-google-tls.sh, the manifest's grants) whose self-signed CA
# is placed only at Amazon Linux's path (/etc/pki/tls/certs/ca-bundle.crt): store-tokens
# proves the refresh token there (the answer names Google's account and scope) and
# disconnect revokes there (`revoked_at_google: true`), proving the bootstrap found that
# file and libcurl used it (Debian's default path does not exist in the chroot). What no
# function writes (the user, the Google client-ID secret) is seeded (`paypulse seed`, the
# embedded adapter itself) once the first run has created the store, before the first connection.
#
# Before disconnect, AWS over HTTPS: a private moto_server (scripts/with-moto.sh) behind a TLS front
# (scripts/tls-front.sh, its own self-signed CA), named by AWS_ENDPOINT_URL; its CA is given
# only by AWS_CA_BUNDLE (a file in the root), Google's only at Amazon Linux's path. A
# store-tokens first connection on Secrets Manager (PAYPULSE_STORE=aws) must answer 201, and
# user-profile must then read the user (DynamoDB) and the grant's tags over the same front;
# without AWS_CA_BUNDLE the same store-tokens must be refused the front's certificate.
# user-profile reaches the front by a host name (`aws.internal`) that only the root's
# /etc/hosts knows, proving the static executable's name lookups (glibc's built-in `files`
# source; `dns` is built in alike) work with no NSS library in the root.
# Last, every bundle must be its bootstrap and one static executable: no lib/, no loader.
#
# Run scripts/bundle.sh first. Usage: scripts/test-bundles-chroot.sh
set -euo pipefail
self="$(cd "$(dirname "$0")" && pwd)/$(basename "$0")"
cd "$(dirname "$0")/.."

scratch=${PAYPULSE_LAMBDA_SCRATCH:-.build-lambda}
bundles="$scratch/bundles"
for f in store-tokens user-profile token-refresh disconnect fresh-token security-events; do
  [ -f "$bundles/$f.zip" ] || { echo "test-bundles-chroot: $bundles/$f.zip is missing; run scripts/bundle.sh" >&2; exit 1; }
done

if ! dpkg-query -W -f='${Status}' busybox-static 2>/dev/null | grep -q "ok installed"; then
  echo "test-bundles-chroot: installing busybox-static with apt-get" >&2
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq busybox-static >/dev/null
fi
busybox=$(dpkg-query -L busybox-static | grep -m1 '/bin/busybox$')
if ldd "$busybox" >/dev/null 2>&1; then echo "test-bundles-chroot: $busybox is not static" >&2; exit 1; fi
command -v openssl >/dev/null || { echo "test-bundles-chroot: openssl is needed for the test certificate" >&2; exit 1; }

[ "$(id -u)" = 0 ] || { echo "test-bundles-chroot: needs root (chroot, mknod, mount namespaces)" >&2; exit 1; }
# A private moto_server, whatever the caller exported: the AWS runs need an empty store.
if [ -z "${PAYPULSE_CHROOT_STAGE:-}" ]; then
  scripts/ensure-deps.sh --with-moto --with-tls-relay
  exec env -u PAYPULSE_TEST_MOTO_ENDPOINT PAYPULSE_CHROOT_STAGE=run scripts/with-moto.sh "$self" "$@"
fi
moto=${PAYPULSE_TEST_MOTO_ENDPOINT:?test-bundles-chroot: no moto_server endpoint}
# The developer CLI (debug build, outside the chroot) seeds the store and checks each answer
# with the replay tests' matcher (`paypulse seed`, `paypulse match-response`).
scripts/build-product.sh paypulse
paypulse="$PWD/.build/debug/paypulse"
# The client ID seeded, which the stand-in for Google accepts.
client_id=bundle-test-client.apps.googleusercontent.com

# Absolute paths: the runs below get PATH=/bin, the chroot's.
unshare=$(command -v unshare)
chroot=$(command -v chroot)

work=$(mktemp -d -t paypulse-chroot.XXXXXX)
google_pid="" aws_front_pid=""
cleanup() {
  if [ -n "$google_pid" ]; then kill "$google_pid" 2>/dev/null || true; wait "$google_pid" 2>/dev/null || true; fi
  if [ -n "$aws_front_pid" ]; then kill "$aws_front_pid" 2>/dev/null || true; wait "$aws_front_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

fail() { echo "test-bundles-chroot: FAIL: $*" >&2; exit 1; }

# Unpacks a zip keeping its Unix modes (Python's extractall drops them), so a bundle whose
# zip lost the exec bits fails here as it would in Lambda.
unpack() { # $1 = zip, $2 = directory
  python3 - "$1" "$2" <<'PY'
import os, sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as archive:
    for info in archive.infolist():
        path = archive.extract(info, sys.argv[2])
        os.chmod(path, (info.external_attr >> 16) & 0o777)
PY
}

# A fresh root: the bundle, /bin/sh = busybox, /tmp, /dev/null, /dev/urandom and an empty
# /proc (mounted for each run only). Prints its path.
make_root() { # $1 = function, $2 = the root's name (default: the function's)
  local root="$work/root-${2:-$1}"
  mkdir -p "$root"
  unpack "$bundles/$1.zip" "$root"
  mkdir -p "$root/bin" "$root/tmp" "$root/dev" "$root/proc"
  chmod 1777 "$root/tmp"
  cp "$busybox" "$root/bin/sh"
  mknod -m 666 "$root/dev/null" c 1 3
  mknod -m 666 "$root/dev/urandom" c 1 9
  echo "$root"
}

# The embedded store's directory moves into a root for a run and out again afterwards.
state="$work/state"
mkdir -m 700 "$state"

# Runs one event through a root's /bootstrap and checks the answer. Extra arguments are
# environment assignments.
invoke() { # $1 = root, $2 = function, $3 = event (under events/), $4 = expected (under events/), then VAR=value...
  local root=$1 function=$2 event=$3 expected=$4
  shift 4
  local out="$work/$function-${event##*/}.out" err="$work/$function-${event##*/}.err" status=0
  mv "$state" "$root/state"
  env -i PATH=/bin PAYPULSE_STORE=embedded PAYPULSE_STATE_DIR=/state LOG_LEVEL=info "$@" \
    "$unshare" --mount --pid --fork --mount-proc="$root/proc" "$chroot" "$root" /bootstrap \
    <"$(under_events "$event")" >"$out" 2>"$err" || status=$?
  mv "$root/state" "$state"
  if [ "$status" != 0 ]; then
    cat "$err" >&2
    fail "$function < $event exited $status inside the chroot"
  fi
  if ! "$paypulse" match-response "$(under_events "$expected")" "$out"; then
    cat "$err" >&2
    fail "$function < $event: the answer differs from $expected"
  fi
}

under_events() { # $1 = a path under events/, or an absolute one (cases made here)
  case "$1" in /*) echo "$1" ;; *) echo "events/$1" ;; esac
}

describe() { # $1 = root: what the root holds besides the bundle
  local files
  files=$(find "$1" -type f | wc -l)
  echo "$files files: the bundle, /bin/sh = busybox-static; /tmp, /state, /dev/{null,urandom}, /proc"
}

# Google: an HTTPS stand-in knowing the manifest's grants, accepting the seeded client ID,
# trusted only through Amazon Linux's CA path.
tls="$work/tls"
scripts/fake-google-tls.sh "$paypulse" "$tls" "$client_id" &
google_pid=$!
for _ in $(seq 1 600); do [ -f "$tls/url" ] && break; sleep 0.1; done
[ -f "$tls/url" ] || fail "the HTTPS stand-in for Google did not start"
google=$(cat "$tls/url")
token_requests() { grep -cx "POST /token client_id,grant_type,refresh_token" "$tls/requests.log" 2>/dev/null || true; }

# Places the stand-in's CA at Amazon Linux's path only.
trust_google() { # $1 = root
  mkdir -p "$1/etc/pki/tls/certs"
  cp "$tls/cert.pem" "$1/etc/pki/tls/certs/ca-bundle.crt"
  [ ! -e "$1/etc/ssl" ] || fail "the root must not hold Debian's CA path"
}

# store-tokens: a request without a JWT (creating the store), the seed, then the first
# connection, proven at the stand-in for Google (writes the grant).
root=$(make_root store-tokens)
trust_google "$root"
invoke "$root" store-tokens store-tokens/v2-missing-bearer-token.json store-tokens/v2-missing-bearer-token.expected.json
[ -f "$state/paypulse.sqlite3" ] || fail "store-tokens did not create the embedded store"
PAYPULSE_STORE=embedded PAYPULSE_STATE_DIR="$state" "$paypulse" seed --client-id "$client_id" >/dev/null
invoke "$root" store-tokens store-tokens/v2-json-first-connection.json store-tokens/v2-json-first-connection.expected.json \
  "GOOGLE_TOKEN_ENDPOINT=$google/token"
[ "$(token_requests)" = 1 ] || fail "store-tokens did not prove the refresh token once at the HTTPS stand-in for Google"
echo "chroot store-tokens:  ok  401 without a JWT, 201 first connection proven at Google over HTTPS ($(describe "$root"), that CA file)"

root=$(make_root user-profile)
invoke "$root" user-profile user-profile/v2-missing-bearer-token.json user-profile/v2-missing-bearer-token.expected.json
invoke "$root" user-profile user-profile/v2-connected.json user-profile/v2-connected.expected.json
echo "chroot user-profile:  ok  401 without a JWT, 200 connected ($(describe "$root"))"

# fresh-token: invoked directly with {"user_id"}; serves the connected user's token from
# the store (fresh, so Google is not asked) and answers a code for a user with none.
root=$(make_root fresh-token)
mkdir -p "$work/fresh-token"
echo '{"user_id": "user-1"}' >"$work/fresh-token/connected.json"
echo '{"access_token": "<any>", "expires_at": "<rfc3339>", "scope": "<any>", "google_email": "jane.smith@gmail.com"}' \
  >"$work/fresh-token/connected.expected.json"
invoke "$root" fresh-token "$work/fresh-token/connected.json" "$work/fresh-token/connected.expected.json"
invoke "$root" fresh-token fresh-token/invalid-user-id.json fresh-token/invalid-user-id.expected.json
[ "$(token_requests)" = 1 ] || fail "fresh-token asked Google for a token that was still fresh"
echo "chroot fresh-token:   ok  the connected user's token served from the store, invalid_request for a bad id ($(describe "$root"))"

# security-events: Google's push with a body that is no token, and GET, answered before
# any key is fetched (the signed events are proven through the built function by the replay
# tests and SecurityEventReceiverTests).
root=$(make_root security-events)
invoke "$root" security-events security-events/v2-not-a-jwt.json security-events/v2-not-a-jwt.expected.json
invoke "$root" security-events security-events/v1-wrong-method.json security-events/v1-wrong-method.expected.json
echo "chroot security-events: ok  400 invalid_request for a body that is no token, 405 for GET ($(describe "$root"))"

root=$(make_root token-refresh)
trust_google "$root"
invoke "$root" token-refresh token-refresh/scheduled-not-yet-due.json token-refresh/scheduled-not-yet-due.expected.json \
  "GOOGLE_TOKEN_ENDPOINT=$google/token"
[ "$(token_requests)" = 1 ] || fail "token-refresh refreshed a grant that was not due"
echo "chroot token-refresh: ok  scheduled event -> summary, 1 scanned, 0 due ($(describe "$root"), that CA file)"

# AWS over HTTPS: moto behind its own TLS front, trusted through AWS_CA_BUNDLE alone (before
# disconnect, which revokes the grant at the stand-in for Google).
aws_tls="$work/aws-tls"
scripts/tls-front.sh "$aws_tls" "${moto##*:}" &
aws_front_pid=$!
for _ in $(seq 1 300); do [ -f "$aws_tls/url" ] && break; sleep 0.1; done
[ -f "$aws_tls/url" ] || fail "the TLS front for moto did not start"
aws_https=$(cat "$aws_tls/url")
aws_keys=(PAYPULSE_STORE=aws AWS_REGION=us-east-1 AWS_ACCESS_KEY_ID=AKIDPAYPULSETEST
  AWS_SECRET_ACCESS_KEY=paypulse-test-secret-key)
# The tables and the seed go in over plain HTTP, by the developer CLI (the adapters themselves).
env -i PATH="$PATH" HOME="$work" "${aws_keys[@]}" AWS_ENDPOINT_URL="$moto" "$paypulse" setup >/dev/null
env -i PATH="$PATH" HOME="$work" "${aws_keys[@]}" AWS_ENDPOINT_URL="$moto" "$paypulse" seed --client-id "$client_id" >/dev/null
aws_env=("${aws_keys[@]}" "AWS_ENDPOINT_URL=$aws_https" AWS_CA_BUNDLE=/etc/aws-ca.pem)
trust_aws() { # $1 = root
  mkdir -p "$1/etc"
  cp "$aws_tls/cert.pem" "$1/etc/aws-ca.pem"
}
aws_requests() { grep -c "accepting connection" "$aws_tls/relay.log" 2>/dev/null || true; }

# Without AWS_CA_BUNDLE the front's certificate is no CA the root trusts: refused, and no
# grant is written (the refusal is an upstream failure, not a crash).
root=$(make_root store-tokens aws-untrusted)
trust_google "$root"
before=$(token_requests)
status=0
mv "$state" "$root/state"
env -i PATH=/bin LOG_LEVEL=info "${aws_keys[@]}" "AWS_ENDPOINT_URL=$aws_https" "GOOGLE_TOKEN_ENDPOINT=$google/token" \
  "$unshare" --mount --pid --fork --mount-proc="$root/proc" "$chroot" "$root" /bootstrap \
  <events/store-tokens/v2-json-first-connection.json >"$work/aws-untrusted.out" 2>"$work/aws-untrusted.err" || status=$?
mv "$root/state" "$state"
answered=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1])).get("statusCode"))' "$work/aws-untrusted.out" 2>/dev/null || echo none)
case "$answered" in
  5??) ;;
  *) cat "$work/aws-untrusted.out" "$work/aws-untrusted.err" >&2; fail "store-tokens trusted moto's front without AWS_CA_BUNDLE (exit $status, answered $answered)" ;;
esac
grep -qi "certificate\|SSL" "$work/aws-untrusted.err" || { cat "$work/aws-untrusted.err" >&2; fail "the untrusted front's refusal does not name the certificate"; }
echo "chroot AWS untrusted: ok  without AWS_CA_BUNDLE, moto's TLS front is refused ($answered, a certificate error)"

root=$(make_root store-tokens aws-store-tokens)
trust_google "$root"
trust_aws "$root"
connections=$(aws_requests)
invoke "$root" store-tokens store-tokens/v2-json-first-connection.json store-tokens/v2-json-first-connection.expected.json \
  "${aws_env[@]}" "GOOGLE_TOKEN_ENDPOINT=$google/token"
[ "$(aws_requests)" -gt "$connections" ] || fail "store-tokens on Secrets Manager did not go through moto's TLS front"
[ "$(token_requests)" -gt "$before" ] || fail "store-tokens on Secrets Manager did not prove the refresh token at Google"
echo "chroot AWS store-tokens: ok  201 first connection on Secrets Manager over HTTPS (AWS_CA_BUNDLE), proven at Google over HTTPS"

root=$(make_root user-profile aws-user-profile)
trust_aws "$root"
printf '127.0.0.1 aws.internal\n' >"$root/etc/hosts"
printf 'hosts: files dns\n' >"$root/etc/nsswitch.conf"
! find "$root" -name 'libnss*' | grep -q . || fail "the user-profile root holds an NSS library"
aws_by_name=$(sed 's|//127\.0\.0\.1:|//aws.internal:|' <<<"$aws_https")
[ "$aws_by_name" != "$aws_https" ] || fail "the TLS front's URL ($aws_https) is not on 127.0.0.1"
connections=$(aws_requests)
invoke "$root" user-profile user-profile/v2-connected.json user-profile/v2-connected.expected.json \
  "${aws_keys[@]}" "AWS_ENDPOINT_URL=$aws_by_name" AWS_CA_BUNDLE=/etc/aws-ca.pem
[ "$(aws_requests)" -gt "$connections" ] || fail "user-profile on AWS did not go through moto's TLS front"
echo "chroot AWS user-profile: ok  200 connected: DynamoDB and Secrets Manager over HTTPS (AWS_CA_BUNDLE), the front named aws.internal in the root's /etc/hosts"

# disconnect revokes at the stand-in for Google.
root=$(make_root disconnect)
trust_google "$root"
invoke "$root" disconnect disconnect/v2-disconnect.json disconnect/v2-disconnect.expected.json \
  "GOOGLE_REVOKE_ENDPOINT=$google/revoke"
grep -qx "POST /revoke token" "$tls/requests.log" || fail "disconnect did not revoke at the HTTPS stand-in for Google"
echo "chroot disconnect:    ok  200, revoked over HTTPS trusting /etc/pki/tls/certs/ca-bundle.crt ($(describe "$root"), that CA file)"

# Each bundle is its bootstrap and one static executable (scripts/lambda-build-flags.sh):
# no program interpreter, no needed library, nothing else in the zip.
for f in store-tokens user-profile token-refresh disconnect fresh-token security-events; do
  listed=$(python3 -c 'import sys, zipfile; print(" ".join(sorted(zipfile.ZipFile(sys.argv[1]).namelist())))' "$bundles/$f.zip")
  [ "$listed" = "bin/$f bootstrap" ] || fail "$f.zip holds $listed, not bin/$f and bootstrap"
  python3 -c 'import sys, zipfile; sys.stdout.buffer.write(zipfile.ZipFile(sys.argv[1]).read(sys.argv[2]))' "$bundles/$f.zip" "bin/$f" >"$work/static-check"
  headers=$(readelf --program-headers --dynamic "$work/static-check")
  ! grep -q "INTERP\|(NEEDED)" <<<"$headers" || fail "$f: bin/$f needs a loader or shared libraries"
done
echo "chroot static:        ok  each bundle is bootstrap + one static executable (no loader, no shared library)"
