#!/usr/bin/env bash
# A/A check: measures the same configuration twice and compares the two runs
# with each significance test. A sound test calls (almost) every cell "not
# significant": nothing changed between the runs but time.
#   analysis/aa-check.sh [path/to/alloclab] [output folder] [processes: 5, auto, ...]
set -euo pipefail
alloclab=${1:-build/cli/alloclab}
out=${2:-alloclab-results/aa}
processes=${3:-5}
mkdir -p "$out"
config=(-p system -p jemalloc -p mimalloc -p obmalloc-radix:mode=none -p obmalloc-bigpool:mode=none
	-w churn:max_size=32+64+128+256+512 -t 1,2 -n "$processes")

"$alloclab" run "${config[@]}" -q -o "$out/a.json" >/dev/null
"$alloclab" run "${config[@]}" -q -o "$out/b.json" >/dev/null
for test in rank pyperf; do
	"$alloclab" compare "$out/a.json" "$out/b.json" --test "$test" --format csv >"$out/aa-$test.csv"
	awk -F, -v test="$test" 'NR > 1 { n++; if ($NF == "no") quiet++ }
		END { printf "A/A %-6s: %d of %d cells not significant (%.0f%%)\n", test, quiet, n, 100 * quiet / n }' \
		"$out/aa-$test.csv"
done
