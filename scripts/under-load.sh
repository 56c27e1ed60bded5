#!/usr/bin/env bash
# Runs `make check` CHECKS times and `make unit` UNITS times while BURNERS processes keep the
# CPUs busy, and records each run's result, time and load average (docs/testing.md, "Time in
# tests"): a suite that passes only on an idle machine is a flake waiting for a CI run.
# Usage: scripts/under-load.sh [CHECKS=10] [UNITS=3] [BURNERS=1]; the record goes to
# .build/reports/under-load.txt (each run's output beside it). Exit 1 if any run failed.
set -uo pipefail
cd "$(dirname "$0")/.."
checks=${1:-10} units=${2:-3} burners=${3:-1}
reports=.build/reports
mkdir -p "$reports"
record="$reports/under-load.txt"
burner_pids=()
for _ in $(seq "$burners"); do
  python3 -c 'while True: pass' &
  burner_pids+=("$!")
done
trap 'kill "${burner_pids[@]}" 2>/dev/null' EXIT
echo "under-load: $(date -u +%FT%TZ), commit $(git rev-parse --short HEAD), $(nproc) CPUs, $burners busy-loop burner(s)" | tee "$record"
failed=0
run() { # $1 = target, $2 = run number
  local log="$reports/under-load-$1-$2.log" started status
  started=$(date +%s)
  make "$1" >"$log" 2>&1
  status=$?
  local summary
  summary=$(grep -E "Test run with [0-9]+ tests" "$log" | tail -1 | sed -E 's/.*(Test run with [0-9]+ tests).*/\1/')
  printf '%-5s #%-2s %-6s %4d s  load %s  %s\n' "$1" "$2" "$([ $status = 0 ] && echo passed || echo FAILED)" \
    "$(( $(date +%s) - started ))" "$(cut -d' ' -f1-3 /proc/loadavg)" "$summary" | tee -a "$record"
  [ $status = 0 ] || failed=1
}
for i in $(seq "$checks"); do run check "$i"; done
for i in $(seq "$units"); do run unit "$i"; done
echo "under-load: $([ $failed = 0 ] && echo "every run passed" || echo "a run FAILED (logs in $reports)")" | tee -a "$record"
exit $failed
