#!/usr/bin/env bash
# Times the stages of `make test`, so that CI's time is read, not guessed: each stage's
# wall time goes to .build/reports/stage-times.tsv, and the table of them is printed when
# the run ends, or when a stage fails (with the stages so far; a failing stage also stops
# what the run started in the background, scripts/in-background.sh). Beside each time, how
# many of the machine's CPUs were busy on average (Linux's /proc/stat, background work
# included): a stage near the CPU count is computing, one well below it mostly waits.
# Usage: scripts/timed-stage.sh --reset | NAME COMMAND [ARG...] | --table
set -uo pipefail
cd "$(dirname "$0")/.."
times=.build/reports/stage-times.tsv

table() {
  [ -s "$times" ] || return 0
  awk -F'\t' '
    function cpus(busy, wall) { return busy == "" || wall == 0 ? "-" : sprintf("%.1f", busy / wall) }
    BEGIN { print ""; print "| stage | time | CPUs busy | result |"; print "| --- | ---: | ---: | --- |" }
    { printf "| %s | %d:%02d | %s | %s |\n", $1, $2 / 60, $2 % 60, cpus($4, $2), $3; total += $2; busy += $4 }
    END { printf "| all | %d:%02d | %s | |\n", total / 60, total % 60, cpus(busy, total) }' "$times"
}

# CPU-seconds the whole machine has been busy since boot (empty where /proc/stat is absent).
busy_seconds() {
  [ -r /proc/stat ] || return 0
  awk -v hz="$(getconf CLK_TCK)" '/^cpu / { print ($2 + $3 + $4 + $7 + $8) / hz; exit }' /proc/stat
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
    busy_before=$(busy_seconds)
    "$@"
    status=$?
    busy_after=$(busy_seconds)
    busy=$([ -n "$busy_before" ] && awk -v a="$busy_before" -v b="$busy_after" 'BEGIN { printf "%d", b - a }')
    printf '%s\t%d\t%s\t%s\n' "$name" "$(( $(date +%s) - started ))" "$([ $status = 0 ] && echo passed || echo "FAILED ($status)")" "$busy" >>"$times"
    if [ $status != 0 ]; then
      table
      scripts/in-background.sh stop  # the run ends here: nothing it started goes on computing
    fi
    exit $status
    ;;
esac
