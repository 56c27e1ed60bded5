#!/usr/bin/env bash
# Fails, naming file:line, on a path in the repository that climbs above its root: the
# repository builds, tests and benchmarks from its own clone alone, so nothing it links,
# reads or runs may live beside it (a clone elsewhere would fail without a word).
#
# What counts as a path: a Markdown link's target; a relative path that a script, the
# Makefile or a build file writes (a token that starts with ../, resolved from the file's
# folder and from the root, which scripts cd to); the path arguments of Foundation's file
# APIs in Swift; a tracked symbolic link's target; and any mention of the folder the
# workplace keeps beside a clone. Strings of ../ that are hostile input, not paths (the
# path-traversal attempts of the event and seed generators, the tests' attack catalogues,
# Fuzz/corpus, events/), are left alone: they are what the code must refuse; so is this
# file, whose self-test plants paths in a scratch repository.
#
# Usage: scripts/lint-paths.sh [--root DIR]   (default: this repository; DIR must be a git checkout)
#        scripts/lint-paths.sh --self-test     (proves it fails on planted paths, passes a clean tree)
set -euo pipefail
cd "$(dirname "$0")/.."

beside='shared'  # the workplace's folder beside the clone (spelled in two parts so this file passes)

lint() { # $1 = the checkout's root; prints file:line: message per path that climbs out
  local root
  root=$(cd "$1" && pwd -P)
  escapes() { # $1 = folder of the file (relative to root), $2 = the path
    local resolved
    resolved=$(realpath -m "$root/$1/$2")
    case "$resolved/" in "$root"/*) return 1 ;; *) return 0 ;; esac
  }
  (
    set +o pipefail  # a git grep that finds nothing is a clean tree, not a failure
    cd "$root"
    git grep -n -I -E "\.\./$beside([/\`\"' ]|$)|\"\.\.\", *\"$beside\"" -- . ':!scripts/lint-paths.sh' |
      sed -E 's/^([^:]+:[0-9]+):.*/\1: names the folder beside the clone/' || true

    git ls-files -s | awk '$1 == "120000" { print $4 }' | while read -r link; do
      if escapes "$(dirname "$link")" "$(readlink "$link")"; then echo "$link: a symbolic link out of the repository"; fi
    done

    git grep -n -o -I -E '\]\([^)# ]+' -- '*.md' ':!scripts/lint-paths.sh' | while IFS=: read -r file line match; do
      target=${match#](}
      case "$target" in *://* | mailto:*) continue ;; esac
      if escapes "$(dirname "$file")" "$target"; then echo "$file:$line: links $target, outside the repository"; fi
    done

    git grep -n -o -I -P '(?<![\w/$}.-])(\.\./)+[\w./-]*' -- Makefile '*.sh' '*.py' '*.yaml' '*.toml' Package.swift .ci \
      ':!Fuzz/make-seeds.py' ':!scripts/lint-paths.sh' | while IFS=: read -r file line path; do
      if escapes "$(dirname "$file")" "$path" && escapes . "$path"; then echo "$file:$line: $path climbs above the repository"; fi
    done

    git grep -n -o -I -P '(appendingPathComponent\(|fileURLWithPath: |atPath: |contentsOfFile: )"\.\./[^"]*' -- '*.swift' ':!scripts/lint-paths.sh' |
      while IFS=: read -r file line match; do
        path=${match#*\"}
        # Taken from the package root or the working directory, as the code's bases are.
        if escapes . "$path"; then echo "$file:$line: $path climbs above the repository"; fi
      done
  )
}

self_test() {
  local dir found
  dir=$(mktemp -d -t lint-paths.XXXXXX)
  trap 'rm -rf "$dir"' RETURN
  mkdir -p "$dir/repo/docs" "$dir/repo/scripts" "$dir/repo/Tests/A"
  git -C "$dir/repo" init -q
  printf '[fine](../README.md) and [up](../../elsewhere/x.md)\n' >"$dir/repo/docs/a.md"
  printf 'x\n' >"$dir/repo/README.md"
  printf 'cd "$(dirname "$0")/.."\nsource ../../beside/env.sh\ntool="$prefix/../../bin/tool"\n' >"$dir/repo/scripts/b.sh"
  printf 'let u = root.appendingPathComponent("../outside/suite")\nlet attack = "../../../../dev/null"\n' >"$dir/repo/Tests/A/c.swift"
  printf 'see ../%s/DESIGN.md\n' "$beside" >"$dir/repo/notes.txt"
  ln -s ../../etc "$dir/repo/docs/out"
  git -C "$dir/repo" add -A
  found=$(lint "$dir/repo")
  local expected=("docs/a.md:1: links ../../elsewhere/x.md" "scripts/b.sh:2: ../../beside/env.sh" "Tests/A/c.swift:1: ../outside/suite"
    "notes.txt:1: names the folder" "docs/out: a symbolic link")
  for want in "${expected[@]}"; do
    grep -qF "$want" <<<"$found" || { echo "lint-paths: self-test: '$want' was not flagged; it found: $found" >&2; return 1; }
  done
  [ "$(wc -l <<<"$found")" = "${#expected[@]}" ] || { echo "lint-paths: self-test: flagged more than planted: $found" >&2; return 1; }
  git -C "$dir/repo" rm -q --cached docs/a.md scripts/b.sh Tests/A/c.swift notes.txt docs/out
  found=$(lint "$dir/repo")
  [ -z "$found" ] || { echo "lint-paths: self-test: a clean tree was flagged: $found" >&2; return 1; }
  echo "lint-paths: self-test passed (5 planted paths flagged, a clean tree passes)"
}

case "${1:-}" in
  --self-test) self_test ;;
  --root) found=$(lint "$2") ;;
  '') found=$(lint .) ;;
  *) echo "usage: scripts/lint-paths.sh [--root DIR] | --self-test" >&2; exit 64 ;;
esac
if [ "${1:-}" != --self-test ]; then
  if [ -n "$found" ]; then
    echo "$found" >&2
    echo "lint-paths: the paths above climb above the repository's root; keep what the repository needs inside it" >&2
    exit 1
  fi
fi
