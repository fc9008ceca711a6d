#!/usr/bin/env bash
# How `alloclab report` grows with a history's commits: stores of 500,
# 1,000, 2,000 and 4,000 commits, each with four change points, made
# without building anything (tests/programs/synthetic_history.c, from one
# instructions step of the history tests' size-class allocator); the wall
# and CPU seconds of the report of each, and its pages' size. Pages that
# compare every commit with every other grow with the square of the
# commits; these should grow with the commits.
#   benchmarks/many-commits.sh [BUILD] [OUT] [COMMITS...]
set -euo pipefail
. "$(dirname "$0")/lib.sh"
bench_args "[BUILD] [OUT] [COMMITS...]" "$@"
shift $(($# < 2 ? $# : 2))
sizes=("$@")
if [ ${#sizes[@]} -eq 0 ]; then sizes=(500 1000 2000 4000); fi
synthetic=$build/tests/synthetic_history
[ -x "$synthetic" ] || bench_fail "no $synthetic (ninja -C $build tests/synthetic_history)"

# The template: one step of an instructions ab between two copies of one
# build, as history keeps each step.
t=$out/template
if [ ! -f "$t/ab/instructions.json" ]; then
	rm -rf "$t" && mkdir -p "$t"
	cp "$SOURCE_DIR/tests/fixtures/history/plugin.c" "$t/"
	printf '#define EXTRA_WORK 0\n#define SLACK_PERCENT 0\n' >"$t/config.h"
	cc -O2 -shared -fPIC -I"$SOURCE_DIR/framework/include" "$t/plugin.c" -o "$t/base.so"
	cp "$t/base.so" "$t/head.so"
	(cd "$t" && "$alloclab" ab base.so head.so --metrics instructions -w churn:ops=2000 -o ab >/dev/null)
fi

printf '%8s %16s %10s\n' commits "report s (cpu)" "pages KiB"
for n in "${sizes[@]}"; do
	case "$n" in '' | *[!0-9]*) bench_fail "COMMITS '$n' is not a number ($usage)" ;; esac
	db=$out/h-$n.db
	rm -f "$db" && rm -rf "$out/site-$n"
	"$synthetic" "$t/ab/instructions.json" "$db" "$n" $((n / 4)) $((n * 3 / 5)) $((n * 3 / 5 + 1)) $((n * 19 / 20))
	/usr/bin/time -o "$out/last-time.txt" -f '%e %U %S' "$alloclab" report "$db" -o "$out/site-$n" >/dev/null
	read -r wall user sys <"$out/last-time.txt"
	printf '%8s %16s %10s\n' "$n" "$(printf '%.1f (%.1f)' "$wall" "$(bench_calc "$user + $sys")")" \
		"$(du -sk "$out/site-$n" | cut -f1)"
done
