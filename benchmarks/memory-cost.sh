#!/usr/bin/env bash
# What the memory timeline costs the measured threads (docs/guides/memory.md). A
# benchmark that prints figures, not a test: time per op of churn with the
# timeline sampled every 10 ms and every 1 ms from outside the worker,
# against runs with it off (--sample-ms 0) before and after, at 1 and 2
# threads, medians of PROCESSES processes. The sampler runs in the
# supervising process: no instruction is added to the worker's threads,
# so what it costs is the supervisor's CPU time beside them.
#   benchmarks/memory-cost.sh BUILD_DIR OUTDIR [PROCESSES]
set -euo pipefail
usage="usage: memory-cost.sh BUILD_DIR OUTDIR [PROCESSES]"
build=$(cd "${1:?$usage}" && pwd)
out=${2:?$usage}
n=${3:-7}
A="$build/cli/alloclab"
mkdir -p "$out"
out=$(cd "$out" && pwd)
w=churn:ops=20000000

run() { "$A" run -q --no-check -t 1,2 -n "$n" -v 3 -p system -p mimalloc -w "$w" "${@:2}" -o "$out/$1.json" >/dev/null; }
run off --sample-ms 0
run ten --sample-ms 10
run one --sample-ms 1
run off2 --sample-ms 0
for f in off ten one off2; do "$A" show --format json "$out/$f.json" >"$out/$f.show.json"; done
/usr/bin/python3 - "$out" <<'PY'
import json, statistics, sys
out = sys.argv[1]
def medians(name):
    d = json.load(open(f"{out}/{name}.show.json"))
    m = {}
    for c in d["cells"]:
        p = c["plugin"]
        label = d["plugins"][p]["label"] if isinstance(p, int) else p
        m[(label, c["threads"])] = statistics.median(v["ns_per_op"] for r in c["runs"] for v in r["values"])
    return m
off, off2, ten, one = medians("off"), medians("off2"), medians("ten"), medians("one")
print(f"{'plugin':10} {'threads':>7} {'off ns/op':>10} {'10 ms':>16} {'1 ms':>16}")
for k in off:
    base = (off[k] + off2[k]) / 2
    print(f"{k[0]:10} {k[1]:7} {base:10.2f} {ten[k]:8.2f} ({(ten[k] / base - 1) * 100:+5.1f}%) {one[k]:8.2f} ({(one[k] / base - 1) * 100:+5.1f}%)")
print("(off: the mean of the runs before and after; churn:ops=20000000, values of about 0.1 to 0.6 s)")
PY
