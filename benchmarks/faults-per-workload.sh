#!/usr/bin/env bash
# Does a workload's time include page faults, and whose? (docs/measurements/
# faults.md) Every workload at its defaults, one thread (larson, xmalloc and
# blowup at two: they need a partner), against glibc, jemalloc, mimalloc,
# CPython's obmalloc and the two obmalloc plugins, unpaired (each process
# holds one allocator: its faults are its own), PROCESSES processes of three
# values: the page faults (minor and major) of the timed region per 1,000
# operations, the median over processes. The run's probe of this machine's fault cost turns
# the faults into a share of the time. A workload that rebuilds its heap
# each value on purpose shows it here; its guide says why.
# A benchmark that prints figures, not a test.
#   benchmarks/faults-per-workload.sh [BUILD] [OUT] [PROCESSES]
set -euo pipefail
. "$(dirname "$0")/lib.sh"
bench_args "[BUILD] [OUT] [PROCESSES]" "$@"
n=${3:-3}
case "$n" in '' | *[!0-9]*) bench_fail "PROCESSES: $n is not a whole number" ;; esac
plugins=(-p system -p jemalloc -p mimalloc -p cpython -p obmalloc-radix:mode=per-thread -p obmalloc-bigpool:mode=per-thread)
one=(-w churn -w unicode -w fragment -w steady -w threadtest -w cache-thrash -w cache-scratch
	-w python:bench=richards+json_dumps -w trace:file=richards.trace -w trace:file=richards.trace,part=whole)
two=(-w larson -w xmalloc -w blowup)
bench_say "measuring one-thread workloads"
bench_run "$out/one.json" "${plugins[@]}" "${one[@]}" -t 1 -n "$n" -v 3
bench_say "measuring two-thread workloads"
bench_run "$out/two.json" "${plugins[@]}" "${two[@]}" -t 2 -n "$n" -v 3
bench_show "$out/one.json" >"$out/one.shown.json"
bench_show "$out/two.json" >"$out/two.shown.json"
bench_python - "$out/one.shown.json" "$out/two.shown.json" <<'PY'
import statistics, sys
import alloclab_json as aj

rows, order, fault_ns = {}, [], None
for path in sys.argv[1:]:
    doc = aj.load(path)
    fault_ns = doc["metadata"].get("page_fault_ns", fault_ns)
    for c in doc["cells"]:
        if c["status"] != "ok":
            continue
        p = c["params"]
        name = c["workload"]
        if name == "python":
            name += " " + p["bench"]
        if name == "trace":
            name += " " + ("whole" if p.get("part") == "whole" else "steady")
        name += f" t={c['threads']}"
        per = []
        for r in aj.runs(c):
            vs = r["values"]
            ops = sum(sum(v["thread_ops"]) for v in vs)
            per.append(1000 * sum(v["minor_faults"] + v["major_faults"] for v in vs) / ops)
        if name not in rows:
            rows[name] = {}
            order.append(name)
        rows[name][aj.label(doc, c)] = (statistics.median(per), statistics.median(aj.values(c)))
labels = ["system", "jemalloc", "mimalloc", "cpython", "obmalloc-radix:mode=per-thread",
          "obmalloc-bigpool:mode=per-thread"]
short = ["glibc", "jemalloc", "mimalloc", "cpython", "radix", "bigpool"]


def table(cell):
    """A row a workload, a column a plugin, each cell's figures as cell() writes them."""
    print(f"{'workload':24}" + "".join(f"{s:>10}" for s in short))
    for name in order:
        print(f"{name:24}" + "".join(f"{cell(rows[name][l]) if l in rows[name] else '-':>10}" for l in labels))


print("page faults per 1,000 operations in the timed region (median over processes)")
print(f"this machine's first-touch fault: {fault_ns / 1000:.1f} us" if fault_ns else "fault cost: not probed")
print()
table(lambda f: f"{f[0]:8.3f}")
if fault_ns:
    print()
    print("the faults' share of each cell's time at this machine's fault cost (faults/op x cost / ns per op):")
    table(lambda f: f"{100 * f[0] / 1000 * fault_ns / f[1]:6.1f}%")
PY
