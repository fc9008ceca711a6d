#!/usr/bin/env bash
# The founding question as `alloclab ab` answers it
# (docs/measurements/radix-vs-bigpool.md): big-pool obmalloc (BASE) and the
# radix tree (HEAD) at the 2020 python-dev table's sizes (16 KiB pools, 64
# MiB arenas; mode none: one thread, no lock), two builds of one allocator
# that differ in one lookup, on churn, unicode and the replays of the four
# bundled Python benchmark traces, at one thread.
#   1. The design's bias, measured: every row in whole values alternated
#      and in slices of 2,000 operations, at the same number of processes;
#      slices over values with the two intervals combined (independent
#      runs, on the logarithms). A ratio of designs whose interval leaves 1
#      out is a bias the designs do not share.
#   2. ab's answer, in whole values: each row's ratio with its 95% interval.
# A benchmark that prints figures, not a test.
#   benchmarks/founding-ab.sh [BUILD] [OUT] [PROCESSES] [VALUES]
set -euo pipefail
. "$(dirname "$0")/lib.sh"
bench_args "[BUILD] [OUT] [PROCESSES] [VALUES]" "$@"
processes=${3:-60}
values=${4:-5}
base="$build/plugins/obmalloc-bigpool.so:preset=table-64m-16k,mode=none"
head="$build/plugins/obmalloc-radix.so:preset=table-64m-16k,mode=none"
workloads=(-w churn -w unicode)
for t in richards json_dumps nbody deltablue; do workloads+=(-w "trace:file=$t.trace"); done

for design in values slices:2000; do
	name=${design%%:*}
	bench_say "measuring in $name"
	start=$(date +%s)
	"$alloclab" ab "$base" "$head" --metrics time --design "$design" -n "$processes" -v "$values" "${workloads[@]}" \
		-f json -o "$out/$name" >"$out/$name.json"
	echo "$name: $(($(date +%s) - start)) s, $processes processes a row, $values values a process"
done
echo
/usr/bin/python3.11 - "$out/values.json" "$out/slices.json" <<'PY'
import json, math, sys
values = {r["row"]: r for r in json.load(open(sys.argv[1]))["rows"] if "ratio" in r}
slices = {r["row"]: r for r in json.load(open(sys.argv[2]))["rows"] if "ratio" in r}
def half(r):
    lo, hi = r["interval"]
    return math.log(hi / lo) / 2
print(f"{'row':24} {'whole values':>26} {'slices':>26} {'slices / values':>26}")
for row, v in values.items():
    s = slices.get(row)
    if s is None:
        continue
    d = s["ratio"] / v["ratio"]
    h = math.sqrt(half(v) ** 2 + half(s) ** 2)
    lo, hi = d * math.exp(-h), d * math.exp(h)
    tell = "biased" if lo > 1 or hi < 1 else "no bias resolved"
    fmt = lambda r: f'{r["ratio"]:.4f} [{r["interval"][0]:.4f}..{r["interval"][1]:.4f}]'
    print(f"{row:24} {fmt(v):>26} {fmt(s):>26} {d:8.4f} [{lo:.4f}..{hi:.4f}] {tell}")
print()
print("ab's answer (whole values): radix over big pools")
for row, v in values.items():
    lo, hi = v["interval"]
    pm = (math.sqrt(hi / lo) - 1) * 100
    print(f"  {row:24} {v['ratio']:.4f} [{lo:.4f} .. {hi:.4f}] (+-{pm:.2f}%) {v['verdict']}")
PY
