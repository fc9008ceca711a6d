#!/usr/bin/env bash
# Do alloclab's multithreaded workloads rank allocators as the original
# programs do? (docs/measurements/multithreaded.md). A benchmark that prints
# figures, not a test, for a user who has the originals built (mimalloc-bench's
# xmalloc-test, larson, cache-thrash and cache-scratch; build the C++ ones with
# -fno-allocation-dce, or GCC 12 at -O3 removes their new/delete pairs):
#   analysis/mt-originals.sh BUILD_DIR ORIGINALS_DIR OUTDIR [RUNS]
# Each original runs RUNS times under `alloclab exec -p ALLOCATOR` in
# mimalloc-bench's configuration at 2 threads (xmalloc-test -w 1 -t 5 -s 64;
# larson 5 8 1000 5000 100 4141 2; cache-thrash and cache-scratch 2 1000 1
# 2000000 2), alloclab's workload at -t 2 with RUNS
# processes; then every pair of allocators that differs by 3% or more on
# both sides is counted as agreeing or not.
set -euo pipefail
build=${1:?usage: mt-originals.sh BUILD_DIR ORIGINALS_DIR OUTDIR [RUNS]}
orig=$(cd "${2:?usage: mt-originals.sh BUILD_DIR ORIGINALS_DIR OUTDIR [RUNS]}" && pwd)
out=${3:?usage: mt-originals.sh BUILD_DIR ORIGINALS_DIR OUTDIR [RUNS]}
runs=${4:-3}
A="$(cd "$build" && pwd)/cli/alloclab"
plugins=(system jemalloc mimalloc tcmalloc tbbmalloc obmalloc-radix:gil=1)
mkdir -p "$out"
cd "$out"

: >originals.tsv
for p in "${plugins[@]}"; do
	for ((r = 0; r < runs; r++)); do
		if [ -x "$orig/xmalloc-test" ]; then
			v=$("$A" exec --no-check -p "$p" -- "$orig/xmalloc-test" -w 1 -t 5 -s 64 2>/dev/null |
				sed -n 's/.*free\/sec: \([0-9.]*\) M.*/\1/p')
			printf 'xmalloc\t%s\t%s\n' "$p" "$v" >>originals.tsv
		fi
		for cache in cache-thrash cache-scratch; do
			if [ -x "$orig/$cache" ]; then
				v=$("$A" exec --no-check -p "$p" -- "$orig/$cache" 2 1000 1 2000000 2 2>/dev/null |
					sed -n 's/.*Time elapsed = *\([0-9.]*\).*/\1/p')
				# Higher is better in the table: rounds a second.
				printf '%s\t%s\t%s\n' "$cache" "$p" "$(awk -v t="$v" 'BEGIN { if (t > 0) print 1 / t }')" >>originals.tsv
			fi
		done
		if [ -x "$orig/larson" ]; then
			v=$("$A" exec --no-check -p "$p" -- "$orig/larson" 5 8 1000 5000 100 4141 2 2>/dev/null |
				sed -n 's/.*Throughput = *\([0-9]*\) operations.*/\1/p')
			printf 'larson\t%s\t%s\n' "$p" "$v" >>originals.tsv
		fi
	done
done
args=()
for p in "${plugins[@]}"; do args+=(-p "$p"); done
"$A" run -q --no-check "${args[@]}" -w xmalloc -w larson -w cache-thrash -w cache-scratch -t 2 -n "$runs" -v 3 \
	-o alloclab.json
"$A" show --format json alloclab.json | /usr/bin/python3 -c '
import json, statistics, sys, itertools
doc = json.load(sys.stdin)
ours = {}
for c in doc["cells"]:
    p = c["plugin"]
    label = doc["plugins"][p]["label"] if isinstance(p, int) else p
    vals = [v["ns_per_op"] for r in c.get("runs", []) for v in r["values"] if "ns_per_op" in v]
    if vals:
        ours[(c["workload"], label)] = 1.0 / statistics.median(vals)   # higher is better, as the originals
theirs = {}
for line in open("originals.tsv"):
    w, p, v = line.rstrip("\n").split("\t")
    if v:
        theirs.setdefault((w, p), []).append(float(v))
theirs = {k: statistics.median(v) for k, v in theirs.items()}
for w in sorted({k[0] for k in theirs}):
    names = [p for (ww, p) in theirs if ww == w and (w, p) in ours]
    agree = total = 0
    print("%s: original %s" % (w, ", ".join("%s %.3g" % (p, theirs[(w, p)]) for p in sorted(names, key=lambda p: -theirs[(w, p)]))))
    print("%s: alloclab %s" % (w, ", ".join(p for p in sorted(names, key=lambda p: -ours[(w, p)]))))
    for a, b in itertools.combinations(names, 2):
        ra, rb = theirs[(w, a)] / theirs[(w, b)], ours[(w, a)] / ours[(w, b)]
        if abs(ra - 1) < 0.03 or abs(rb - 1) < 0.03:
            continue
        total += 1
        agree += (ra > 1) == (rb > 1)
        if (ra > 1) != (rb > 1):
            print("  differ: %s / %s: original %.2f, alloclab %.2f" % (a, b, ra, rb))
    print("%s: %d of %d pairs that differ by 3%% or more on both sides rank alike" % (w, agree, total))
'
