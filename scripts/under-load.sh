#!/usr/bin/env bash
# Runs `make unit` RUNS times in a row in a fresh clone of HEAD while a second fresh clone
# runs `make unit` over and over beside it on the same CPUs: the load CI meets, since CI's
# own `make unit` shares this machine with whatever else runs (docs/testing.md, "Time in
# tests"). A suite that passes only on an idle machine is a flake waiting for a CI run.
# Usage: scripts/under-load.sh [RUNS=5]. The record goes to .build/reports/under-load.txt
# (each run's output beside it; the clones are removed at the end). Exit 1 if any run failed.
set -uo pipefail
cd "$(dirname "$0")/.."
runs=${1:-5}
root=$(pwd)
reports=$root/.build/reports
mkdir -p "$reports"
record="$reports/under-load.txt"
scratch=$(mktemp -d -t paypulse-under-load.XXXXXX)
git clone --quiet --no-local "$root" "$scratch/measured"
git clone --quiet --no-local "$root" "$scratch/beside"

# The second clone, in a process group of its own so that it can be stopped whole:
# `make unit` again and again until the measured runs are over.
setsid bash -c '
  cd "$1/beside"
  round=0
  while [ ! -e "$1/done" ]; do
    round=$((round + 1))
    started=$(date +%s)
    if make unit >"$2/under-load-beside-$round.log" 2>&1; then status=passed; else status=FAILED; fi
    printf "beside #%-2s %-6s %4d s\n" "$round" "$status" "$(( $(date +%s) - started ))" >>"$1/beside.txt"
  done
' under-load "$scratch" "$reports" &
beside=$!
trap 'touch "$scratch/done"; kill -- -"$beside" 2>/dev/null; wait "$beside" 2>/dev/null; rm -rf "$scratch"' EXIT

echo "under-load: $(date -u +%FT%TZ), commit $(git rev-parse --short HEAD), $(nproc) CPUs, make unit in a fresh clone beside another fresh clone's make unit" | tee "$record"
failed=0
for i in $(seq "$runs"); do
  log="$reports/under-load-unit-$i.log"
  started=$(date +%s)
  (cd "$scratch/measured" && make unit) >"$log" 2>&1
  status=$?
  summary=$(grep -E "Test run with [0-9]+ tests" "$log" | tail -1 | sed -E 's/.*(Test run with [0-9]+ tests[^.]*).*/\1/')
  printf 'unit #%-2s %-6s %4d s  ended %s  load %s  %s\n' "$i" "$([ $status = 0 ] && echo passed || echo FAILED)" \
    "$(( $(date +%s) - started ))" "$(date -u +%FT%TZ)" "$(cut -d' ' -f1-3 /proc/loadavg)" "$summary" | tee -a "$record"
  [ $status = 0 ] || failed=1
done
touch "$scratch/done"
echo "beside it (the last round was cut short when the measured runs ended):" | tee -a "$record"
sed 's/^/  /' "$scratch/beside.txt" 2>/dev/null | tee -a "$record"
echo "under-load: $([ $failed = 0 ] && echo "every measured run passed" || echo "a run FAILED (logs in $reports)")" | tee -a "$record"
exit $failed
