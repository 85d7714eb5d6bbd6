#!/usr/bin/env bash
# Runs what bench/gpu/pack.sh packed, on the GPU host (device tool: carry [".deps/runtime",
# "build-pack"]): unpacks the runtime .debs and the pack, runs GPU test suites, compute-sanitizer
# passes and benchmark commands, and prints a short table last. Logs go to $OUT.
#
#   PACK=gpu                       build-pack/$PACK.tar.xz
#   TESTS="test_graph_gpu ..."     suites to run (default: every packed tests/test_*)
#   SANITIZE="memcheck:test_dense_gemm_gpu:small racecheck:..."   tool:suite[:run_test filter]
#   BENCH=$'bench_gemm_gpu 8192\nKLEENE_BFS_ONLY=1 bench_sparse_gpu 22'   one command a line,
#                                  run in build-dev/bench/gpu (its binaries are on PATH)
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
out=${OUT:-/tmp/kleene-gpu}
mkdir -p "$out"
for d in "$root"/.deps/runtime/*.deb; do dpkg -x "$d" / >/dev/null 2>&1; done
ldconfig
tar -C "$root" -xJf "$root/build-pack/${PACK:-gpu}.tar.xz"
dev=$root/build-dev
export PATH=$dev/bench/gpu:$dev/bench:$dev/tools:$PATH
table=()
verdict() {  # log -> "ok" or the Boost.Test failure line
    grep -q "No errors detected" "$1" && { echo ok; return; }
    grep -m1 -E "failure|error" "$1" || tail -1 "$1"
}
tests=${TESTS:-$(cd "$dev/tests" && ls)}
for t in $tests; do
    t0=$(date +%s.%N)
    timeout "${TEST_TIMEOUT:-300}" "$dev/tests/$t" >"$out/$t.log" 2>&1
    rc=$?
    table+=("$(printf '%-28s rc=%-3s %6.1f s  %s' "$t" "$rc" "$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { print b - a }')" "$(verdict "$out/$t.log")")")
done
for s in ${SANITIZE:-}; do
    IFS=: read -r tool suite filter <<<"$s"
    log=$out/sanitize_${tool}_$suite.log
    args=()
    [[ -n ${filter:-} ]] && args=(--run_test="$filter")
    timeout "${SANITIZE_TIMEOUT:-240}" compute-sanitizer --tool "$tool" --error-exitcode 9 \
        "$dev/tests/$suite" "${args[@]}" >"$log" 2>&1
    rc=$?
    table+=("$(printf '%-28s rc=%-3s %s' "$tool $suite ${filter:-}" "$rc" "$(grep -m1 -E 'ERROR SUMMARY|RACECHECK SUMMARY|hazard' "$log")")")
done
n=0
while IFS= read -r cmd; do
    [[ -z $cmd ]] && continue
    n=$((n + 1))
    (cd "$dev/bench/gpu" && eval "$cmd") >"$out/bench_$n.log" 2>&1
    table+=("bench $n rc=$? : $cmd")
    grep -E "^RESULT|^SWEEP|^BFS|variant|T/s" "$out/bench_$n.log" | head -60
done <<<"${BENCH:-}"
printf '\n== summary\n'
printf '%s\n' "${table[@]}"
