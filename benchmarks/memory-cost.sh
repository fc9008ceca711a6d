#!/usr/bin/env bash
# What the memory timeline costs the measured threads (docs/guides/memory.md). A
# benchmark that prints figures, not a test: time per op of churn with the
# timeline sampled every 10 ms and every 1 ms from outside the worker,
# against runs with it off (--sample-ms 0) before and after, at 1 and 2
# threads, medians of PROCESSES processes. The sampler runs in the
# supervising process: no instruction is added to the worker's threads,
# so what it costs is the supervisor's CPU time beside them.
#   benchmarks/memory-cost.sh BUILD OUT [PROCESSES]
set -euo pipefail
. "$(dirname "$0")/lib.sh"
bench_args "BUILD OUT [PROCESSES]" "$@"
n=${3:-7}
w=churn:ops=20000000

run() { bench_run "$out/$1.json" --no-check -t 1,2 -n "$n" -v 3 -p system -p mimalloc -w "$w" "${@:2}"; }
run off --sample-ms 0
run ten --sample-ms 10
run one --sample-ms 1
run off2 --sample-ms 0
for f in off ten one off2; do bench_show "$out/$f.json" >"$out/$f.show.json"; done
bench_python - "$out" <<'PY'
import sys
from alloclab_json import label, load, medians
out = sys.argv[1]
def medians_of(name):
    d = load(f"{out}/{name}.show.json")
    return medians(d, lambda c: (label(d, c), c["threads"]))
off, off2, ten, one = medians_of("off"), medians_of("off2"), medians_of("ten"), medians_of("one")
print(f"{'plugin':10} {'threads':>7} {'off ns/op':>10} {'10 ms':>16} {'1 ms':>16}")
for k in off:
    base = (off[k] + off2[k]) / 2
    print(f"{k[0]:10} {k[1]:7} {base:10.2f} {ten[k]:8.2f} ({(ten[k] / base - 1) * 100:+5.1f}%) {one[k]:8.2f} ({(one[k] / base - 1) * 100:+5.1f}%)")
print("(off: the mean of the runs before and after; churn:ops=20000000, values of about 0.1 to 0.6 s)")
PY
