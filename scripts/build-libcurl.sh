#!/usr/bin/env bash
# Builds the minimal static libcurl the Lambda bundles link (scripts/bundle.sh), from
# Debian's source package for this machine's suites (so Debian's security patches come
# with it): HTTP and HTTPS only, over OpenSSL's static libraries (libssl-dev), without
# HTTP/2, zlib, brotli, zstd, IDN, PSL, LDAP, RTMP, SSH, GSSAPI or any other protocol.
# Debian's own libcurl.a links every feature (and GSSAPI has no static library), and its
# shared libcurl brings about thirty libraries into a bundle; this one brings none.
#
#   .build-lambda/curl-VERSION/lib/libcurl.a       the library
#   .build-lambda/curl-VERSION/include/curl/       its headers (CCurl compiles against them)
#   .build-lambda/curl-VERSION/link-flags          the linker inputs after it, one a line
#
# VERSION is the Debian version of the newest `curl` source package in the machine's
# Debian suites (apt-get source, with a private deb-src list: the machine's apt
# configuration is not touched). A build is kept: when the library of that version
# exists, nothing is done. Offline, the newest build already present is used.
# Prints the build directory. PAYPULSE_LAMBDA_SCRATCH overrides .build-lambda.
# Usage: scripts/build-libcurl.sh
set -euo pipefail
cd "$(dirname "$0")/.."

scratch=${PAYPULSE_LAMBDA_SCRATCH:-.build-lambda}
mkdir -p "$scratch"
scratch=$(cd "$scratch" && pwd)
apt_dir="$scratch/curl-apt"

log() { echo "build-libcurl: $*" >&2; }

scripts/ensure-deps.sh --with-curl-build
for library in libssl.a libcrypto.a; do
  if [ ! -f "/usr/lib/$(gcc -print-multiarch)/$library" ]; then
    log "no /usr/lib/$(gcc -print-multiarch)/$library (apt-get install libssl-dev)"; exit 1
  fi
done

# A private apt state reading the machine's Debian suites as deb-src.
apt_options=(-o "Dir::Etc::SourceList=$apt_dir/sources.list" -o "Dir::Etc::SourceParts=/dev/null"
  -o "Dir::State::Lists=$apt_dir/lists" -o "Dir::Cache=$apt_dir/cache" -o "APT::Sandbox::User=root")
mkdir -p "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial"
{
  # deb822 files (bookworm's default) and one-line lists, Debian's archives only.
  for file in /etc/apt/sources.list.d/*.sources; do
    [ -f "$file" ] || continue
    awk 'BEGIN { RS = ""; FS = "\n" }
         /(^|\n)Types:[^\n]*deb/ && /URIs:[^\n]*debian/ {
           for (i = 1; i <= NF; i++) {
             split($i, kv, ": ")
             if (kv[1] == "URIs") uris = kv[2]; else if (kv[1] == "Suites") suites = kv[2]
             else if (kv[1] == "Components") components = kv[2]
           }
           n = split(suites, s, " ")
           for (j = 1; j <= n; j++) print "deb-src " uris " " s[j] " " components
         }' "$file"
  done
  for file in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
    [ -f "$file" ] || continue
    sed -n 's/^deb \(\(\[[^]]*\] \)\{0,1\}[a-z]*:\/\/[^ ]*debian[^ ]* .*\)/deb-src \1/p' "$file"
  done
} | sort -u >"$apt_dir/sources.list"
[ -s "$apt_dir/sources.list" ] || { log "no Debian archive in /etc/apt/sources.list{,.d}"; exit 1; }

version=""
if apt-get "${apt_options[@]}" -qq update >&2 2>"$apt_dir/update.log"; then
  version=$(apt-cache "${apt_options[@]}" showsrc curl 2>/dev/null | sed -n 's/^Version: //p' \
    | sort -V | tail -n 1 || true)
fi
if [ -z "$version" ]; then
  # Offline: the newest build present.
  built=$(ls -d "$scratch"/curl-*/lib/libcurl.a 2>/dev/null | sort -V | tail -n 1 || true)
  [ -n "$built" ] || { log "cannot read Debian's curl sources (no network?):"; cat "$apt_dir/update.log" >&2; exit 1; }
  log "offline: using $(dirname "$(dirname "$built")")"
  dirname "$(dirname "$built")"
  exit 0
fi

build="$scratch/curl-$version"
if [ -f "$build/lib/libcurl.a" ] && [ -f "$build/link-flags" ]; then
  echo "$build"
  exit 0
fi

start=$(date +%s)
log "building libcurl $version from Debian's source package into $build"
rm -rf "$build" "$build.src"
mkdir -p "$build.src"
(cd "$build.src" && apt-get "${apt_options[@]}" -qq source --download-only "curl=$version" >&2)
dsc=$(ls "$build.src"/curl_*.dsc)
dpkg-source --skip-patches -x "$dsc" "$build.src/curl" >&2
# Debian's patches in series order, up to the ones that rename the library for the GnuTLS
# and NSS flavours (the OpenSSL flavour is built before them). The build-system patches
# among them only touch configure.ac/Makefile.am, which this build does not regenerate
# (curl's AM_MAINTAINER_MODE is off).
(
  cd "$build.src/curl"
  sed -e 's/#.*//' -e '/^[[:space:]]*$/d' debian/patches/series | while read -r patch _; do
    case "$patch" in 90_gnutls.patch|99_nss.patch) break ;; esac
    patch -p1 -s <"debian/patches/$patch"
  done
)
# --with-ca-bundle: Amazon Linux's file, the one Lambda's hosts have; the functions pass
# CURLOPT_CAINFO anyway (PAYPULSE_CA_BUNDLE, set by the bootstrap; AWS_CA_BUNDLE for AWS).
# --disable-openssl-auto-load-config: no host openssl.cnf changes what TLS does.
(
  cd "$build.src/curl"
  CFLAGS="-O2 -fPIC -ffunction-sections -fdata-sections" ./configure -q \
    --disable-shared --enable-static --with-pic \
    --prefix="$build" \
    --with-openssl --with-ca-bundle=/etc/pki/tls/certs/ca-bundle.crt --without-ca-path \
    --disable-openssl-auto-load-config \
    --enable-http --disable-ftp --disable-file --disable-ldap --disable-ldaps --disable-rtsp \
    --disable-dict --disable-telnet --disable-tftp --disable-pop3 --disable-imap --disable-smb \
    --disable-smtp --disable-gopher --disable-mqtt --disable-websockets \
    --disable-manual --disable-libcurl-option --disable-ntlm --disable-ntlm-wb --disable-tls-srp \
    --disable-unix-sockets --disable-cookies --disable-doh --disable-mime --disable-netrc \
    --disable-alt-svc --disable-hsts --disable-dnsshuffle --disable-progress-meter \
    --without-zlib --without-brotli --without-zstd --without-libidn2 --without-libpsl \
    --without-librtmp --without-libssh2 --without-libssh --without-nghttp2 --without-ngtcp2 \
    --without-nghttp3 --without-quiche --without-msh3 --without-hyper --without-gssapi \
    --without-libgsasl --disable-ares >&2
  make -s -j"$(nproc)" -C lib >&2
  make -s -C lib install >/dev/null
  make -s -C include install >/dev/null
)
# What a program linking libcurl.a also needs: OpenSSL's static libraries, then what they
# need from glibc (curl's own configure found the same).
multiarch=$(gcc -print-multiarch)
printf '%s\n' "/usr/lib/$multiarch/libssl.a" "/usr/lib/$multiarch/libcrypto.a" -lpthread -ldl >"$build/link-flags.tmp"
mv "$build/link-flags.tmp" "$build/link-flags"
rm -rf "$build.src"
log "libcurl $version built in $(($(date +%s) - start)) s: $(stat -c %s "$build/lib/libcurl.a") bytes"
echo "$build"
