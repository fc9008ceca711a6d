#!/usr/bin/env bash
# The 2008 Unicode/Bytes allocation benchmark as it ran in 2008: its two UCS2
# layouts with their free list, its word counts, variants and rounds, 100
# passes a round, on the era's allocator (obmalloc-py26) and on CPython
# 3.11's; then its published lines beside the measured ones, line by line:
# Unicode/Bytes published and measured, and whether the direction agrees.
#   benchmarks/unicode-2008.sh [BUILD] [OUT] [processes] [plugins...]
# UNICODE_2008_PARAMS=freelist=0 adds workload parameters (the free list off).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
bench_args "[BUILD] [OUT] [processes] [plugins...]" "$@"
processes=${3:-3}
shift $(($# < 3 ? $# : 3))
plugins=("$@")
[ ${#plugins[@]} -gt 0 ] || plugins=(obmalloc-py26 cpython)
published="$BENCH_DIR/unicode-2008-published.tsv"
args=()
for p in "${plugins[@]}"; do args+=(-p "$p"); done
bench_run "$out/u.json" "${args[@]}" -w "unicode:layout=2008,reps=100${UNICODE_2008_PARAMS:+,$UNICODE_2008_PARAMS}" -t 1 \
	-n "$processes"
"$alloclab" show "$out/u.json" | awk -v published="$published" '
	BEGIN {
		while ((getline line < published) > 0) {
			if (line ~ /^#/ || line == "") continue
			split(line, f, "\t"); k = f[1] " " f[2] " " f[3]; pu[k] = f[4]; pb[k] = f[5]; order[++n] = k
		}
	}
	/^Testing Unicode\/Bytes Allocation Speed with / {
		plugin = $6; sub(/,$/, "", plugin); layout = $8; next
	}
	/^Unicode against Bytes, best ns per object:/ { in_table = 1; next }
	in_table && /^  *[0-9]+  / { k = layout " " $1 " " $2; mu[plugin, k] = $3; mb[plugin, k] = $4; plugins[plugin] = 1; next }
	in_table && !/^  *[0-9]+  / && !/words/ { in_table = 0 }
	END {
		for (p in plugins) {
			agree = 0; lines = 0
			printf "\n%s against the published 2008 lines (us per object; U/B = Unicode / Bytes):\n", p
			printf "  %-10s %5s %-8s | %7s %7s %6s | %8s %8s %6s | %s\n", "layout", "words", "variant", "pub U", "pub B", "U/B",
				"here U", "here B", "U/B", "direction"
			for (i = 1; i <= n; i++) {
				k = order[i]
				if (!((p, k) in mu)) continue
				split(k, f, " ")
				r0 = pu[k] / pb[k]; r1 = mu[p, k] / mb[p, k]
				same = (r0 < 1) == (r1 < 1); agree += same; lines++
				printf "  %-10s %5s %-8s | %7.3f %7.3f %6.2f | %8.4f %8.4f %6.2f | %s\n", f[1], f[2], f[3], pu[k], pb[k], r0,
					mu[p, k] / 1000, mb[p, k] / 1000, r1, same ? "agrees" : "REVERSED"
			}
			printf "  %d of %d lines agree in direction\n", agree, lines
		}
	}'
