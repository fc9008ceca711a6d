#!/usr/bin/env bash
# How long a small difference takes to resolve (docs/measurements/paired.md):
# the test plugin spin.so with work=K (K steps of a dependent multiply
# chain on every malloc, a fixed cost) against a second copy of its file
# with one step or two more (two builds of one plugin), a difference of a
# few percent, on churn at 1 thread, measured three ways one run after
# the other: paired in whole values (the default), paired in slices of
# 2,000 operations, and unpaired (each cell in processes of its own). For
# each: the ratio, and the fewest processes (and the minutes they took)
# after which the difference is resolved at p < 0.01 and stays so: paired
# by the signed-rank test on the processes' ratios, unpaired by the rank
# test on the cells' process means (compare's own tests).
#   benchmarks/resolve-small.sh [BUILD] [OUT] [processes] [work] [extra steps]
set -euo pipefail
. "$(dirname "$0")/lib.sh"
bench_args "[BUILD] [OUT] [processes] [work] [extra steps]" "$@"
processes=${3:-20}
work=${4:-20}
extra=${5:-1}
[ -f "$build/tests/plugins/spin.so" ] || bench_fail "no $build/tests/plugins/spin.so (a test build has it)"
# Two files, as two builds of one plugin would be: spin.so wraps glibc's
# malloc (it does not declare own-state), so two settings of one file
# would be measured in processes of their own, and the cost lives in the
# plugin's own code, not in the allocator the two share.
cp "$build/tests/plugins/spin.so" "$out/spin-base.so"
cp "$build/tests/plugins/spin.so" "$out/spin-cost.so"
plan=(-p "$out/spin-base.so:work=$work,as=base" -p "$out/spin-cost.so:work=$((work + extra)),as=cost" -w churn -t 1
	-n "$processes" --no-check)

t0=$(date +%s.%N)
bench_run "$out/paired.json" --paired "${plan[@]}"
t1=$(date +%s.%N)
bench_run "$out/slices.json" --paired --slice-ops 2000 "${plan[@]}"
t2=$(date +%s.%N)
bench_run "$out/unpaired.json" "${plan[@]}"
t3=$(date +%s.%N)

bench_python - "$out/paired.json" "$out/slices.json" "$out/unpaired.json" "$t0" "$t1" "$t2" "$t3" <<'PY'
import math, statistics, sys
from alloclab_json import load, pair_logs, process_means
from intervals import percent
from rank_tests import rank_sum_p, signed_rank_p

def cell(path, plugin):
    for c in load(path)["cells"]:
        if c["plugin"] == plugin:
            return c
    sys.exit(f"{path}: no cell of {plugin}")

def resolved_from(ps):
    # the fewest processes from which p stays below 0.01
    k = None
    for i, p in enumerate(ps):
        if p < 0.01:
            k = k or i + 1
        else:
            k = None
    return k

t = [float(x) for x in sys.argv[4:8]]
print(f"{'design':9} {'ratio':>7} {'processes':>9} {'run':>8}  resolved at p < 0.01")
spreads = []
for name, path, secs in (("values", sys.argv[1], t[1] - t[0]), ("slices", sys.argv[2], t[2] - t[1])):
    logs = pair_logs(cell(path, "cost"))
    ps = [signed_rank_p(logs[:k]) if k >= 2 else 1.0 for k in range(1, len(logs) + 1)]
    k = resolved_from(ps)
    per = secs / len(logs)
    when = f"after {k} processes, {k * per / 60:.1f} min" if k else f"not within {len(ps)} processes (p = {ps[-1]:.3f})"
    print(f"{name:9} {math.exp(statistics.mean(logs)):7.4f} {len(ps):9} {secs / 60:6.1f} m  {when}")
    spreads.append(f"{name} {percent(statistics.stdev(logs)):.2f}%")
ua, ub = process_means(cell(sys.argv[3], "base")), process_means(cell(sys.argv[3], "cost"))
m = min(len(ua), len(ub))
uratio = math.exp(statistics.mean(math.log(x) for x in ub) - statistics.mean(math.log(x) for x in ua))
ps = [rank_sum_p(ua[:k], ub[:k]) if k >= 2 else 1.0 for k in range(1, m + 1)]
k = resolved_from(ps)
secs = t[3] - t[2]
when = f"after {k} processes, {k * secs / m / 60:.1f} min" if k else f"not within {m} processes (p = {ps[-1]:.3f})"
print(f"{'unpaired':9} {uratio:7.4f} {m:9} {secs / 60:6.1f} m  {when}")
spread = [percent(statistics.stdev(math.log(x) for x in side)) for side in (ua, ub)]
print(f"process to process: paired ratio {', '.join(spreads)}; unpaired process means {spread[0]:.1f}% and {spread[1]:.1f}%")
PY
