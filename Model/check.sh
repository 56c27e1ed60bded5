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
# defect, the scenario that shows it (grant.pml's header names each defect)
defects=(
  "D1 1" "D2 1" "D3 8" "D4 2" "D5 2" "D7 1" "D8 1" "D9 2" "D10 2" "D11 9" "D12 2"
)

# build NAME MODEL FLAGS...: spin's verifier for one run, in its own folder
build() {
  local name=$1 model=$2; shift 2
  rm -rf "${work:?}/$name" && mkdir -p "$work/$name"
  cp "$model" "$work/$name/"
  (cd "$work/$name" && spin -a "$@" "$model" >spin.log 2>&1 \
    && "$cc" -O0 -w -DCOLLAPSE -DMEMLIM=3000 -DSAFETY ${claim:--DNOCLAIM} -o pan pan.c 2>cc.log)
}

# search NAME: the exhaustive search (stopping at the first error), its output in pan.log
search() {
  (cd "$work/$1" && ulimit -v 4000000 && timeout "${MODEL_TIMEOUT:-600}" ./pan -m100000 >pan.log 2>&1) || true
}

states() { awk '/states, stored/ { print $1; exit }' "$work/$1/pan.log"; }
seconds() { awk '/elapsed time/ { print $4; exit }' "$work/$1/pan.log"; }

# verify "N NAME" or "quota": 0 errors, the whole space searched
verify() {
  local n=${1%% *} name=${1#* } run model flags=() claim=
  if [ "$1" = quota ]; then run=quota model=quota.pml name=quota
  elif [ "$n" = ltl ]; then n=${name%% *} name="${name#* } (LTL)" run=l$n model=grant.pml flags=(-DSCENARIO="$n") claim=-DCLAIM
  else run=s$n model=grant.pml flags=(-DSCENARIO="$n"); fi
  build "$run" "$model" "${flags[@]}" || { echo "FAIL $name: the model does not build (see $work/$run)"; return 1; }
  search "$run"
  if grep -q 'errors: 0' "$work/$run/pan.log" && ! grep -q 'max search depth too small\|out of memory' "$work/$run/pan.log"; then
    printf 'ok   %-30s %10s states  %6ss  no error\n' "$name" "$(states "$run")" "$(seconds "$run")"
  else
    echo "FAIL $name: $(grep -m1 -E 'assertion violated|invalid end state|acceptance|out of memory|max search depth|errors:' "$work/$run/pan.log" || echo 'no verdict (timed out?)')"
    echo "     trail: Model/check.sh --trail $run"
    return 1
  fi
}

# trail RUN: the steps of the counterexample pan saved for RUN
trail() {
  local run=$1 model=grant.pml flags=()
  case $run in
    quota) model=quota.pml ;;
    D6) model=quota.pml flags=(-DD6) ;;
    s*) flags=(-DSCENARIO="${run#s}") ;;
    D*) for d in "${defects[@]}"; do [ "${d%% *}" = "$run" ] && flags=(-DSCENARIO="${d#* }" -D"$run"); done ;;
  esac
  (cd "$work/$run" && spin -t "${flags[@]}" "$model" 2>&1) | grep -E '^ *@|assertion violated' | sed -E 's/^ +//; s/^/       /'
}

# planted "D SCENARIO" or "D6": Spin must report a counterexample
planted() {
  local d=${1%% *} s=${1#* } model=grant.pml flags claim=
  if [ "$d" = D6 ]; then model=quota.pml flags=(-DD6); else flags=(-DSCENARIO="$s" -D"$d"); fi
  [ "$d" != D12 ] || claim=-DCLAIM
  build "$d" "$model" "${flags[@]}" || { echo "FAIL $d: does not build"; return 1; }
  search "$d"
  if grep -q 'errors: [1-9]' "$work/$d/pan.log"; then
    echo "ok   $d found: $(grep -m1 -oE 'assertion violated .{0,90}|invalid end state|acceptance cycle' "$work/$d/pan.log")"
    trail "$d"
  else
    echo "FAIL $d: Spin found no counterexample: the defect is not visible in the model any more"
    return 1
  fi
}

if [ "${1:-}" = --trail ]; then
  if ! ls "$work/$2/"*.trail >/dev/null 2>&1; then
    case $2 in
      D6) planted D6 ;;
      D*) for d in "${defects[@]}"; do [ "${d%% *}" != "$2" ] || planted "$d"; done ;;
    esac >/dev/null || true
  fi
  trail "$2"
  exit 0
fi

command -v spin >/dev/null || { echo "check.sh: spin is missing: scripts/ensure-deps.sh --with-spin" >&2; exit 1; }
export -f build search states seconds verify trail planted
export work cc
declare -p defects >"$work/defects.sh"
started=$(date +%s)
echo "model: $(spin -V | head -1); each scenario exhaustively, then each planted defect"
status=0
{ echo "$long"; printf '%s\n' "${scenarios[@]}"; printf 'ltl %s\n' "${scenarios[@]}"; echo quota; } \
  | xargs -P "$jobs" -I{} bash -c 'verify "{}"' >"$work/verify.log" 2>&1 || status=1
cat "$work/verify.log"
{ printf '%s\n' "${defects[@]}"; echo D6; } \
  | xargs -P "$jobs" -I{} bash -c 'source "$work/defects.sh"; planted "{}" >"$work/planted-$(echo {} | cut -d" " -f1).log" 2>&1' || status=1
for d in "${defects[@]}" D6; do cat "$work/planted-${d%% *}.log"; done
echo "model: $(( $(date +%s) - started )) s; $([ $status = 0 ] && echo 'no error in any scenario, a counterexample for every defect' || echo FAILED)"
exit $status
