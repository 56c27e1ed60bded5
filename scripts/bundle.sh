#!/usr/bin/env bash
# Builds the Lambda functions (release, one static executable each, a minimal libcurl linked in:
# scripts/lambda-build-flags.sh) and packs each into a self-contained bundle for a
# `provided.al2023` custom runtime:
#
#   .build-lambda/bundles/F/bootstrap   POSIX sh: picks the host's CA file, runs bin/F
#   .build-lambda/bundles/F/bin/F       the stripped static executable
#   .build-lambda/bundles/F.zip         the same, zipped with fixed dates and modes
#
# A binary built on Debian needs a newer glibc/libstdc++ than Amazon Linux 2023 has, so the
# executable is static (scripts/lambda-build-flags.sh): glibc, libstdc++, SQLite, libcurl and
# OpenSSL are inside it, and the bundle needs nothing of the host but /bin/sh.
#
# Usage: scripts/bundle.sh                                  every bundle and zip
#        scripts/bundle.sh --function F [--artifacts DIR]   one bundle (copied into DIR,
#                                                           as SAM's `build-<LogicalId>` needs)
# Incremental: SwiftPM rebuilds only what changed, and a zip is rewritten only when its
# bundle's content changed. PAYPULSE_LAMBDA_SCRATCH overrides the scratch path.
set -euo pipefail
cd "$(dirname "$0")/.."

all_functions=(store-tokens user-profile token-refresh disconnect fresh-token security-events)
scratch=${PAYPULSE_LAMBDA_SCRATCH:-.build-lambda}  # also lambda-build-flags.sh's
functions=("${all_functions[@]}")
artifacts=""

usage() { sed -n '2,18s/^# \{0,1\}//p' "$0" >&2; exit 64; }
while [ $# -gt 0 ]; do
  case "$1" in
    --function) [ $# -ge 2 ] || usage; functions=("$2"); shift 2 ;;
    --artifacts) [ $# -ge 2 ] || usage; artifacts=$2; shift 2 ;;
    -h|--help) usage ;;
    *) echo "bundle.sh: unknown argument '$1'" >&2; usage ;;
  esac
done
for f in "${functions[@]}"; do
  case " ${all_functions[*]} " in
    *" $f "*) ;;
    *) echo "bundle.sh: unknown function '$f' (expected one of: ${all_functions[*]})" >&2; exit 64 ;;
  esac
done
if [ -n "$artifacts" ] && [ ${#functions[@]} -ne 1 ]; then
  echo "bundle.sh: --artifacts needs --function" >&2; exit 64
fi

# One build: the first product compiles every module; the others only link their main.
. scripts/lambda-build-flags.sh
bin_dir=$(swift build "${lambda_build_flags[@]}" --show-bin-path)
# An executable newer than every source and build setting is taken as built: SwiftPM plans
# again (5 to 10 s) whenever its environment differs from its last command's, as under
# `sam build`, which calls this once per function.
for f in "${functions[@]}"; do
  if [ -x "$bin_dir/$f" ] && [ -z "$(find Sources Package.swift scripts/lambda-build-flags.sh -newer "$bin_dir/$f" -print -quit)" ]; then
    echo "bundle.sh: $f is built (release, one static executable, libcurl $(basename "$lambda_curl"))" >&2
    continue
  fi
  echo "bundle.sh: building $f (release, one static executable, libcurl $(basename "$lambda_curl"))" >&2
  swift build "${lambda_build_flags[@]}" --product "$f" >&2
  touch "$bin_dir/$f"  # built from the sources as they are, even where nothing was relinked
done

bundles="$scratch/bundles"
mkdir -p "$bundles"

# Writes the bootstrap. Only shell built-ins: it must run under a busybox-static /bin/sh
# with no other applets. PAYPULSE_CA_BUNDLE names the host's CA file (Amazon Linux's, or
# Debian's where that is missing); the linked libcurl's own default is Amazon Linux's path.
write_bootstrap() { # $1 = function, $2 = destination
  cat >"$2" <<EOF
#!/bin/sh
# Lambda custom runtime entry point for $1: runs the bundle's static executable.
case "\$0" in
  */*) here=\${0%/*} ;;
  *) here=. ;;
esac
if [ -z "\${PAYPULSE_CA_BUNDLE:-}" ]; then
  for ca in /etc/pki/tls/certs/ca-bundle.crt /etc/ssl/certs/ca-certificates.crt; do
    if [ -r "\$ca" ]; then
      PAYPULSE_CA_BUNDLE=\$ca
      export PAYPULSE_CA_BUNDLE
      break
    fi
  done
fi
exec "\$here/bin/$1" "\$@"
EOF
  chmod 755 "$2"
}

# Refuses an executable that would need the host's loader or libraries: one with a
# program interpreter (PT_INTERP) or a needed shared library (DT_NEEDED).
require_static() { # $1 = executable
  local headers
  headers=$(readelf --program-headers --dynamic "$1")
  if grep -q "INTERP\|(NEEDED)" <<<"$headers"; then
    echo "bundle.sh: $1 is not a static executable:" >&2; grep "INTERP\|(NEEDED)" <<<"$headers" >&2; exit 1
  fi
}

# A fingerprint of a bundle's names, modes and bytes: the zip is redone only when it changes.
fingerprint() { (cd "$1" && find . -type f -printf '%p %m\n' | LC_ALL=C sort && find . -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum) | sha256sum | cut -d' ' -f1; }

# Deterministic zip (sorted names, fixed dates, 0755/0644 modes), via Python so that the
# machine needs no `zip`. Level 6: level 9 took 3.5x the CPU for 0.7% less.
make_zip() { # $1 = bundle dir, $2 = zip path
  python3 - "$1" "$2" <<'PY'
import os, stat, sys, zipfile
source, target = sys.argv[1], sys.argv[2]
paths = sorted(os.path.relpath(os.path.join(root, name), source)
               for root, _, names in os.walk(source) for name in names)
with zipfile.ZipFile(target + ".tmp", "w", zipfile.ZIP_DEFLATED) as archive:
    for path in paths:
        full = os.path.join(source, path)
        mode = 0o755 if os.stat(full).st_mode & stat.S_IXUSR else 0o644
        info = zipfile.ZipInfo(path, date_time=(1980, 1, 1, 0, 0, 0))
        info.create_system = 3  # Unix, so that the mode below is honoured
        info.external_attr = (stat.S_IFREG | mode) << 16
        info.compress_type = zipfile.ZIP_DEFLATED
        with open(full, "rb") as data:
            archive.writestr(info, data.read(), compresslevel=6)
os.replace(target + ".tmp", target)
PY
}

human() { awk -v b="$1" 'BEGIN { printf "%.1f MB", b / 1000000 }'; }

rows=()
for f in "${functions[@]}"; do
  dir="$bundles/$f"
  rm -rf "$dir.new"
  mkdir -p "$dir.new/bin"
  strip --strip-all -o "$dir.new/bin/$f" "$bin_dir/$f"
  require_static "$dir.new/bin/$f"
  write_bootstrap "$f" "$dir.new/bootstrap"
  rm -rf "$dir"
  mv "$dir.new" "$dir"

  print=$(fingerprint "$dir")
  zip="$bundles/$f.zip"
  if [ -z "$artifacts" ]; then
    if [ ! -f "$zip" ] || [ "$(cat "$zip.fingerprint" 2>/dev/null)" != "$print" ]; then
      make_zip "$dir" "$zip"
      echo "$print" >"$zip.fingerprint"
    fi
  else
    mkdir -p "$artifacts"
    cp -R "$dir/." "$artifacts/"
  fi
  unzipped=$(find "$dir" -type f -printf '%s\n' | awk '{ total += $1 } END { print total }')
  zipped="-"
  [ -n "$artifacts" ] || zipped=$(human "$(stat -c %s "$zip")")
  rows+=("$(printf '%-14s %12s %12s' "$f" "$(human "$unzipped")" "$zipped")")
done

printf '%-14s %12s %12s\n' function unzipped zipped
printf '%s\n' "${rows[@]}"
[ -z "$artifacts" ] || echo "bundle.sh: ${functions[0]} copied into $artifacts" >&2
