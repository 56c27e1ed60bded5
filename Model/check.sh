#!/usr/bin/env bash
# Model-checks the grant protocol (docs/model.md): every scenario of Model/grant.pml and
# Model/quota.pml exhaustively, expecting no error, then each planted defect, expecting Spin
# to find a counterexample, whose trail it prints as the model's "@ " steps.
#
#   Model/check.sh               all of it (`make model`), two runs at a time
#   Model/check.sh --trail D3    one defect's counterexample, step by step
#
# pan is compiled at -O0, with clang where there is one (the Swift toolchain's; three times
# faster than gcc here): optimising Spin's C for this model takes minutes, the search seconds.
# A search without the never claim checks the assertions and deadlocks (a claim turns the
# latter off); the LTL property, sequence_increases, is a second search of each scenario
# but the long one, with its claim. Each run is bounded in memory (MEMLIM, ulimit) and time.
set -euo pipefail
cd "$(dirname "$0")"
work=../.build/model
mkdir -p "$work"
jobs=${MODEL_JOBS:-2}
cc=$(command -v clang || command -v gcc)

# scenario number, name (grant.pml's SCENARIO blocks say what each starts)
scenarios=(
  "1 connect-event"
  "2 disconnect-reconnect"
  "3 disconnect-event"
  "4 refresh-event"
  "5 fresh-event"
  "6 connect-refresh"
  "7 events-in-any-order"
  "8 reconnect-event"
  "10 refresh-disconnect"
  "11 fresh-reconnect"
  "12 refresh-fresh"
  "13 fresh-disconnect"
)
# the three-worker scenario, the one long search: started first, so the two workers end together
long="9 disconnect-reconnect-revoke"
# defect, the scenario that shows it (grant.pml's header names each; quota: Model/quota.pml)
defects=(
  "D1 1" "D2 1" "D3 8" "D4 2" "D5 2" "D6 quota" "D7 1" "D8 1" "D9 2" "D10 2" "D11 9" "D12 2"
)

# build RUN SCENARIO [FLAGS...]: spin's verifier for one run, in its own folder, with the
# arguments a replay needs kept beside it; SCENARIO "quota" is Model/quota.pml
build() {
  local run=$1 scenario=$2 model=grant.pml; shift 2
  local flags=("$@")
  if [ "$scenario" = quota ]; then model=quota.pml; else flags+=(-DSCENARIO="$scenario"); fi
  rm -rf "${work:?}/$run" && mkdir -p "$work/$run"
  cp "$model" "$work/$run/"
  echo "${flags[*]} $model" >"$work/$run/spin-args"
  (cd "$work/$run" && spin -a "${flags[@]}" "$model" >spin.log 2>&1 \
    && "$cc" -O0 -w -DCOLLAPSE -DMEMLIM=3000 -DSAFETY ${claim:--DNOCLAIM} -o pan pan.c 2>cc.log)
}

# search RUN: the exhaustive search (stopping at the first error), its output in pan.log
search() {
  (cd "$work/$1" && ulimit -v 4000000 && timeout "${MODEL_TIMEOUT:-600}" ./pan -m100000 >pan.log 2>&1) || true
}

# trail RUN: the steps of the counterexample pan saved for RUN, replayed as it was built
trail() {
  # shellcheck disable=SC2046 # the kept arguments are words
  (cd "$work/$1" && spin -t $(cat spin-args) 2>&1) | grep -E '^ *@|assertion violated' | sed -E 's/^ +//; s/^/       /'
}

# verify "SCENARIO NAME" (or "ltl SCENARIO NAME", with the LTL claim): 0 errors, the whole space searched
verify() {
  local claim= run
  set -- $1
  if [ "$1" = ltl ]; then claim=-DCLAIM; shift; run=l$1; else run=s$1; fi
  local name="$2${claim:+ (LTL)}"
  build "$run" "$1" || { echo "FAIL $name: the model does not build (see $work/$run)"; return 1; }
  search "$run"
  if grep -q 'errors: 0' "$work/$run/pan.log" && ! grep -q 'max search depth too small\|out of memory' "$work/$run/pan.log"; then
    printf 'ok   %-30s %10s states  %6ss  no error\n' "$name" \
      "$(awk '/states, stored/ { print $1; exit }' "$work/$run/pan.log")" "$(awk '/elapsed time/ { print $4; exit }' "$work/$run/pan.log")"
  else
    echo "FAIL $name: $(grep -m1 -E 'assertion violated|invalid end state|out of memory|max search depth|errors:' "$work/$run/pan.log" || echo 'no verdict (timed out?)')"
    echo "     trail: Model/check.sh --trail $run"
    return 1
  fi
}

# planted "DEFECT SCENARIO": Spin must report a counterexample, whose trail is printed
planted() {
  local claim=
  set -- $1
  [ "$1" != D12 ] || claim=-DCLAIM    # D12 breaks the LTL property
  build "$1" "$2" -D"$1" || { echo "FAIL $1: does not build"; return 1; }
  search "$1"
  if grep -q 'errors: [1-9]' "$work/$1/pan.log"; then
    echo "ok   $1 found: $(grep -m1 -oE 'assertion violated .{0,90}|invalid end state' "$work/$1/pan.log")"
    trail "$1"
  else
    echo "FAIL $1: Spin found no counterexample: the defect is not visible in the model any more"
    return 1
  fi
}

command -v spin >/dev/null || { echo "check.sh: spin is missing: scripts/ensure-deps.sh --with-spin" >&2; exit 1; }

if [ "${1:-}" = --trail ]; then
  if [ ! -f "$work/$2/spin-args" ]; then
    for d in "${defects[@]}"; do [ "${d%% *}" != "$2" ] || planted "$d" >/dev/null || true; done
  fi
  trail "$2"
  exit 0
fi

export -f build search trail verify planted
export work cc
started=$(date +%s)
echo "model: $(spin -V | head -1); each scenario exhaustively, then each planted defect"
status=0
{ echo "$long"; printf '%s\n' "${scenarios[@]}"; printf 'ltl %s\n' "${scenarios[@]}"; echo "quota quota"; } \
  | xargs -P "$jobs" -I{} bash -c 'verify "{}"' >"$work/verify.log" 2>&1 || status=1
cat "$work/verify.log"
printf '%s\n' "${defects[@]}" \
  | xargs -P "$jobs" -I{} bash -c 'planted "{}" >"$work/planted-$(echo {} | cut -d" " -f1).log" 2>&1' || status=1
for d in "${defects[@]}"; do cat "$work/planted-${d%% *}.log"; done
echo "model: $(( $(date +%s) - started )) s; $([ $status = 0 ] && echo 'no error in any scenario, a counterexample for every defect' || echo FAILED)"
exit $status
