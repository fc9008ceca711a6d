#!/usr/bin/env bash
# Real programs under plugins (README, "Real programs"). A benchmark that
# prints figures, not a test:
#   1. the preload path's own cost: each bundled program under the jemalloc
#      and mimalloc plugins (liballoclab-preload.so) against the same
#      allocators preloaded natively (Debian's libjemalloc / libmimalloc),
#      interleaved in one run; mean wall time, alloclab / native;
#   2. the ranking of the bundled allocators on the programs.
#   analysis/preload-benchmarks.sh BUILD_DIR OUTDIR [PROCESSES]
set -euo pipefail
build=${1:?usage: preload-benchmarks.sh BUILD_DIR OUTDIR [PROCESSES]}
out=${2:?usage: preload-benchmarks.sh BUILD_DIR OUTDIR [PROCESSES]}
n=${3:-5}
A="$build/cli/alloclab"
lib=/usr/lib/x86_64-linux-gnu
mkdir -p "$out"
cd "$out"

echo "== 1. the preload path against native LD_PRELOAD (mean wall time of $n runs)"
"$A" run -q --no-check -t 1 -n "$n" -v 1 --warmups 0 -p jemalloc -p mimalloc \
	-w exec -w "exec:native=$lib/libjemalloc.so.2" -w "exec:native=$lib/libmimalloc.so.2" -o overhead.json
"$A" show --format json overhead.json | /usr/bin/python3 -c '
import json, sys
d = json.load(sys.stdin)
def label(c):
    p = c["plugin"]
    return d["plugins"][p]["label"] if isinstance(p, int) else p
mean = {}
for c in d["cells"]:
    if c.get("status", "ok") not in ("ok", None) or not c.get("runs"):
        continue
    walls = [v["thread_reports"][0]["wall_s"] for r in c["runs"] for v in r["values"]]
    prm = c["params"]
    mean[(label(c), prm["program"], prm.get("native", ""))] = sum(walls) / len(walls)
print("%-8s %-9s %10s %10s %8s" % ("program", "allocator", "native s", "alloclab s", "ratio"))
for (plug, prog, native), m in sorted(mean.items()):
    if native:
        continue
    ref = mean.get(("jemalloc", prog, "%s/lib%s.so.2" % ("'$lib'", plug)))
    if ref:
        print("%-8s %-9s %10.3f %10.3f %8.3f" % (prog, plug, ref, m, m / ref))
'

echo
echo "== 2. the allocators on real programs"
"$A" run -q --no-check -t 1 -n "$n" -v 1 --warmups 0 -p system -p jemalloc -p mimalloc -p tcmalloc -p tbbmalloc \
	-p cpython -p obmalloc-radix -p obmalloc-bigpool -w exec -o programs.json
"$A" compare programs.json --plugins system,jemalloc,mimalloc,tcmalloc,tbbmalloc,cpython,obmalloc-radix,obmalloc-bigpool \
	--format markdown
