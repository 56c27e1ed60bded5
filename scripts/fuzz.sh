#!/usr/bin/env bash
# Builds the libFuzzer targets under Fuzz/ and runs each for a bounded time from its
# committed seed corpus, side by side (FUZZ_JOBS at a time, default one per CPU). Usage:
# scripts/fuzz.sh [seconds-per-target] (default 60).
#
# The build goes to .build-fuzz (or FUZZ_SCRATCH) with PAYPULSE_FUZZ=1: Package.swift then
# declares the fuzz targets and instruments our modules with -sanitize=fuzzer,address; the
# dependencies are built as usual. FUZZ_SCRATCH=.build reuses the dependencies `make test`
# built there (only our modules recompile, instrumented; the next normal build recompiles
# them again), which is what CI does. Each run works on a
# temporary copy of Fuzz/corpus/<target>, so the committed corpus never grows. Prints the
# executions per target and the crashes (must be 0), writes .build/reports/fuzz.txt, and
# exits non-zero on any crash, leak, timeout or out-of-memory. Inputs that fail are kept
# in .build/reports/fuzz-artifacts/<target>/; add one to Fuzz/corpus/<target>/ once fixed.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds="${1:-60}"
SWIFT="${SWIFT:-swift}"
targets=(event-decoder store-tokens-body jwt-front aws-error)
scratch="${FUZZ_SCRATCH:-.build-fuzz}"
reports=.build/reports
summary="$reports/fuzz.txt"

# 0 would mean "no limit" to libFuzzer.
case "$seconds" in '' | *[!0-9]* | 0) echo "fuzz: seconds must be a whole number above 0, got '$seconds'" >&2; exit 64 ;; esac

# libcurl and SQLite headers: the fuzzed modules link the transport.
scripts/ensure-deps.sh

# libFuzzer without its main(): SwiftPM gives every executable a Swift main, which calls
# LLVMFuzzerRunDriver (Fuzz/Support/LibFuzzer.swift). The toolchain ships the archive.
resources="$($SWIFT -print-target-info | sed -n 's/.*"runtimeResourcePath": *"\([^"]*\)".*/\1/p')"
runtime="$resources/clang/lib/linux/libclang_rt.fuzzer_no_main-$(uname -m).a"
if [ ! -f "$runtime" ]; then
  echo "fuzz: this toolchain has no $runtime (libFuzzer); cannot fuzz here" >&2
  exit 69
fi
# ASan symbolizes stacks with the toolchain's llvm-symbolizer (usr/bin next to usr/lib/swift).
symbolizer="$resources/../../bin/llvm-symbolizer"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$reports"
build_log="$reports/fuzz-build.log"
: >"$build_log"
build_started=$(date +%s)
for target in "${targets[@]}"; do
  status=0
  PAYPULSE_FUZZ=1 $SWIFT build --scratch-path "$scratch" --product "fuzz-$target" \
    -Xlinker "$runtime" -Xlinker -lstdc++ >"$work/build.out" 2>&1 || status=$?
  # ld.gold warns once per ASan helper symbol ("Cannot export local symbol"): noise.
  grep -v "Cannot export local symbol" "$work/build.out" >>"$build_log" || true
  if [ "$status" != 0 ]; then
    tail -40 "$build_log" >&2
    echo "fuzz: building fuzz-$target failed (log: $build_log)" >&2
    exit 1
  fi
done
build_seconds=$(( $(date +%s) - build_started ))

{
  echo "fuzz run $(date -u +%Y-%m-%dT%H:%M:%SZ): ${seconds}s per target, build ${build_seconds}s"
  printf '%-18s %8s %12s %9s %9s %13s %8s %s\n' target seconds executions exec/s coverage corpus crashes result
} >"$summary"

# One target: its row of the summary goes to $work/TARGET.row; fails when the target did.
fuzz_one() {
  local target=$1 corpus="$work/$1" artifacts="$reports/fuzz-artifacts/$1" log="$reports/fuzz-$1.log"
  local seeds started status=0 elapsed executions coverage final_corpus crashes result=ok
  rm -rf "$artifacts"
  mkdir -p "$corpus" "$artifacts"
  cp Fuzz/corpus/"$target"/* "$corpus"/
  seeds=$(find "$corpus" -type f | wc -l)
  started=$(date +%s)
  # -timeout only catches a hang (one input running a minute), not slowness: the machine
  # may be loaded. SWIFT_BACKTRACE off: libFuzzer's own handler reports a trap and writes the input;
  # the Swift backtracer would only slow that down on a loaded machine.
  SWIFT_BACKTRACE=enable=no \
    ASAN_OPTIONS="detect_leaks=1:abort_on_error=0:symbolize=1${ASAN_OPTIONS:+:$ASAN_OPTIONS}" \
    ASAN_SYMBOLIZER_PATH="$symbolizer" \
    timeout --kill-after=30 $((seconds + 120)) "$scratch/debug/fuzz-$target" "$corpus" \
      -max_total_time="$seconds" -timeout=60 -rss_limit_mb=2048 -print_final_stats=1 \
      -artifact_prefix="$artifacts/" >"$log" 2>&1 || status=$?
  elapsed=$(( $(date +%s) - started ))
  # A crash ends libFuzzer early, maybe before any stats line: parse without failing.
  executions=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1 || true)
  [ -n "$executions" ] || executions=$(sed -n 's/^Done \([0-9]*\) runs.*/\1/p' "$log" | tail -1 || true)
  coverage=$( (grep -o 'cov: [0-9]*' "$log" || true) | tail -1 | cut -d' ' -f2)
  final_corpus=$(find "$corpus" -type f | wc -l)
  crashes=$(find "$artifacts" -type f | wc -l)
  if [ "$status" != 0 ] || [ "$crashes" != 0 ] || grep -qE '^==[0-9]+==ERROR|ERROR: libFuzzer' "$log"; then
    result="FAILED (exit $status, log $log)"
    grep -E 'ERROR|Precondition|Fatal error|SUMMARY|Test unit written' "$log" | head -20 >&2 || true
  fi
  printf '%-18s %8s %12s %9s %9s %13s %8s %s\n' "$target" "$elapsed" "${executions:-?}" \
    "$(( ${executions:-0} / (elapsed > 0 ? elapsed : 1) ))" "${coverage:-?}" "$seeds->$final_corpus" "$crashes" "$result" >"$work/$target.row"
  [ "$result" = ok ]
}

# The targets run side by side, FUZZ_JOBS at a time (default: one per CPU): each is
# single-threaded, and each still gets its full time.
jobs=${FUZZ_JOBS:-$(nproc)}
failures=0
running=()
for target in "${targets[@]}"; do
  fuzz_one "$target" &
  running+=("$!")
  if [ "${#running[@]}" -ge "$jobs" ]; then
    wait "${running[0]}" || failures=$((failures + 1))
    running=("${running[@]:1}")
  fi
done
for pid in "${running[@]}"; do wait "$pid" || failures=$((failures + 1)); done
for target in "${targets[@]}"; do cat "$work/$target.row" >>"$summary"; done

cat "$summary"
if [ "$failures" != 0 ]; then
  echo "fuzz: $failures target(s) failed; failing inputs are in $reports/fuzz-artifacts/" >&2
  exit 1
fi
