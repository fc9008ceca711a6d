#!/usr/bin/env bash
# The runner's own CPU time per worker process, for runs of 10, 100 and 1000
# workers of the cheapest possible cell (the noop plugin, churn with one
# operation): a benchmark of the results file's cost, not a timed test.
# Before the journal the parent rewrote the whole file after every worker,
# so this grew with the run; it should now be flat.
#   benchmarks/parent-cost.sh BUILD OUT
set -euo pipefail
. "$(dirname "$0")/lib.sh"
bench_args "BUILD OUT" "$@"
printf '%8s %14s %16s\n' workers "runner CPU s" "ms per worker"
for n in 10 100 1000; do
	bench_run "$out/parent-$n.json" -p noop -w churn:ops=1,slots=1 -t 1 -n "$n" -v 1 --warmups 0
	bench_show "$out/parent-$n.json" | bench_python -c '
import json, sys
m = json.load(sys.stdin)["metadata"]
print("%8d %14.3f %16.3f" % (m["workers"], m["runner_cpu_s"], 1000 * m["runner_cpu_s"] / m["workers"]))'
done
