#!/usr/bin/env bash
# Real programs under plugins (docs/measurements/real-programs.md). A benchmark that
# prints figures, not a test:
#   1. the preload path's own cost: each bundled program under the jemalloc
#      and mimalloc plugins (liballoclab-preload.so) against the same
#      allocators preloaded natively (Debian's libjemalloc / libmimalloc),
#      interleaved in one run; median CPU and wall time, alloclab / native;
#   2. the ranking of the bundled allocators on the programs.
#   benchmarks/preload-benchmarks.sh BUILD_DIR OUTDIR [PROCESSES]
set -euo pipefail
build=$(cd "${1:?usage: preload-benchmarks.sh BUILD_DIR OUTDIR [PROCESSES]}" && pwd)
out=${2:?usage: preload-benchmarks.sh BUILD_DIR OUTDIR [PROCESSES]}
n=${3:-5}
A="$build/cli/alloclab"
lib=/usr/lib/x86_64-linux-gnu
mkdir -p "$out"
cd "$out"

echo "== 1. the preload path against native LD_PRELOAD (medians of $n runs, CPU and wall seconds)"
"$A" run -q --no-check -t 1 -n "$n" -v 1 --warmups 0 -p jemalloc -p mimalloc \
	-w exec -w "exec:native=$lib/libjemalloc.so.2" -w "exec:native=$lib/libmimalloc.so.2" -o overhead.json
"$A" show --format json overhead.json | /usr/bin/python3 -c '
import json, statistics, sys
d = json.load(sys.stdin)
def label(c):
    p = c["plugin"]
    return d["plugins"][p]["label"] if isinstance(p, int) else p
runs = {}
for c in d["cells"]:
    reports = [v["thread_reports"][0] for r in c.get("runs", []) for v in r["values"] if v.get("thread_reports")]
    if reports:
        prm = c["params"]
        runs[(label(c), prm["program"], prm.get("native", ""))] = reports
print("%-8s %-9s %11s %11s %8s %11s %11s %8s" % ("program", "allocator", "native CPU", "alloclab", "ratio",
                                                 "native wall", "alloclab", "ratio"))
for (plug, prog, native), reps in sorted(runs.items()):
    ref = runs.get(("jemalloc", prog, "'$lib'/lib%s.so.2" % plug))
    if native or not ref:
        continue
    cpu = lambda rs: statistics.median(r["user_s"] + r["sys_s"] for r in rs)
    wall = lambda rs: statistics.median(r["wall_s"] for r in rs)
    print("%-8s %-9s %11.3f %11.3f %8.3f %11.3f %11.3f %8.3f" % (prog, plug, cpu(ref), cpu(reps), cpu(reps) / cpu(ref),
                                                                wall(ref), wall(reps), wall(reps) / wall(ref)))
'

echo
echo "== 2. the allocators on real programs"
"$A" run -q --no-check -t 1 -n "$n" -v 1 --warmups 0 -p system -p jemalloc -p mimalloc -p tcmalloc -p tbbmalloc \
	-p cpython -p obmalloc-radix -p obmalloc-bigpool -w exec -o programs.json
"$A" compare programs.json --plugins system,jemalloc,mimalloc,tcmalloc,tbbmalloc,cpython,obmalloc-radix,obmalloc-bigpool \
	--format markdown
echo "-- median CPU seconds (user + sys) per program"
"$A" show --format json programs.json | /usr/bin/python3 -c '
import json, statistics, sys
d = json.load(sys.stdin)
table = {}
for c in d["cells"]:
    p = c["plugin"]
    plug = d["plugins"][p]["label"] if isinstance(p, int) else p
    reps = [v["thread_reports"][0] for r in c.get("runs", []) for v in r["values"] if v.get("thread_reports")]
    if reps:
        table.setdefault(c["params"]["program"], {})[plug] = statistics.median(r["user_s"] + r["sys_s"] for r in reps)
for prog, row in table.items():
    print("%-8s " % prog + "  ".join("%s %.3f" % kv for kv in sorted(row.items(), key=lambda kv: kv[1])))
'

