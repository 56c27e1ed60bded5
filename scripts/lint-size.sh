#!/usr/bin/env bash
# Fails when the Python under scripts/ outgrows the size the project rule holds it to (the size it
# had when a newcomer could live in it): all of it at most 2,950 lines, scripts/check_template.py
# at most 480. Lines are counted as `find scripts -name '*.py' | xargs cat | wc -l` counts them.
# One line per limit exceeded says which, and by how much.
#
# Usage: scripts/lint-size.sh [--root DIR]   (default: this repository)
#        scripts/lint-size.sh --template      (check_template.py's limit alone: the one met again,
#                                              which `make lint` keeps; the total is `make lint-size`'s)
#        scripts/lint-size.sh --self-test     (proves it fails on each limit exceeded by one line,
#                                              and passes a tree exactly at both limits)
set -euo pipefail
cd "$(dirname "$0")/.."

total_limit=2950 template_limit=480

lint() { # $1 = a root holding scripts/; prints one line per limit exceeded
  local total template
  total=$(find "$1/scripts/" -name '*.py' -print0 | xargs -0 cat | wc -l)
  template=$(wc -l <"$1/scripts/check_template.py")
  over "the Python under scripts/" "$total" "$total_limit"
  over scripts/check_template.py "$template" "$template_limit"
}

over() { # $1 = what, $2 = its lines, $3 = its limit
  if [ "$2" -gt "$3" ]; then echo "lint-size: $1 is $2 lines, $(($2 - $3)) over its limit of $3"; fi
}

self_test() {
  local dir found want
  dir=$(mktemp -d -t lint-size.XXXXXX)
  trap 'rm -rf "$dir"' RETURN
  mkdir -p "$dir/scripts/bench/benchlib"
  lines() { seq "$1" | sed 's/^/x = /'; } # $1 lines of Python
  lines "$template_limit" >"$dir/scripts/check_template.py"
  lines $((total_limit - template_limit)) >"$dir/scripts/bench/benchlib/other.py" # counted in subfolders too
  found=$(lint "$dir")
  [ -z "$found" ] || { echo "lint-size: self-test: a tree at both limits was flagged: $found" >&2; return 1; }
  echo 'y = 1' >>"$dir/scripts/bench/benchlib/other.py"
  found=$(lint "$dir")
  want="lint-size: the Python under scripts/ is $((total_limit + 1)) lines, 1 over its limit of $total_limit"
  [ "$found" = "$want" ] ||
    { echo "lint-size: self-test: one line over the total limit gave: '$found'" >&2; return 1; }
  sed -i '$d' "$dir/scripts/bench/benchlib/other.py"
  sed -i '$d' "$dir/scripts/bench/benchlib/other.py"
  echo 'y = 1' >>"$dir/scripts/check_template.py"
  found=$(lint "$dir")
  want="lint-size: scripts/check_template.py is $((template_limit + 1)) lines,"
  want+=" 1 over its limit of $template_limit"
  [ "$found" = "$want" ] ||
    { echo "lint-size: self-test: one line over check_template.py's limit gave: '$found'" >&2; return 1; }
  echo "lint-size: self-test passed (each limit exceeded by one line flagged, a tree at both limits passes)"
}

case "${1:-}" in
  --self-test) self_test; exit ;;
  --root) found=$(lint "$2") ;;
  --template) found=$(lint . | grep 'scripts/check_template.py' || true) ;;
  '') found=$(lint .) ;;
  *) echo "usage: scripts/lint-size.sh [--root DIR] | --template | --self-test" >&2; exit 64 ;;
esac
if [ -n "$found" ]; then
  echo "$found" >&2
  exit 1
fi
