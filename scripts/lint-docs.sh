#!/usr/bin/env bash
# Fails, naming file:line, when the docs stop telling the present (issue 53): git and
# CHANGELOG.md keep the history, so the docs carry no commit hash and at most five dates.
# Also: README.md at most 90 lines, leading with its two commands (`make demo`, then
# `make test`, the first code block and alone in it); no line of docs/testing.md over 160
# characters (one short line per target); and every relative Markdown link in the
# repository names a file that exists and, after a #, a heading of that file.
#
# The docs are README.md, CHANGELOG.md, docs/*.md and docs/design/*.md. docs/perf/ is left
# out of the hash and date checks: it holds the dated records the benchmark and the
# capacity model write. A date is YYYY-MM-DD (a timestamp's date counts); IAM's policy
# language version "2012-10-17" is a constant, not a date. A commit hash is a word of 7 to
# 40 lowercase hex characters with a digit and a letter (a UUID's groups, joined by hyphens,
# are not words). A heading's anchor is GitHub's: lower case, punctuation dropped, spaces
# as hyphens.
#
# Usage: scripts/lint-docs.sh [--root DIR]   (default: this repository)
#        scripts/lint-docs.sh --self-test     (proves it flags each planted fault, passes a clean tree)
set -euo pipefail
cd "$(dirname "$0")/.."
export LC_ALL=C.UTF-8

readme_limit=90 date_limit=5 testing_width=160

docs() { # $1 = root; the docs the hash and date checks read, relative to it
  (cd "$1" && for file in README.md CHANGELOG.md docs/*.md docs/design/*.md; do [ -f "$file" ] && echo "$file"; done) || true
}

anchors() { # $1 = a Markdown file; prints the anchor of each heading outside code fences
  awk '/^[[:space:]]*(```|~~~)/ { fenced = !fenced; next } !fenced && /^#+ / { sub(/^#+ +/, ""); print }' "$1" |
    sed -E 's/[[:space:]]+$//' | tr '[:upper:]' '[:lower:]' | sed -E 's/[^[:alnum:] _-]//g; s/ /-/g'
}

lint() { # $1 = root; prints one line per fault
  local root=$1 lines file line word target path anchor count
  lines=$(wc -l <"$root/README.md")
  [ "$lines" -le "$readme_limit" ] || echo "README.md: $lines lines, over its limit of $readme_limit"
  # The first code block's commands, comments and blank lines dropped.
  local leading
  leading=$(awk '/^```/ { if (open) exit; open = 1; next } open' "$root/README.md" | sed -E 's/#.*//; s/[[:space:]]+$//; s/^[[:space:]]+//' | grep -v '^$' | tr '\n' ';' || true)
  [ "$leading" = "make demo;make test;" ] ||
    echo "README.md: its first code block must be the two commands, make demo then make test (it holds: ${leading:-nothing})"

  (cd "$root" && docs "$root" | xargs -r grep -noP '(?<![0-9A-Za-z_-])(?=[0-9a-f]*[0-9])(?=[0-9a-f]*[a-f])[0-9a-f]{7,40}(?![0-9A-Za-z_-])' || true) |
    while IFS=: read -r file line word; do echo "$file:$line: $word looks like a commit hash; say what changed, git keeps which commit"; done

  local dates
  dates=$(cd "$root" && docs "$root" | xargs -r grep -noP '(?<![0-9])20[0-9]{2}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])(?![0-9])' | grep -v ':2012-10-17$' || true)
  count=$(grep -c . <<<"$dates" || true)
  if [ "$count" -gt "$date_limit" ]; then
    echo "docs: $count dates, over the limit of $date_limit (history belongs in git and CHANGELOG.md):"
    sed 's/^/  /' <<<"$dates"
  fi

  if [ -f "$root/docs/testing.md" ]; then
    awk -v width="$testing_width" 'length > width { print "docs/testing.md:" FNR ": " length " characters, over " width }' "$root/docs/testing.md"
  fi

  (cd "$root" && find . -name '*.md' -not -path './.*' -not -path '*/.build*' -not -path './Tools/*/.build/*' | sed 's|^\./||' | sort) |
    while read -r file; do
      { grep -noP '\]\(\K[^)\s]+' "$root/$file" || true; } | while IFS=: read -r line target; do
        case "$target" in *://* | mailto:*) continue ;; esac
        path=${target%%#*} anchor=
        [ "$path" = "$target" ] || anchor=${target#*#}
        if [ -z "$path" ]; then path=$file; else path=$(realpath -m --relative-to="$root" "$root/$(dirname "$file")/$path"); fi
        if [ ! -e "$root/$path" ]; then echo "$file:$line: links $target, which does not exist"; continue; fi
        if [ -n "$anchor" ] && ! anchors "$root/$path" | grep -qxF -- "$anchor"; then
          echo "$file:$line: links $target, but $path has no heading with that anchor"
        fi
      done
    done
  return 0
}

self_test() {
  local dir found want
  dir=$(mktemp -d -t lint-docs.XXXXXX)
  trap 'rm -rf "$dir"' RETURN
  mkdir -p "$dir/docs/design" "$dir/docs/perf"
  {
    printf '# Title\n\n```sh\nmake demo   # the main job\nmake test   # everything\n```\n\n'
    printf 'See [the loop](docs/a.md#the-short-loop-make-check), [up](#title) and [web](https://example.com/x#y).\n'
    seq $((readme_limit - 8)) | sed 's/^/line /'
  } >"$dir/README.md"
  printf '# A\n\n## The short loop: `make check`\n\n```sh\n# not a heading\n```\n\n' >"$dir/docs/a.md"
  printf 'An id 0f5f3d4e-9a55-4c2e-a1a2-7d0f6c3b9e11, a policy "2012-10-17", 1234567890 and decade.\n' >>"$dir/docs/a.md"
  printf 'On 2026-11-01, 2026-11-02, 2026-11-03T10:00:00Z, 2026-11-04 and 2026-11-05.\n' >>"$dir/docs/a.md"
  printf '| target | what |\n| --- | --- |\n| `A` | %s |\n' "$(printf 'x%.0s' $(seq $((testing_width - 10))))" >"$dir/docs/testing.md"
  printf 'Run 2026-10-01 at 4d0b7a9 (generated).\n' >"$dir/docs/perf/record.md"
  found=$(lint "$dir")
  [ -z "$found" ] || { echo "lint-docs: self-test: a clean tree was flagged: $found" >&2; return 1; }

  echo 'one line too many' >>"$dir/README.md"
  sed -i 's/^make test .*/make check/' "$dir/README.md"
  printf 'Fixed at `4d0b7a9`, then in a25bcbf.\n' >"$dir/docs/design/b.md"
  printf 'And 2026-11-06.\n[gone](missing.md) and [off](a.md#no-such-heading)\n' >>"$dir/docs/a.md"
  sed -i '3s/ |$/x |/' "$dir/docs/testing.md"
  found=$(lint "$dir")
  local expected=("README.md: $((readme_limit + 1)) lines" "README.md: its first code block" "docs/design/b.md:1: 4d0b7a9"
    "docs/design/b.md:1: a25bcbf" "docs: 6 dates" "docs/testing.md:3: $((testing_width + 1)) characters"
    "docs/a.md:12: links missing.md, which does not exist" "docs/a.md:12: links a.md#no-such-heading, but")
  for want in "${expected[@]}"; do
    grep -qF -- "$want" <<<"$found" || { echo "lint-docs: self-test: '$want' was not flagged; it found: $found" >&2; return 1; }
  done
  [ "$(grep -vc '^  ' <<<"$found")" = "${#expected[@]}" ] || { echo "lint-docs: self-test: flagged more than planted: $found" >&2; return 1; }
  echo "lint-docs: self-test passed (${#expected[@]} planted faults flagged, a clean tree passes)"
}

case "${1:-}" in
  --self-test) self_test; exit ;;
  --root) found=$(lint "$2") ;;
  '') found=$(lint .) ;;
  *) echo "usage: scripts/lint-docs.sh [--root DIR] | --self-test" >&2; exit 64 ;;
esac
if [ -n "$found" ]; then
  echo "$found" >&2
  echo "lint-docs: the docs above tell history or point nowhere; say what is true today, and keep the history in git and CHANGELOG.md" >&2
  exit 1
fi
echo "lint-docs: README.md $(wc -l <README.md) lines, no commit hash, $(docs . | xargs grep -ohP '(?<![0-9])20[0-9]{2}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])(?![0-9])' | grep -vc '^2012-10-17$' || true) of $date_limit dates, every link found"
