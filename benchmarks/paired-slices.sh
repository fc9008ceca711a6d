#!/usr/bin/env bash
# How long a paired slice should be (docs/measurements/paired.md): an A/A
# pair (glibc against a second instance of itself) and a real one
# (mimalloc against glibc) measured side by side in slices of different
# lengths, and in whole values, at 1 and 2 threads; for each, the ratio
# with its 95% interval and the spread of the processes' ratios (the
# standard deviation of their logarithms, in percent). Shorter slices
# share the machine's moments more closely (a smaller spread), but every
# switch costs the caches a little: a cost both plugins pay alike pulls
# the real pair's ratio toward 1, which whole values (the plugins' caches
# their own for a whole value) do not.
#   benchmarks/paired-slices.sh [alloclab] [output folder] [processes]
set -euo pipefail
alloclab=${1:-build/cli/alloclab}
out=${2:-alloclab-results/paired-slices}
processes=${3:-10}
mkdir -p "$out"
printf '%-12s %-3s %-20s %8s %-19s %8s\n' "slice ops" "t" "pair" "ratio" "95% interval" "spread"
for slice in 1000 2000 5000 20000 100000 0; do
	"$alloclab" run -q --paired -p system -p system:as=system-B -p mimalloc -w churn -t 1,2 -n "$processes" \
		--slice-ops "$slice" -o "$out/slice-$slice.json" >/dev/null
	/usr/bin/python3.11 - "$out/slice-$slice.json" "$slice" <<'PY'
import json, math, statistics, sys
doc = json.load(open(sys.argv[1]))
T95 = [0, 12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145,
       2.131, 2.120, 2.110, 2.101, 2.093, 2.086]
for c in sorted(doc["cells"], key=lambda c: (c["threads"], c["plugin"])):
    if c["plugin"] == "system":
        continue
    logs = [math.log(r["pair_ratio"]) for r in c["runs"]]
    m, sd = statistics.mean(logs), statistics.stdev(logs)
    h = (T95[len(logs) - 1] if len(logs) <= 20 else 2.0) * sd / math.sqrt(len(logs))
    label = "whole values" if sys.argv[2] == "0" else sys.argv[2]
    print(f"{label:<12} {c['threads']:<3} {c['plugin'] + ' / system':<20} {math.exp(m):8.4f} "
          f"{math.exp(m - h):8.4f} .. {math.exp(m + h):7.4f} {100 * (math.exp(sd) - 1):7.2f}%")
PY
done
