#!/usr/bin/env bash
# Traces, measured (docs/measurements/replays.md). A benchmark that
# prints figures, not a test:
#   1. trace size per million events and recording's cost, per workload
#      (one value recorded, no warm-up);
#   2. replay throughput per allocator at 1, 2 and 4 threads (the richards
#      trace's steady state);
#   3. the ranking of allocators on four Python benchmarks, live and
#      replayed (the shipped traces' steady states);
#   4. the radix-tree vs big-pool comparison (the 2020 python-dev table's
#      configurations) on replays of the Python suite, in time and in
#      instructions, to set beside the live comparison: each benchmark
#      recorded whole (one value of three iterations) and replayed whole,
#      start-up and teardown included, as the page measured it.
#   benchmarks/replay-benchmarks.sh BUILD OUT [PROCESSES]
# SECTIONS=123 runs those alone (default: all four).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
bench_args "BUILD OUT [PROCESSES]" "$@"
n=${3:-10}
sections=${SECTIONS:-1234}
cd "$out"

if [[ $sections == *1* ]]; then
echo "== 1. trace size and recording's cost (one process, one value; wall time of the whole command)"
printf '%-52s %10s %14s %10s %10s %8s\n' workload events "bytes/event" "run s" "record s" slowdown
for spec in "churn:ops=1000000" "unicode:rounds=5" "python:bench=richards,loops=20,profile=no,hash_seed=1" \
	"python:bench=json_dumps,loops=20,profile=no,hash_seed=1" "xmalloc -t 2" "larson -t 2"; do
	w=${spec%% *}
	threads=1
	[[ $spec == *"-t 2" ]] && threads=2
	rm -f size.trace
	run_s=$(bench_seconds bench_run size.json --no-check -p system -w "$w" -t "$threads" -n 1 -v 1 --warmups 0)
	rec_s=$(bench_seconds "$alloclab" record -p system -w "$w" -t "$threads" -W 0 -v 1 -o size.trace)
	line=$("$alloclab" record -p system -w "$w" -t "$threads" -W 0 -v 1 -o size.trace)
	events=$(echo "$line" | sed -E 's/recorded ([0-9]+) events.*/\1/')
	bpe=$(echo "$line" | sed -E 's/.*\(([0-9.]+) bytes per event\)/\1/')
	printf '%-52s %10s %14s %10.2f %10.2f %8.2f\n' "$w t=$threads" "$events" "$bpe" "$run_s" "$rec_s" \
		"$(bench_calc "$rec_s / $run_s")"
done
fi

if [[ $sections == *2* ]]; then
echo
echo "== 2. replay throughput (richards.trace's steady state; a trace of one thread runs one copy per thread)"
bench_run throughput.json --no-check -p system -p jemalloc -p mimalloc -p tcmalloc -p tbbmalloc \
	-p obmalloc-radix:mode=per-thread -w trace:file=richards.trace -t 1,2,4 -n "$n" -v 3
"$alloclab" show throughput.json | grep -E '^[a-z].* trace ' | awk '{ print $1, "t=" $3, $4 " ns/event", $6 " M events/s", $9 " faults/kop" }'
fi

if [[ $sections == *3* ]]; then
echo
echo "== 3. the ranking, live and replayed (richards, json_dumps, nbody, deltablue)"
plugins=(-p system -p jemalloc -p mimalloc -p tcmalloc -p obmalloc-radix:mode=none)
bench_run live.json --no-check "${plugins[@]}" -w python:bench=richards+json_dumps+nbody+deltablue,hash_seed=1 -t 1 \
	-n "$n"
traces=()
for b in richards json_dumps nbody deltablue; do traces+=(-w "trace:file=$b.trace"); done
bench_run replayed.json --no-check "${plugins[@]}" "${traces[@]}" -t 1 -n "$n"
for f in live replayed; do
	echo "-- $f (against system)"
	"$alloclab" compare "$f.json" --plugins system,jemalloc,mimalloc,tcmalloc,obmalloc-radix:mode=none --format markdown
done
fi

[[ $sections == *4* ]] || exit 0
echo
echo "== 4. radix tree vs big pools on replays of the Python suite"
benches=$("$alloclab" list | sed -n 's/.*bundled benchmark(s).*(all|quick|none|\([^)]*\)).*/\1/p' | tr '|' ' ')
traces=()
for b in $benches; do
	case $b in sympy | startup) continue ;; esac
	if [ ! -s "py-$b.trace" ]; then
		"$alloclab" record -p system -w "python:bench=$b,loops=3,profile=no,hash_seed=1" -W 0 -v 1 -o "py-$b.trace" \
			>/dev/null ||
			{ echo "  ($b: not recorded, skipped)"; continue; }
	fi
	traces+=(-w "trace:file=py-$b.trace,part=whole")
done
table=(-p obmalloc-bigpool:preset=table-64m-16k,mode=none,as=big-pool
	-p obmalloc-radix:preset=table-64m-16k,mode=none,as=radix
	-p obmalloc-radix:preset=table-16m-4k,mode=none,as=radix-4k)
bench_run table-time.json --no-check "${table[@]}" "${traces[@]}" -t 1 -n "$n" -v 3
bench_run table-instructions.json --no-check --measure instructions "${table[@]}" "${traces[@]}" -t 1 -n 1 -v 1
for f in table-time table-instructions; do
	for pair in big-pool,radix radix,radix-4k; do
		echo "-- $f: $pair"
		"$alloclab" compare "$f.json" --plugins "$pair" --format markdown
	done
done
