#!/usr/bin/env bash
# The harness's own cost, in instructions: the churn and unicode loops run
# by alloclab (--measure instructions, the timed region only) against the
# same loops with no framework around them (benchmarks/standalone/*.c, their
# loops counted the same way), per allocator. Prints instructions per
# operation (churn) or per object (unicode) and alloclab / standalone; for
# unicode also the harness's share of alloclab's count. A benchmark that
# prints figures, not a test.
#   benchmarks/harness-ratio.sh BUILD OUT [OPS]
set -euo pipefail
. "$(dirname "$0")/lib.sh"
bench_args "BUILD OUT [OPS]" "$@"
ops=${3:-200000}
# unicode: one fixed word length, the workload's default layout (py312, ASCII)
words=1024 chars=32 rounds=20

# standalone EXE ARGS...: the loop's instructions per op, from its dump
standalone() {
	local exe=$1 n=$2
	shift 2
	rm -f "$out"/cg.*
	valgrind --tool=callgrind --collect-atstart=no --callgrind-out-file="$out/cg.%p" -q "$exe" "$@" >/dev/null
	grep -h '^totals:' "$out"/cg.*.1 | awk -v n="$n" '{ printf "%.2f", $2 / n }'
	rm -f "$out"/cg.*
}

# framework PLUGIN WORKLOAD: alloclab's instructions per op for one cell
framework() {
	bench_run "$out/$1.json" --no-check --measure instructions -p "$1" -w "$2" -t 1 -n 1 -v 1 --warmups 0
	bench_value "$out/$1.json" instructions_per_op %.2f
}

printf '%-10s %-8s %12s %12s %8s %14s\n' allocator loop standalone alloclab ratio "harness share"
for exe in "$build"/benchmarks/standalone/churn-standalone-*; do
	[ -f "$exe" ] && [ -x "$exe" ] || continue
	name=${exe##*churn-standalone-}
	s=$(standalone "$exe" "$ops" "$ops")
	f=$(framework "$name" "churn:ops=$ops")
	printf '%-10s %-8s %12s %12s %8.3f\n' "$name" churn "$s" "$f" "$(bench_calc "$f / $s")"
	s=$(standalone "$build/benchmarks/standalone/unicode-standalone-$name" $((2 * words * rounds)) "$words" "$chars" "$rounds")
	f=$(framework "$name" "unicode:variant=${chars}chars,words=$words,rounds=$rounds")
	printf '%-10s %-8s %12s %12s %8.3f %13.1f%%\n' "$name" unicode "$s" "$f" "$(bench_calc "$f / $s")" \
		"$(bench_calc "100 * ($f - $s) / $f")"
done
