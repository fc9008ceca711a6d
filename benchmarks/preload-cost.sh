#!/usr/bin/env bash
# The preload path's cost against native LD_PRELOAD (docs/measurements/preload-cost.md).
# A benchmark that prints figures, not a test:
#   1. instructions (callgrind, whole program) of alloclab's allocation-heavy
#      programs under `alloclab exec -p ALLOCATOR` and under Debian's own
#      library preloaded natively, for jemalloc, mimalloc and tcmalloc;
#   2. CPU and wall time of the same, interleaved in one run (medians).
#   benchmarks/preload-cost.sh BUILD OUT [PROCESSES]
set -euo pipefail
. "$(dirname "$0")/lib.sh"
bench_args "BUILD OUT [PROCESSES]" "$@"
n=${3:-5}
lib=/usr/lib/x86_64-linux-gnu
progs="$build/workloads"
cd "$out"
declare -A native=([jemalloc]=$lib/libjemalloc.so.2 [mimalloc]=$lib/libmimalloc.so.2 [tcmalloc]=$lib/libtcmalloc_minimal.so.4)

# Instructions of one run under callgrind, with LD_PRELOAD as given.
count() {
	local preload=$1 plugin=$2
	shift 2
	env LD_PRELOAD="$preload" ${plugin:+ALLOCLAB_PRELOAD_PLUGIN=$plugin} \
		GLIBC_TUNABLES=glibc.rtld.optional_static_tls=16384 \
		valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" 2>&1 >/dev/null |
		sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}

echo "== 1. instructions, the whole program (callgrind), alloclab exec against native LD_PRELOAD"
printf '%-22s %-9s %14s %14s %7s %12s\n' program allocator native alloclab ratio "extra/call"
for prog in "alloc-loop 2" "bigint 500" "alloc-threads 2 1"; do
	calls=$(case "$prog" in "alloc-loop 2") echo 4000000 ;; "bigint 500") echo 1800000 ;; *) echo 4000000 ;; esac)
	for alloc in jemalloc mimalloc tcmalloc; do
		# shellcheck disable=SC2086
		nat=$(count "${native[$alloc]}" "" $progs/$prog)
		# shellcheck disable=SC2086
		al=$(count "$build/preload/liballoclab-preload.so" "$alloc" $progs/$prog)
		awk -v p="$prog" -v a="$alloc" -v n="$nat" -v m="$al" -v c="$calls" \
			'BEGIN { printf "%-22s %-9s %14d %14d %7.4f %12.2f\n", p, a, n, m, m / n, (m - n) / c }'
	done
done
echo "(extra/call: the difference divided by the program's malloc and free calls)"

echo
echo "== 2. CPU and wall time, medians of $n runs each, interleaved"
bench_run preload-cost.json --no-check -t 1 -n "$n" -v 1 --warmups 0 -p jemalloc -p mimalloc -p tcmalloc \
	-w exec:program=heavy -w "exec:program=heavy,native=${native[jemalloc]}" \
	-w "exec:program=heavy,native=${native[mimalloc]}" -w "exec:program=heavy,native=${native[tcmalloc]}"
bench_show preload-cost.json | bench_python -c '
import json, sys
from alloclab_json import exec_runs, median_cpu_s as cpu, median_wall_s as wall
libs = {"jemalloc": "libjemalloc.so.2", "mimalloc": "libmimalloc.so.2", "tcmalloc": "libtcmalloc_minimal.so.4"}
runs = {(plug, prm["program"], prm.get("native", "")): reps for plug, prm, reps in exec_runs(json.load(sys.stdin))}
print("%-14s %-9s %11s %11s %7s %11s %11s %7s" % ("program", "allocator", "native CPU", "alloclab", "ratio",
                                                "native wall", "alloclab", "ratio"))
for (plug, prog, nat), reps in sorted(runs.items()):
    if nat:
        continue
    ref = [v for (pl, pr, na), v in runs.items() if pr == prog and na.endswith(libs[plug])]
    if not ref:
        continue
    ref = ref[0]
    print("%-14s %-9s %11.3f %11.3f %7.3f %11.3f %11.3f %7.3f" % (prog, plug, cpu(ref), cpu(reps), cpu(reps) / cpu(ref),
                                                                wall(ref), wall(reps), wall(reps) / wall(ref)))
'
