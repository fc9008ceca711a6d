#!/usr/bin/env bash
# A/A check: measures the same thing twice and compares the two with each
# significance test. A sound test calls (almost) every row "not
# significant": nothing changed but time.
#   benchmarks/aa-check.sh [BUILD] [OUT] [processes: 5, 10, auto, ...] [mode]
# mode:
#   runs          (default) one configuration in two runs, compared run against run
#   within        each plugin twice in one run (as=NAME-B), compared plugin against
#                 its twin: what the runner's interleaving and cell order give
#   instructions  as within, counted by callgrind: the largest relative difference
#                 between twins, which should be (all but) zero
set -euo pipefail
. "$(dirname "$0")/lib.sh"
bench_args "[BUILD] [OUT] [processes: 5, 10, auto, ...] [mode]" "$@"
processes=${3:-5}
mode=${4:-runs}

case "$mode" in
runs)
	config=(-p system -p jemalloc -p mimalloc -p obmalloc-radix:mode=none -p obmalloc-bigpool:mode=none
		-w churn:max_size=32+64+128+256+512 -t 1,2 -n "$processes")
	bench_run "$out/a.json" "${config[@]}"
	bench_run "$out/b.json" "${config[@]}"
	for test in rank pyperf; do
		"$alloclab" compare "$out/a.json" "$out/b.json" --test "$test" --format csv >"$out/aa-$test.csv"
		awk -F, -v test="$test" 'NR > 1 { n++; if ($NF == "no") quiet++ }
			END { printf "A/A %-6s: %d of %d cells not significant (%.0f%%)\n", test, quiet, n, 100 * quiet / n }' \
			"$out/aa-$test.csv"
	done
	;;
within | instructions)
	plugins=(system jemalloc mimalloc)
	config=(-w churn:max_size=32+64+128+256+512 -w unicode:variant=2chars+32chars -t 1,2)
	for p in "${plugins[@]}"; do config+=(-p "$p" -p "$p:as=$p-B"); done
	if [ "$mode" = instructions ]; then
		config+=(--measure instructions -n "${processes/auto/2}" -v 1)
	else
		config+=(-n "$processes")
	fi
	bench_run "$out/within.json" "${config[@]}"
	total=0
	quiet=0
	worst=0
	for p in "${plugins[@]}"; do
		"$alloclab" compare "$out/within.json" --plugins "$p,$p-B" --format csv >"$out/within-$p.csv"
		# columns: row, base mean, then per column mean, ratio, p, significant
		read -r n q w < <(awk -F, 'NR > 1 { n++; if ($NF == "no") q++; d = $4 - 1; if (d < 0) d = -d; if (d > w) w = d }
			END { printf "%d %d %.6f\n", n, q, w }' "$out/within-$p.csv")
		total=$((total + n))
		quiet=$((quiet + q))
		worst=$(awk -v a="$worst" -v b="$w" 'BEGIN { print (b > a ? b : a) }')
		if [ "$mode" = instructions ]; then
			printf 'A/A %-9s instructions: largest difference between twins %.3f%% over %d rows\n' "$p" \
				"$(awk -v w="$w" 'BEGIN { print 100 * w }')" "$n"
		fi
	done
	if [ "$mode" = within ]; then
		printf 'A/A within one run (rank test): %d of %d rows not significant (%.0f%%)\n' "$quiet" "$total" \
			"$(awk -v q="$quiet" -v t="$total" 'BEGIN { print 100 * q / t }')"
	else
		printf 'A/A within one run, instructions: largest difference %.3f%% over %d rows\n' \
			"$(awk -v w="$worst" 'BEGIN { print 100 * w }')" "$total"
	fi
	;;
*)
	bench_fail "mode is runs, within or instructions, not '$mode'"
	;;
esac
