#!/usr/bin/env bash
# Whether two builds of alloclab measure the same: a fixed plan counted in
# instructions (deterministic: fixed seeds, one thread, callgrind counting
# the timed region only), every value of every cell, compared line by
# line. A change that should not change behaviour (moving code between
# files, assertions compiled out of a release build) must print "same".
#   analysis/same-figures.sh OUT ALLOCLAB_A [ALLOCLAB_B]
# With one build it writes OUT/a.csv only (keep it to compare later).
# About four minutes a build on a 2-core machine.
set -euo pipefail
out=${1:?usage: same-figures.sh OUT ALLOCLAB_A [ALLOCLAB_B]}
a=${2:?usage: same-figures.sh OUT ALLOCLAB_A [ALLOCLAB_B]}
b=${3:-}
mkdir -p "$out"

plan=(--measure instructions -t 1 -n 1 -v 2 --warmups 0 --order fixed -q
	-p system -p mimalloc -p obmalloc-radix:mode=none -p obmalloc-bigpool:mode=none -p cpython
	-w churn:ops=20000 -w unicode:words=512,rounds=2 -w trace:file=richards.trace,loops=1
	-w fragment -w steady -w threadtest -w larson -w xmalloc -w cache-thrash -w cache-scratch)

# One line per value: the cell, the value's index and what was counted
# (instructions per op, operations, what the workload held at the end of
# the run, the plugin's own statistics), never the wall time, the host or
# the CPU model, which differ by nature.
figures() {
	local exe=$1 name=$2
	"$exe" run "${plan[@]}" -o "$out/$name.json" >/dev/null
	/usr/bin/python3.11 - "$out/$name.json" >"$out/$name.csv" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
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
	echo "figures of $a: $out/a.csv ($(wc -l <"$out/a.csv") lines)"
	exit 0
fi
figures "$b" b
values=$(wc -l <"$out/a.csv")
if cmp -s "$out/a.csv" "$out/b.csv"; then
	echo "same: all $values lines (values, and cells not measured) alike in both builds"
else
	echo "different: the lines that differ (a then b):"
	diff "$out/a.csv" "$out/b.csv" | head -40
	exit 1
fi
