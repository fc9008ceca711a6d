#!/usr/bin/env bash
# What --latency costs (docs/guides/latency.md). A benchmark that prints figures, not a test:
#   1. with --latency off, instructions per op of churn (callgrind, timed region only)
#      by this build and by a build of REF, a commit from before --latency existed,
#      and their difference in instructions per value: a difference of a few
#      instructions a value is the harness's code around the loop as the compiler
#      laid it out, not an instruction in the loop (each build is counted twice: an
#      allocator whose own count varies from run to run shows it);
#   2. time per op of churn without --latency, with it on every call, and with
#      --latency-every 1000 (the wrapper's cost on the calls it does not time),
#      interleaved (medians): the cost of timing one call in ns and in cycles,
#      beside the empty measurement that is subtracted from each call's time.
#   benchmarks/latency-cost.sh BUILD OUT [REF] [PROCESSES]
# REF defaults to 289a740, the last commit before --latency.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
bench_args "BUILD OUT [REF] [PROCESSES]" "$@"
ref=${3:-289a740}
n=${4:-5}
cd "$out"
plugins=(system jemalloc mimalloc)
churn=churn:ops=200000

# Instructions per op of churn at one thread, by one build (alloclab=EXE
# before the call for another's); extra args appended.
instructions() {
	local plugin=$1
	shift
	bench_run "$out/i.json" --no-check -t 1 -n 1 -v 1 --warmups 1 -p "$plugin" -w "$churn" --measure instructions "$@"
	bench_value "$out/i.json" instructions_per_op
}

echo "== 1. --latency off: instructions per op of $churn, this build against $ref"
if [ ! -x "$out/ref-build/cli/alloclab" ]; then
	: >"$out/ref-build.log"
	bench_checkout "$ref" "$out/ref-src"
	bench_configure "$out/ref-build" "$out/ref-src" "$out/ref-build.log" -Dbuildtype=release
	bench_ninja "$out/ref-build" "$out/ref-build.log" cli/alloclab plugins/system.so plugins/jemalloc.so plugins/mimalloc.so
fi
printf '%-10s %25s %25s %16s\n' plugin "$ref (twice)" "this build (twice)" "difference"
for p in "${plugins[@]}"; do
	old1=$(alloclab=$out/ref-build/cli/alloclab instructions "$p")
	old2=$(alloclab=$out/ref-build/cli/alloclab instructions "$p")
	new1=$(instructions "$p")
	new2=$(instructions "$p")
	if [ "$old1" = "$old2" ] && [ "$new1" = "$new2" ]; then
		same=$(awk -v a="$old1" -v b="$new1" 'BEGIN { printf "%+.0f a value", (b - a) * 200000 }')
	else
		same="varies by itself"
	fi
	printf '%-10s %12s %12s %12s %12s %16s\n' "$p" "$old1" "$old2" "$new1" "$new2" "$same"
done

echo
echo "== 2. time per op of churn:ops=2000000: off, --latency, --latency-every 1000, off again; medians of $n processes"
args=()
for p in "${plugins[@]}"; do args+=(-p "$p"); done
run() { bench_run "$out/$1.json" --no-check -t 1 -n "$n" -v 3 "${args[@]}" -w churn:ops=2000000 "${@:2}"; }
run off
run on --latency
run sparse --latency-every 1000
run off2
mhz=$(awk -F: '/^cpu MHz/ { print $2; exit }' /proc/cpuinfo)
for f in off on sparse off2; do bench_show "$out/$f.json" >"$out/$f.show.json"; done
bench_python - "$out" "$mhz" <<'EOF'
import statistics, sys
from alloclab_json import label, load, medians
out, mhz = sys.argv[1], float(sys.argv[2])
def medians_of(name):
    d = load(f"{out}/{name}.show.json")
    over = [v["latency"]["overhead_ns"] for c in d["cells"] for r in c["runs"] for v in r["values"] if "latency" in v]
    return medians(d, lambda c: label(d, c)), over
off, _ = medians_of("off")
off2, _ = medians_of("off2")
on, over = medians_of("on")
sparse, _ = medians_of("sparse")
cyc = mhz / 1000
print(f"{'plugin':10} {'off':>8} {'every':>8} {'1/1000':>8} {'timed call':>18} {'untimed call':>18}")
for p in off:
    base = (off[p] + off2[p]) / 2
    timed = (on[p] - base) / 2      # an op of churn is two calls
    untimed = (sparse[p] - base) / 2
    print(f"{p:10} {base:8.2f} {on[p]:8.2f} {sparse[p]:8.2f} {timed:7.1f} ns {timed * cyc:5.0f} cyc"
          f" {untimed:7.2f} ns {untimed * cyc:5.1f} cyc")
e = statistics.median(over)
print(f"(ns per op; off: the mean of the runs before and after; cycles of the {mhz:.0f} MHz time-stamp counter;"
      f" the empty measurement subtracted from each timed call: {e:.1f} ns = {e * cyc:.0f} cycles)")
EOF
