#!/usr/bin/env bash
# Times the stages of `make test`, so that CI's time is read, not guessed: each stage's
# wall time goes to .build/reports/stage-times.tsv, and the table of them is printed when
# the run ends, or when a stage fails (with the stages so far; a failing stage also stops
# what the run started in the background, scripts/in-background.sh).
# Usage: scripts/timed-stage.sh --reset | NAME COMMAND [ARG...] | --table
set -uo pipefail
cd "$(dirname "$0")/.."
times=.build/reports/stage-times.tsv

table() {
  [ -s "$times" ] || return 0
  awk -F'\t' '
    BEGIN { print ""; print "| stage | time | result |"; print "| --- | ---: | --- |" }
    { printf "| %s | %d:%02d | %s |\n", $1, $2 / 60, $2 % 60, $3; total += $2 }
    END { printf "| all | %d:%02d | |\n", total / 60, total % 60 }' "$times"
}

case "${1:-}" in
  --reset) mkdir -p "$(dirname "$times")"; : >"$times" ;;
  --table) table ;;
  '' | -*) echo "usage: scripts/timed-stage.sh --reset | NAME COMMAND [ARG...] | --table" >&2; exit 64 ;;
  *)
    name=$1
    shift
    mkdir -p "$(dirname "$times")"
    started=$(date +%s)
    "$@"
    status=$?
    printf '%s\t%d\t%s\n' "$name" "$(( $(date +%s) - started ))" "$([ $status = 0 ] && echo passed || echo "FAILED ($status)")" >>"$times"
    if [ $status != 0 ]; then
      table
      scripts/in-background.sh stop  # the run ends here: nothing it started goes on computing
    fi
    exit $status
    ;;
esac
