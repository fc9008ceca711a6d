#!/usr/bin/env bash
# The harness's own cost, in instructions: the churn loop run by alloclab
# (--measure instructions, the timed region only) against the same loop with
# no framework around it (analysis/standalone/churn.c, its loop counted the
# same way), per allocator. A benchmark that prints figures, not a test.
#   analysis/harness-ratio.sh BUILD_DIR OUTDIR [OPS]
set -euo pipefail
build=${1:?usage: harness-ratio.sh BUILD_DIR OUTDIR [OPS]}
out=${2:?usage: harness-ratio.sh BUILD_DIR OUTDIR [OPS]}
ops=${3:-200000}
mkdir -p "$out"
printf '%-10s %14s %14s %8s\n' allocator standalone alloclab ratio
for exe in "$build"/analysis/churn-standalone-*; do
	[ -f "$exe" ] && [ -x "$exe" ] || continue
	name=${exe##*churn-standalone-}
	rm -f "$out"/cg.*
	valgrind --tool=callgrind --collect-atstart=no --callgrind-out-file="$out/cg.%p" -q "$exe" "$ops" >/dev/null
	standalone=$(grep -h '^totals:' "$out"/cg.*.1 | awk -v ops="$ops" '{ printf "%.2f", $2 / ops }')
	"$build"/cli/alloclab run -q --no-check --measure instructions -p "$name" -w "churn:ops=$ops" -t 1 -n 1 -v 1 \
		--warmups 0 -o "$out/$name.json" >/dev/null
	framework=$("$build"/cli/alloclab show --format json "$out/$name.json" | /usr/bin/python3 -c '
import json, sys
print("%.2f" % json.load(sys.stdin)["cells"][0]["runs"][0]["values"][0]["instructions_per_op"])')
	printf '%-10s %14s %14s %8.3f\n' "$name" "$standalone" "$framework" "$(echo "$framework / $standalone" | bc -l)"
done
rm -f "$out"/cg.*
