#!/usr/bin/env bash
# Which design ab should measure time in (docs/guides/plugin-history.md):
# two builds of one small size-class allocator (tests/fixtures/history/,
# the second with EXTRA_WORK bookkeeping counters in every malloc) and an
# A/A (the first build twice), measured by `alloclab ab --metrics time` in
# each design, every design given the same budget of wall time:
#   values     the two builds side by side in each worker, whole values
#              alternated (ab's default)
#   slices     side by side, alternated every 2,000 operations, and the same
#              with 2,000 untimed operations before each slice (its caches
#              refilled)
#   processes  each build in processes of its own (what tools that cannot
#              pair do)
# For each: the ratio, its 95% interval (its half-width is the smallest
# change the design resolves in the budget), the processes it took, and
# the wall time. Whole values alternated are unbiased (each build runs
# whole values with its own state warm); a design whose ratio differs from
# theirs by more than the intervals allow is biased (slices shrink a
# change toward 1 when every slice starts cold).
# A benchmark that prints figures, not a test.
#   benchmarks/ab-designs.sh BUILD OUT [BUDGET_S] [EXTRA_WORK] [WORKLOAD]
# BUDGET_S (default 300) is the wall time of an A/A and a change together,
# each half of it; DESIGNS="values processes" measures only those.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
bench_args "BUILD OUT [BUDGET_S] [EXTRA_WORK] [WORKLOAD]" "$@"
budget=${3:-300}
extra=${4:-1}
workload=${5:-churn}
src=$SOURCE_DIR

make_build() { # name extra
	mkdir -p "$out/$1-src"
	cp "$src/tests/fixtures/history/plugin.c" "$out/$1-src/"
	printf '#define EXTRA_WORK %s\n#define SLACK_PERCENT 0\n' "$2" >"$out/$1-src/config.h"
	cc -O2 -shared -fPIC -I"$src/framework/include" "$out/$1-src/plugin.c" -o "$out/$1.so"
}
make_build base 0
make_build twin 0
make_build head "$extra"

# ab's time run for a design, n processes: ratio, interval, n, seconds.
measure() { # label design n base head
	local dir="$out/${1//\//}-$3" t0 t1
	rm -rf "$dir"
	t0=$(date +%s.%N)
	"$alloclab" ab "$out/$4.so" "$out/$5.so" --metrics time --design "$2" -n "$3" -v "${values:-5}" -w "$workload" -f json -o "$dir" \
		>"$dir.json" 2>"$dir.err" || { cat "$dir.err" >&2; return 1; }
	t1=$(date +%s.%N)
	/usr/bin/python3.11 - "$dir.json" "$t0" "$t1" <<'PY'
import json, sys
row = json.load(open(sys.argv[1]))["rows"][0]
lo, hi = row["interval"]
print(f'{row["ratio"]:.4f} {lo:.4f} {hi:.4f} {row["n"]} {float(sys.argv[3]) - float(sys.argv[2]):.0f}')
PY
}

printf '%-16s %-6s %8s  %-17s %7s %5s %3s %7s\n' design pair ratio "95% interval" "+-%" n v seconds
for design in ${DESIGNS:-values slices:2000 slices:2000:2000 processes}; do
	# The design's cost a process, from 6 processes, sizes the budget's run;
	# past run's 1,000 processes, each process takes more values.
	values=5
	read -r _ _ _ _ secs <<<"$(measure calibrate "$design" 6 base twin)"
	n=$(/usr/bin/python3.11 -c "print(max(6, int(($budget / 2) / max($secs, 1) * 6)))")
	if [ "$n" -gt 1000 ]; then
		values=$((5 * n / 1000))
		n=1000
	fi
	for pair in "A/A:base:twin" "change:base:head"; do
		IFS=: read -r label a b <<<"$pair"
		read -r ratio lo hi got secs <<<"$(measure "$label-${design//:/-}" "$design" "$n" "$a" "$b")"
		half=$(/usr/bin/python3.11 -c "import math; print(f'{(math.sqrt($hi / $lo) - 1) * 100:.2f}')")
		printf '%-16s %-6s %8s  %s .. %s %6s%% %5s %3s %7s\n' "$design" "$label" "$ratio" "$lo" "$hi" "$half" "$got" \
			"$values" "$secs"
	done
done
