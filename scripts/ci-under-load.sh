#!/usr/bin/env bash
# Runs the CI entry point (.ci/run) N times in a row, each from a fresh clone, while another process
# keeps one core busy; logs each run's result and duration. Issue 14, point 7: CI must be green
# five times in a row under that load.
set -uo pipefail

usage() {
  cat <<'USAGE'
Usage: scripts/ci-under-load.sh [--runs N] [--all] [--ref REF] [--log FILE] [--keep]

Clones this repository (REF, default HEAD) into a fresh directory beside ../shared for every run,
starts `node -e 'for(;;){}'` as the busy process, runs .ci/run there and records the outcome.
  --runs N    runs in a row (default 5); stops at the first failure unless --all is given
  --all       keep going after a failed run
  --ref REF   commit or branch to test (default HEAD)
  --log FILE  summary log (default ci-under-load.log in the current directory); each run's full
              output goes to FILE.runK
  --keep      keep the clones (default: delete a passed run's clone, keep a failed one)
Exit status 0 when every run passed.
USAGE
}

runs=5 ref=HEAD log="$PWD/ci-under-load.log" keep=0 all=0
while [ $# -gt 0 ]; do
  case "$1" in
    --runs) runs="$2"; shift 2 ;;
    --ref) ref="$2"; shift 2 ;;
    --log) log="$(realpath -m "$2")"; shift 2 ;;
    --keep) keep=1; shift ;;
    --all) all=1; shift ;;
    -h|--help) usage; exit 0 ;;
    *) echo "unknown option: $1" >&2; usage >&2; exit 2 ;;
  esac
done

repo="$(git -C "$(dirname "$0")/.." rev-parse --show-toplevel)"
commit="$(git -C "$repo" rev-parse "$ref")" || exit 2
# .ci/run expects ../shared beside the clone (the spec and style guide); SHARED_DIR names it otherwise.
shared="$(realpath "${SHARED_DIR:-$repo/../shared}" 2>/dev/null || true)"
workdir="$(mktemp -d "${TMPDIR:-/tmp}/ci-under-load.XXXXXX")"
[ -n "$shared" ] && [ -d "$shared" ] && ln -s "$shared" "$workdir/shared"

node -e 'for(;;){}' &
busy=$!
run_group=""
# Interrupted: stop the busy process and the run under way (its own process group: npm, node, anvil).
trap 'kill "$busy" 2>/dev/null; [ -n "$run_group" ] && kill -- -"$run_group" 2>/dev/null' EXIT
trap 'exit 130' INT TERM
echo "$(date -Is) commit $commit, $runs runs, busy process $busy, $(nproc) cores" | tee -a "$log"

failed=0 passed=0
for k in $(seq 1 "$runs"); do
  clone="$workdir/run$k"
  git clone -q --no-local "$repo" "$clone" && git -C "$clone" checkout -q "$commit" || exit 2
  start=$(date +%s)
  (cd "$clone" && exec setsid .ci/run) >"$log.run$k" 2>&1 &
  run_group=$!
  wait "$run_group"
  code=$?
  run_group=""
  seconds=$(( $(date +%s) - start ))
  tests=$(grep -E '^# (pass|fail|cancelled) ' "$log.run$k" | tr '\n' ' ')
  if [ "$code" -eq 0 ]; then verdict=PASS; passed=$((passed + 1)); else verdict=FAIL; failed=$((failed + 1)); fi
  echo "$(date -Is) run $k/$runs $verdict exit $code in ${seconds}s; $tests; load $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$log"
  if [ "$code" -ne 0 ]; then
    grep -E '^not ok|timed out|Error:' "$log.run$k" | head -20 | sed 's/^/    /' | tee -a "$log"
    echo "    clone kept: $clone" | tee -a "$log"
    [ "$all" -eq 1 ] || break
  elif [ "$keep" -eq 0 ]; then
    rm -rf "$clone"
  fi
done
echo "$(date -Is) $passed of $runs runs passed, $failed failed" | tee -a "$log"
[ "$passed" -eq "$runs" ]
