#!/usr/bin/env bash
# Whether two builds of alloclab measure the same: a fixed plan counted in
# instructions (deterministic: fixed seeds, one thread, callgrind counting
# the timed region only), every value of every cell, compared line by
# line. A change that should not change behaviour (moving code between
# files, assertions compiled out of a release build) must print "same".
#   benchmarks/same-figures.sh OUT BUILD_A [BUILD_B]
# With one build it writes OUT/a.csv only (keep it to compare later).
# About four minutes a build on a 2-core machine.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
usage="usage: same-figures.sh OUT BUILD_A [BUILD_B]"
bench_out "${1:?$usage}"
b=""
if [ -n "${3:-}" ]; then
	bench_alloclab "$3"
	b=$alloclab
fi
bench_alloclab "${2:?$usage}"
a=$alloclab

# The replay replays one file for both builds: each build records its own
# traces, and two recordings of a Python benchmark differ.
trace=$build/traces/richards.trace
[ -f "$trace" ] || bench_fail "no $trace (build A records it)"
plan=(--measure instructions -t 1 -n 1 -v 2 --warmups 0 --order fixed
	-p system -p mimalloc -p obmalloc-radix:mode=none -p obmalloc-bigpool:mode=none -p cpython
	-w churn:ops=20000 -w unicode:words=512,rounds=2 -w "trace:file=$trace,loops=1"
	-w fragment -w steady -w threadtest -w larson -w xmalloc -w cache-thrash -w cache-scratch)

# One line per value: the cell, the value's index and what was counted
# (instructions per op, operations, what the workload held at the end of
# the run, the plugin's own statistics), never the wall time, the host or
# the CPU model, which differ by nature.
figures() {
	local exe=$1 name=$2
	alloclab=$exe bench_run "$out/$name.json" "${plan[@]}"
	bench_python - "$out/$name.json" >"$out/$name.csv" <<'PY'
import json, sys
from alloclab_json import load
doc = load(sys.argv[1])
for cell in doc["cells"]:
    key = [cell["plugin"], cell["workload"], json.dumps(cell["params"], sort_keys=True), str(cell["threads"])]
    if cell["status"] != "ok":
        print("|".join(key + [cell["status"]]))
        continue
    for run in cell["runs"]:
        for i, v in enumerate(run["values"]):
            print("|".join(key + [str(i), repr(v["instructions_per_op"]), str(v["thread_ops"]),
                                  str(v.get("live_end_bytes")), json.dumps(v.get("stats"), sort_keys=True)]))
PY
}

figures "$a" a
if [ -z "$b" ]; then
	echo "figures of $2: $out/a.csv ($(wc -l <"$out/a.csv") lines)"
	exit 0
fi
figures "$b" b
# A again: some cells are not exactly repeatable even in one build (the
# replay's background decoding, mimalloc's clock-driven page retirement
# move a few instructions per value); such a line may differ between the
# builds by as much as it differs between two runs of A.
figures "$a" a2
bench_python - "$out/a.csv" "$out/a2.csv" "$out/b.csv" <<'PY'
# Three kinds of line: alike in A's two runs and in B (the same figure);
# varying between A's own runs (B must fall within A's spread); alike in
# A's runs but not in B. The last happens where an allocator's instruction
# path depends on addresses, which move when the executable's code or the
# worker's own heap changes size: big pools read the page under a foreign
# pointer, glibc's bins depend on what the harness allocated before. They
# are reported with their size; past 0.1%, or with other operation counts,
# the builds do not measure the same.
import sys
a, a2, b = ([line.rstrip("\n").split("|") for line in open(f)] for f in sys.argv[1:4])
if not (len(a) == len(a2) == len(b)) or any(x[:5] != y[:5] or x[:5] != z[:5] for x, y, z in zip(a, a2, b)):
    print("different: the builds measured different cells or values")
    sys.exit(1)
same = noisy = moved = 0
bad, small = [], []
for x, y, z in zip(a, a2, b):
    if len(x) < 7:
        same += 1
        continue
    if x[6] != z[6]:
        bad.append(("operations differ", x, z))
    elif x == y and z == x:
        same += 1
    elif x[5] != y[5]:
        # varies between runs of A itself: B must stay within 0.1% of A's range
        noisy += 1
        lo, hi = sorted((float(x[5]), float(y[5])))
        if not (lo * 0.999 <= float(z[5]) <= hi * 1.001):
            bad.append((f"more than 0.1% outside A's own range {lo}..{hi}", x, z))
    else:
        moved += 1
        ops = sum(int(o) for o in x[6].strip("[]").split(","))
        apart = abs(float(z[5]) - float(x[5]))
        rel = apart / float(x[5])
        # under a thousand instructions in the whole value is no change of
        # the measured path (larson's main thread does almost nothing)
        (bad if rel > 0.001 and apart * ops > 1000 else small).append(
            (f"{100 * rel:.4f}% apart ({apart * ops:.0f} instructions in the value)", x, z))
for why, x, z in small:
    print(f"  {x[0]} {x[1]} value {x[4]}: {why} ({x[5]} and {z[5]} instructions an operation)")
for why, x, z in bad[:20]:
    print(f"different ({why}):\n  a: {'|'.join(x)}\n  b: {'|'.join(z)}")
if bad:
    sys.exit(1)
print(f"same: {same} lines identical in both builds; {noisy} that vary between runs of one build "
      f"within its own spread; {moved} apart by at most 0.1% (above)")
PY
