#!/usr/bin/env bash
# The founding question in time (docs/measurements/radix-vs-bigpool.md):
# big-pool obmalloc (16 KiB pools, 64 MiB arenas: the 2020 python-dev
# table's base), the radix tree at the same sizes, the radix tree at
# CPython 3.11's own sizes (radix-py311), and CPython's own allocator
# (libpython's obmalloc), measured side by side in every worker process
# (paired slices) on churn, unicode and the replays of the four bundled
# Python benchmark traces, at 1 thread (obmalloc runs under CPython's
# GIL). Prints radix against big pools (the published question) and
# radix-py311 against CPython's (the model against its original), each
# row's ratio with its 95% interval, "not resolved" where it holds 1.
#   benchmarks/founding-paired.sh [BUILD] [OUT] [processes] [extra plugin ...]
# An extra plugin (a path, e.g. a PGO build's obmalloc-radix.so:as=radix-pgo)
# joins the group and is compared with radix and with CPython's.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
bench_args "[BUILD] [OUT] [processes] [extra plugin ...]" "$@"
processes=${3:-20}
shift $(($# < 3 ? $# : 3))
plugins=(-p obmalloc-bigpool:preset=table-64m-16k,mode=none,as=big-pool
	-p obmalloc-radix:preset=table-64m-16k,mode=none,as=radix -p obmalloc-radix:mode=none,as=radix-py311 -p cpython)
extra=()
for p in "$@"; do
	plugins+=(-p "$p")
	extra+=("${p##*as=}")
done
workloads=(-w churn -w unicode)
for t in richards json_dumps nbody deltablue; do workloads+=(-w "trace:file=$t.trace"); done

start=$(date +%s)
bench_run "$out/founding.json" --paired "${plugins[@]}" "${workloads[@]}" -t 1 -n "$processes"
echo "paired run: $(($(date +%s) - start)) s, $processes processes a cell"
echo
echo "== radix against big pools (the published table's question)"
"$alloclab" compare "$out/founding.json" --plugins big-pool,radix
echo
echo "== radix at CPython 3.11's sizes against CPython's own allocator"
"$alloclab" compare "$out/founding.json" --plugins cpython,radix-py311
for e in "${extra[@]}"; do
	echo
	echo "== $e against radix-py311, and against CPython's"
	"$alloclab" compare "$out/founding.json" --plugins radix-py311,"$e"
	"$alloclab" compare "$out/founding.json" --plugins cpython,"$e"
done
