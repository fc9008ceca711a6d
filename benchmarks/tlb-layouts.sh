#!/usr/bin/env bash
# Simulated TLB misses of the founding table's rows over several address
# layouts (docs/measurements/tlb.md). A benchmark that prints figures, not
# a test: each cell's processes after the first map 37k mod 256 pages before
# the plugin (worker.h, alloclab_layout_pad), so the medians below are over
# layouts, as address-space randomisation spreads a real machine's runs.
#   benchmarks/tlb-layouts.sh BUILD OUT [PROCESSES]   (default 8)
# Or give an existing run's results as OUT/tlb.json to print its table.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
bench_args "BUILD OUT [PROCESSES]" "$@"
n=${3:-8}
cd "$out"
rows=json_dumps+json_loads+unpickle+telco+sqlite_synth+spectral_norm+scimark_monte_carlo+django_template+nbody+float+pathlib
if [ ! -f tlb.json ]; then
	bench_run tlb.json --measure tlb -n "$n" -v 1 -t 1 --timeout 900 \
		-w "python:bench=$rows,loops=1,profile=no,hash_seed=1" \
		-p obmalloc-bigpool:preset=table-64m-16k,mode=none,as=big-pool \
		-p obmalloc-radix:preset=table-64m-16k,mode=none,as=radix \
		-p obmalloc-radix:preset=table-16m-4k,mode=none,as=radix-4k
fi
bench_show tlb.json | bench_python -c '
import json, statistics, sys
from alloclab_json import label
d = json.load(sys.stdin)
# The published time changes (the 2020 python-dev table): big-pool -> radix,
# and radix 4 KiB/16 MiB -> 16 KiB/64 MiB; None where it did not move.
published = {"json_dumps": (4, 4), "json_loads": (3, 3), "unpickle": (9, 5), "telco": (3, 4),
             "sqlite_synth": (3, 4), "spectral_norm": (3, 2), "scimark_monte_carlo": (-2, 1),
             "django_template": (-3, -4), "nbody": (-2, None), "float": (-1, -1), "pathlib": (None, 2)}
per = {}
for c in d["cells"]:
    xs = [v["d1_misses_per_op"] / v["instructions_per_op"] * 1000
          for r in c.get("runs", []) for v in r["values"] if v.get("instructions_per_op")]
    if xs:
        per.setdefault(c["params"]["bench"], {})[label(d, c)] = xs
def fmt(xs):
    return "%.3f (%.3f-%.3f)" % (statistics.median(xs), min(xs), max(xs))
agree = [0, 0]; moved = [0, 0]; apart = [0, 0]
print("%-20s %-26s %-26s %-26s %6s %6s" % ("benchmark", "big-pool", "radix", "radix-4k", "r/b", "r/4k"))
for b, pub in published.items():
    v = per.get(b)
    if not v or len(v) < 3:
        continue
    mb, mr, m4 = (statistics.median(v[k]) for k in ("big-pool", "radix", "radix-4k"))
    print("%-20s %-26s %-26s %-26s %6.2f %6.2f" % (b, fmt(v["big-pool"]), fmt(v["radix"]), fmt(v["radix-4k"]), mr / mb, mr / m4))
    for k, (ratio, lo, hi) in enumerate(((mr / mb, v["big-pool"], v["radix"]), (mr / m4, v["radix-4k"], v["radix"]))):
        if pub[k] is None:
            continue
        moved[k] += 1
        agree[k] += (ratio > 1) == (pub[k] > 0)
        # The two sides layout ranges do not overlap.
        apart[k] += max(lo) < min(hi) or max(hi) < min(lo)
print("median ratios in the published direction: big-pool -> radix %d of %d, radix 4k -> 16k %d of %d" % (agree[0], moved[0], agree[1], moved[1]))
print("rows whose two layout ranges do not overlap: %d of %d, %d of %d" % (apart[0], moved[0], apart[1], moved[1]))
'
