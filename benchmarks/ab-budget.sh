#!/usr/bin/env bash
# What `alloclab ab` resolves in a CI job's budget (docs/guides/plugin-history.md):
# the whole default ab (instructions, time and memory on its default suite)
# of two builds of one small size-class allocator (tests/fixtures/history/),
# for an A/A (one build twice) and for a change of EXTRA_WORK bookkeeping
# counters in every malloc, in each time design, with the processes a row
# sized so that one ab takes BUDGET_S of wall time. For each time row: the
# ratio, its 95% interval and half-width (the smallest change that design
# resolves in the budget), the processes, the wall time, and the load
# average before and after (run two busy loops beside it for a busy
# machine: `sh -c 'while :; do :; done' &` twice).
# A benchmark that prints figures, not a test.
#   benchmarks/ab-budget.sh BUILD OUT [BUDGET_S] [EXTRA_WORK]
# BUDGET_S (default 300) is one ab's wall time; DESIGNS="values slices:100000"
# (default: values, slices:2000, slices:100000) and PAIRS="A/A change"
# (default both) choose what is measured; TIME_STEP=store makes the change
# EXTRA_WORK stores that nothing reads in every malloc instead of counters
# (each one instruction an operation, as a counter is, but no read).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
bench_args "BUILD OUT [BUDGET_S] [EXTRA_WORK]" "$@"
budget=${3:-300}
extra=${4:-1}
src=$SOURCE_DIR

make_build() { # name extra
	mkdir -p "$out/$1-src"
	cp "$src/tests/fixtures/history/plugin.c" "$out/$1-src/"
	if [ "${TIME_STEP:-counter}" = store ]; then
		printf '#define EXTRA_WORK 0\n#define EXTRA_STORES %s\n#define SLACK_PERCENT 0\n' "$2" >"$out/$1-src/config.h"
	else
		printf '#define EXTRA_WORK %s\n#define SLACK_PERCENT 0\n' "$2" >"$out/$1-src/config.h"
	fi
	cc -O2 -shared -fPIC -I"$src/framework/include" "$out/$1-src/plugin.c" -o "$out/$1.so"
}
make_build base 0
make_build twin 0
make_build head "$extra"

load() { cut -d' ' -f1 /proc/loadavg; }

# One default ab: its wall time on stdout, its JSON in $out/NAME.json.
ab_run() { # name design n base head
	local dir="$out/$1" t0 t1
	rm -rf "$dir"
	t0=$(date +%s.%N)
	"$alloclab" ab "$out/$4.so" "$out/$5.so" --design "$2" -n "$3" -f json -o "$dir" >"$dir.json" 2>"$dir.err" ||
		{ cat "$dir.err" >&2; return 1; }
	t1=$(date +%s.%N)
	/usr/bin/python3.11 -c "print(f'{$t1 - $t0:.1f}')"
}

printf '%-15s %-6s %-34s %8s  %-17s %7s %5s %7s %s\n' design pair row ratio "95% interval" "+-%" n seconds "load, verdict"
for design in ${DESIGNS:-values slices:2000 slices:100000}; do
	# Two short runs size the budget's: what an ab costs besides the
	# paired processes (builds copied, instructions, memory), and what a
	# process more costs.
	tag=${design//:/-}
	t6=$(ab_run "calibrate-$tag-6" "$design" 6 base twin)
	t18=$(ab_run "calibrate-$tag-18" "$design" 18 base twin)
	n=$(/usr/bin/python3.11 -c "
per = max(($t18 - $t6) / 12, 0.01)
fixed = max($t6 - 6 * per, 0)
print(min(10000, max(6, int(($budget - fixed) / per))))")
	for pair in ${PAIRS:-A/A change}; do
		case $pair in
		A/A) a=base b=twin ;;
		change) a=base b=head ;;
		*) bench_fail "PAIRS takes A/A and change, not '$pair'" ;;
		esac
		before=$(load)
		secs=$(ab_run "${pair//\//}-$tag" "$design" "$n" "$a" "$b")
		after=$(load)
		/usr/bin/python3.11 - "$out/${pair//\//}-$tag.json" "$design" "$pair" "$secs" "$before" "$after" <<'PY'
import json, math, sys
path, design, pair, secs, before, after = sys.argv[1:]
def half(lo, hi):
    return (math.sqrt(hi / lo) - 1) * 100
for row in json.load(open(path))["rows"]:
    if row["metric"] != "time" or "status" in row:
        continue
    # The verdict's figures (whether), and where measured apart the whole
    # values' (how much) on a line of their own.
    lo, hi = row["interval"]
    print(f'{design:<15} {pair:<6} {row["row"][:34]:<34} {row["ratio"]:8.4f}  {lo:.4f} .. {hi:.4f} '
          f'{half(lo, hi):6.2f}% {row["n"]:5d} {float(secs):7.0f} {before}->{after}  {row["verdict"]}')
    if row.get("how_much"):
        size = row["how_much"]
        lo, hi = size["interval"]
        print(f'{"  how much":<15} {pair:<6} {row["row"][:34]:<34} {size["ratio"]:8.4f}  {lo:.4f} .. {hi:.4f} '
              f'{half(lo, hi):6.2f}%   (whole values, the same processes\' run)')
PY
	done
done
