#!/usr/bin/env bash
# Real programs under plugins (docs/measurements/real-programs.md). A benchmark that
# prints figures, not a test:
#   1. the preload path's own cost: each bundled program under the jemalloc
#      and mimalloc plugins (liballoclab-preload.so) against the same
#      allocators preloaded natively (Debian's libjemalloc / libmimalloc),
#      interleaved in one run; median CPU and wall time, alloclab / native;
#   2. the ranking of the bundled allocators on the programs.
#   benchmarks/preload-benchmarks.sh BUILD OUT [PROCESSES]
set -euo pipefail
. "$(dirname "$0")/lib.sh"
bench_args "BUILD OUT [PROCESSES]" "$@"
n=${3:-5}
lib=/usr/lib/x86_64-linux-gnu
cd "$out"

echo "== 1. the preload path against native LD_PRELOAD (medians of $n runs, CPU and wall seconds)"
bench_run overhead.json --no-check -t 1 -n "$n" -v 1 --warmups 0 -p jemalloc -p mimalloc \
	-w exec -w "exec:native=$lib/libjemalloc.so.2" -w "exec:native=$lib/libmimalloc.so.2"
bench_show overhead.json | bench_python -c '
import json, sys
from alloclab_json import exec_runs, median_cpu_s as cpu, median_wall_s as wall
runs = {(plug, prm["program"], prm.get("native", "")): reps for plug, prm, reps in exec_runs(json.load(sys.stdin))}
print("%-8s %-9s %11s %11s %8s %11s %11s %8s" % ("program", "allocator", "native CPU", "alloclab", "ratio",
                                                 "native wall", "alloclab", "ratio"))
for (plug, prog, native), reps in sorted(runs.items()):
    ref = runs.get(("jemalloc", prog, "'$lib'/lib%s.so.2" % plug))
    if native or not ref:
        continue
    print("%-8s %-9s %11.3f %11.3f %8.3f %11.3f %11.3f %8.3f" % (prog, plug, cpu(ref), cpu(reps), cpu(reps) / cpu(ref),
                                                                wall(ref), wall(reps), wall(reps) / wall(ref)))
'

echo
echo "== 2. the allocators on real programs"
bench_run programs.json --no-check -t 1 -n "$n" -v 1 --warmups 0 -p system -p jemalloc -p mimalloc -p tcmalloc \
	-p tbbmalloc -p cpython -p obmalloc-radix -p obmalloc-bigpool -w exec
"$alloclab" compare programs.json --plugins system,jemalloc,mimalloc,tcmalloc,tbbmalloc,cpython,obmalloc-radix,obmalloc-bigpool \
	--format markdown
echo "-- median CPU seconds (user + sys) per program"
bench_show programs.json | bench_python -c '
import json, sys
from alloclab_json import exec_runs, median_cpu_s
table = {}
for plug, prm, reps in exec_runs(json.load(sys.stdin)):
    table.setdefault(prm["program"], {})[plug] = median_cpu_s(reps)
for prog, row in table.items():
    print("%-8s " % prog + "  ".join("%s %.3f" % kv for kv in sorted(row.items(), key=lambda kv: kv[1])))
'

