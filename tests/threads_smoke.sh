#!/usr/bin/env bash
# Multi-threaded paths of alloclab end to end, for the tsan setup (Criterion's
# sandbox cannot start under ThreadSanitizer here, so the Criterion suites are
# left out of that setup): every bundled plugin measured at 2 threads on every
# workload (the multithreaded ones at 3, so xmalloc has a thread on its own),
# and the thread cases of `alloclab check`. Fails if a command
# fails or a sanitizer reports anything.
#   tests/threads_smoke.sh path/to/alloclab
set -uo pipefail
# Measured as alloclab's users measure: not with the MALLOC_PERTURB_ meson
# gives every test (glibc would fill every block it hands out).
unset MALLOC_PERTURB_
alloclab=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
status=0
plugins=(system obmalloc-radix obmalloc-radix:mode=per-thread obmalloc-bigpool:mode=per-thread)
# Debian's jemalloc and mimalloc are not instrumented: ThreadSanitizer cannot
# see their internal synchronisation and would report the reuse of a block
# freed on one thread and allocated on another as a race. Under the tsan
# setup they are left out; everywhere else they run too.
if [ -z "${ALLOCLAB_TSAN:-}" ]; then
	plugins+=(jemalloc mimalloc tcmalloc tbbmalloc)
fi

args=()
for p in "${plugins[@]}"; do args+=(-p "$p"); done
if ! "$alloclab" run "${args[@]}" -w churn:ops=20000,slots=512 -w unicode:words=256,rounds=3 -t 2 -n 1 \
	-q -o "$dir/r.json" >"$dir/run.out" 2>"$dir/run.err"; then
	echo "alloclab run failed:"; cat "$dir/run.err"; status=1
fi
# The multithreaded workloads; per-thread obmalloc is not applicable to the
# ones that free across threads, which is not a failure.
if ! "$alloclab" run "${args[@]}" -w threadtest:objects=2000,iterations=2 -w larson:ops=20000,slots=200,rounds=50 \
	-w xmalloc:ops=5000 -w cache-thrash:iterations=500,writes=2 -w cache-scratch:iterations=500,writes=2 -t 3 -n 1 \
	-q -o "$dir/mt.json" >"$dir/mt.out" 2>>"$dir/run.err"; then
	echo "alloclab run failed:"; cat "$dir/run.err"; status=1
fi
for p in "${plugins[@]}"; do
	if ! "$alloclab" check "$p" --case threads --case thread-lifecycle >"$dir/check.out" 2>"$dir/check.err"; then
		echo "alloclab check $p failed:"; cat "$dir/check.out" "$dir/check.err"; status=1
	fi
	cat "$dir/check.err" >>"$dir/run.err"
done
if grep -q "Sanitizer" "$dir/run.err"; then
	echo "sanitizer reports:"; cat "$dir/run.err"; status=1
fi
echo "$([ $status = 0 ] && echo 1 || echo 0) passed, $([ $status = 0 ] && echo 0 || echo 1) failed"
exit $status
