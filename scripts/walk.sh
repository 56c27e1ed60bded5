#!/usr/bin/env bash
# The walk of one request: which of our source files one store-tokens first connection and
# one user-profile actually run, by module folder (a SwiftPM target's folder, subfolders
# counted with it), measured with code coverage of exactly those two invocations.
#
# Builds store-tokens and user-profile coverage-instrumented in their own scratch folder
# ($PAYPULSE_WALK_SCRATCH, default .build-walk), starts a private moto_server
# (scripts/with-moto.sh) with the users table, the manifest's user and a Google client ID
# seeded through the developer CLI (`paypulse setup`, `paypulse seed`), and the Swift fake
# Google (`paypulse serve --fake-google`, knowing events/manifest.json's grants). Then it runs
# each executable once, one event on stdin, on Secrets Manager (PAYPULSE_STORE=aws):
# store-tokens < events/store-tokens/v1-json-first-connection.json (the refresh token is
# proven at the fake Google) must answer 201, user-profile < events/user-profile/v1-connected.json
# must answer 200, each matching its expected file, or the script fails: it never measures
# an error path. Last, llvm-profdata and llvm-cov list the files under Sources/ with an
# executed line, grouped by module folder, and one summary line per function.
#
# Usage: scripts/walk.sh (or `make walk`). Issue 23's targets are printed beside the counts;
# the script reports, it does not enforce them.
#
# scripts/walk.sh --instructions BIN_DIR runs the same two invocations, built by the caller
# (say `swift build -c release`, at two commits), each once under callgrind, and prints the
# instructions each cold start executed: the measure of what a function builds at start.
set -euo pipefail
self="$(cd "$(dirname "$0")" && pwd)/$(basename "$0")"
cd "$(dirname "$0")/.."

scratch=${PAYPULSE_WALK_SCRATCH:-.build-walk}
if [ "${1:-}" = "--instructions" ]; then
  export PAYPULSE_WALK_INSTRUCTIONS
  PAYPULSE_WALK_INSTRUCTIONS=$(cd "${2:?walk: --instructions needs the folder of the built functions}" && pwd)
  command -v valgrind >/dev/null || { echo "walk: valgrind is needed (apt-get install valgrind)" >&2; exit 1; }
fi
functions=(store-tokens user-profile)

fail() { echo "walk: FAIL: $*" >&2; exit 1; }

# Runs a build quietly, showing its log only when it fails.
quiet_build() {
  local log
  log=$(mktemp -t paypulse-walk-build.XXXXXX.log)
  if ! swift build "$@" >"$log" 2>&1; then
    cat "$log" >&2
    rm -f "$log"
    fail "swift build $* failed (above)"
  fi
  rm -f "$log"
}

if [ -z "${PAYPULSE_WALK_STAGE:-}" ]; then
  scripts/ensure-deps.sh --with-moto
  if [ -z "${PAYPULSE_WALK_INSTRUCTIONS:-}" ]; then
    echo "walk: building ${functions[*]} with coverage in $scratch (the first build takes minutes)" >&2
    for function in "${functions[@]}"; do
      quiet_build --build-path "$scratch" --enable-code-coverage --product "$function"
    done
  fi
  # The developer CLI (seeding, the fake Google, the answer check): uninstrumented, in .build.
  quiet_build --product paypulse
  # A private moto_server, whatever the caller exported: the first connection needs an empty store.
  exec env -u PAYPULSE_TEST_MOTO_ENDPOINT PAYPULSE_WALK_STAGE=measure scripts/with-moto.sh "$self"
fi

# The LLVM tools of the compiler that built the binaries (a system llvm-cov may be too old
# to read its profiles): beside the real `swift`, else Xcode's, else the PATH's.
llvm_tool() { # $1 = tool name
  local beside
  beside="$(dirname "$(readlink -f "$(command -v swift)")")/$1"
  if [ -x "$beside" ]; then echo "$beside"
  elif command -v xcrun >/dev/null 2>&1 && xcrun --find "$1" >/dev/null 2>&1; then xcrun --find "$1"
  elif command -v "$1" >/dev/null 2>&1; then command -v "$1"
  else fail "$1 not found (it comes with the Swift toolchain)"
  fi
}
profdata=$(llvm_tool llvm-profdata)
cov=$(llvm_tool llvm-cov)

bin=${PAYPULSE_WALK_INSTRUCTIONS:-$(swift build --build-path "$scratch" --enable-code-coverage --show-bin-path)}
cli="$(swift build --show-bin-path)/paypulse"
moto=${PAYPULSE_TEST_MOTO_ENDPOINT:?walk: no moto_server endpoint}

work=$(mktemp -d -t paypulse-walk.XXXXXX)
serve_pid=""
cleanup() {
  if [ -n "$serve_pid" ]; then kill "$serve_pid" 2>/dev/null || true; wait "$serve_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

# Secrets Manager and DynamoDB on the private moto_server; the development JWT key (no key
# variable set, outside Lambda), which signed the events.
aws=(PATH="$PATH" HOME="$work" PAYPULSE_STORE=aws AWS_REGION=us-east-1
  AWS_ACCESS_KEY_ID=AKIDPAYPULSETEST AWS_SECRET_ACCESS_KEY=paypulse-test-secret-key AWS_ENDPOINT_URL="$moto")
env -i "${aws[@]}" "$cli" setup >/dev/null
env -i "${aws[@]}" "$cli" seed --manifest events/manifest.json --client-id walk-client.apps.googleusercontent.com >/dev/null

# The fake Google serves the client ID stored above and knows the manifest's grants.
env -i "${aws[@]}" "$cli" serve --fake-google --port 0 --grants events/manifest.json >"$work/serve.log" 2>&1 &
serve_pid=$!
port=""
for _ in $(seq 1 300); do
  port=$(sed -n 's|^paypulse serve: listening on http://127\.0\.0\.1:\([0-9]*\) .*|\1|p' "$work/serve.log")
  [ -n "$port" ] && break
  kill -0 "$serve_pid" 2>/dev/null || { cat "$work/serve.log" >&2; fail "paypulse serve --fake-google exited"; }
  sleep 0.1
done
[ -n "$port" ] || { cat "$work/serve.log" >&2; fail "paypulse serve --fake-google did not start"; }
google="http://127.0.0.1:$port/fake-google"

# Runs one instrumented function once on one event; its answer must have `status` and match
# the expected file, or nothing is measured.
measure() { # $1 = function, $2 = event under events/, $3 = expected status
  local function=$1 event=events/$2 status=$3 answered run=()
  local executable=$bin/$function
  if [ -n "${PAYPULSE_WALK_INSTRUCTIONS:-}" ]; then
    # A copy without debug info: valgrind 3.19 cannot read the DWARF 5 that Swift writes.
    executable=$work/$function.stripped
    strip --strip-debug -o "$executable" "$bin/$function"
    run=(valgrind --tool=callgrind --callgrind-out-file="$work/$function.callgrind")
  fi
  env -i "${aws[@]}" GOOGLE_TOKEN_ENDPOINT="$google/token" GOOGLE_REVOKE_ENDPOINT="$google/revoke" \
    LLVM_PROFILE_FILE="$work/$function.profraw" "${run[@]}" "$executable" <"$event" >"$work/$function.out" 2>"$work/$function.err" \
    || { cat "$work/$function.err" >&2; fail "$function < $event exited non-zero"; }
  answered=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1])).get("statusCode"))' "$work/$function.out" 2>/dev/null || echo "none")
  [ "$answered" = "$status" ] || { cat "$work/$function.out" "$work/$function.err" >&2; fail "$function < $event answered $answered, not $status"; }
  "$cli" match-response "${event%.json}.expected.json" "$work/$function.out" >/dev/null \
    || fail "$function < $event: the answer differs from ${event%.json}.expected.json"
  if [ -n "${PAYPULSE_WALK_INSTRUCTIONS:-}" ]; then
    echo "$function < $event: answered $status, $(sed -n 's/^summary: //p' "$work/$function.callgrind") instructions" >>"$work/runs"
    return
  fi
  [ -s "$work/$function.profraw" ] || fail "$function wrote no coverage profile (was it built with coverage?)"
  "$profdata" merge -sparse "$work/$function.profraw" -o "$work/$function.profdata"
  "$cov" export -summary-only -instr-profile "$work/$function.profdata" "$bin/$function" >"$work/$function.coverage.json"
  echo "$function < $event: answered $status" >>"$work/runs"
}
measure store-tokens store-tokens/v1-json-first-connection.json 201
measure user-profile user-profile/v1-connected.json 200
if [ -n "${PAYPULSE_WALK_INSTRUCTIONS:-}" ]; then cat "$work/runs"; exit 0; fi

swift package dump-package >"$work/package.json"
cat "$work/runs"
python3 - "$PWD" "$work/package.json" "$work" "${functions[@]}" <<'PY'
import json, os, sys

root, package, work, functions = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
# Issue 23's done-when: (files, module folders) at most, None where it sets none.
targets = {"store-tokens": (70, 10), "user-profile": (50, None)}

# Each target's folder, as Package.swift declares it (SwiftPM's default when it names none).
folders = {}
for target in json.load(open(package))["targets"]:
    default = "Tests" if target["type"] == "test" else "Sources"
    folders[(target.get("path") or f"{default}/{target['name']}").rstrip("/")] = target["name"]

def module_folder(path):
    owners = [folder for folder in folders if path.startswith(folder + "/")]
    return max(owners, key=len) if owners else os.path.dirname(path)

summaries = []
for function in functions:
    ran = {}
    for data in json.load(open(os.path.join(work, function + ".coverage.json")))["data"]:
        for entry in data["files"]:
            path = os.path.relpath(entry["filename"], root)
            if path.startswith("Sources/") and entry["summary"]["lines"]["covered"] > 0:
                ran.setdefault(module_folder(path), []).append((path, entry["summary"]["lines"]["covered"]))
    files = sum(len(paths) for paths in ran.values())
    print(f"\n{function}: source files that ran (executed lines), by module folder")
    for folder in sorted(ran):
        print(f"  {folder} ({folders.get(folder, '?')}): {len(ran[folder])} files")
        for path, lines in sorted(ran[folder]):
            print(f"    {os.path.relpath(path, folder)} ({lines})")
    print(f"{function} module folders: {', '.join(sorted(ran))}")
    most_files, most_folders = targets.get(function, (None, None))
    goal = " and ".join(part for part in (
        f"at most {most_files} files" if most_files else "", f"at most {most_folders} module folders" if most_folders else ""
    ) if part)
    summaries.append(f"{function}: {files} files in {len(ran)} module folders" + (f" (issue 23 target: {goal})" if goal else ""))

print()
print("\n".join(summaries))
PY
