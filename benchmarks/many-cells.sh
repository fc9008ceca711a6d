#!/usr/bin/env bash
# How the readers and writers of results files grow with their cells:
# show, compare (of two plugins in one run, and of the file with itself),
# export -f csv, plot and report, each timed on files of 1,000, 5,000 and
# 20,000 cells made from one small run (many_cells.py: two plugins, one
# row for each value of a parameter). A command that loops over every
# cell for every cell grows with the square of the cells; these should
# grow with the cells. A command still running at LIMIT_S is stopped and
# shown as "> LIMIT_S". COMMANDS= picks the columns (default: show compare
# compare2 export plot report; compare is of the two plugins in one file,
# compare2 of the file with itself). plot draws two pictures a row
# through gnuplot: its time is gnuplot's, growing with the rows.
#   benchmarks/many-cells.sh [BUILD] [OUT] [LIMIT_S=300] [CELLS...]
set -euo pipefail
. "$(dirname "$0")/lib.sh"
bench_args "[BUILD] [OUT] [LIMIT_S=300] [CELLS...]" "$@"
shift $(($# < 2 ? $# : 2))
limit=${1:-300}
shift $(($# < 1 ? $# : 1))
case "$limit" in '' | *[!0-9]*) bench_fail "LIMIT_S '$limit' is not a number of seconds ($usage)" ;; esac
sizes=("$@")
if [ ${#sizes[@]} -eq 0 ]; then sizes=(1000 5000 20000); fi

seed=$out/seed.json
[ -f "$seed" ] || bench_run "$seed" -p system -w churn:ops=1000 -t 1 -n 2 -v 2 --no-check

# timed ARG...: wall seconds of alloclab ARG... and, in brackets, the CPU
# seconds it and what it ran took (what a loaded machine changes least),
# or "> LIMIT_S".
timed() {
	local status=0
	/usr/bin/time -o "$out/last-time.txt" -f '%e %U %S' timeout "$limit" "$alloclab" "$@" >/dev/null \
		2>"$out/last-error.txt" || status=$?
	if [ "$status" -eq 124 ]; then
		printf '> %s' "$limit"
	elif [ "$status" -ne 0 ]; then
		bench_fail "alloclab $* failed: $(head -c 300 "$out/last-error.txt")"
	else
		read -r wall user sys <"$out/last-time.txt"
		printf '%.1f (%.1f)' "$wall" "$(bench_calc "$user + $sys")"
	fi
}

# timed_command NAME N: the time of one command of the table on cells-N.json.
timed_command() {
	local file=$out/cells-$2.json
	case "$1" in
	show) timed show "$file" ;;
	compare) timed compare "$file" --plugins system,system-twin ;;
	compare2) timed compare "$file" "$file" ;;
	export) timed export -f csv -o "$out/cells-$2.csv" "$file" ;;
	plot) rm -rf "$out/plot-$2" && timed plot "$file" -o "$out/plot-$2" ;;
	report) rm -rf "$out/report-$2" && timed report "$file" -o "$out/report-$2" ;;
	*) bench_fail "COMMANDS: no command '$1' (show compare compare2 export plot report)" ;;
	esac
}

read -r -a commands <<<"${COMMANDS:-show compare compare2 export plot report}"
printf '%8s' cells
printf ' %14s' "${commands[@]}"
printf '\n'
for n in "${sizes[@]}"; do
	[ -f "$out/cells-$n.json" ] || bench_python -m many_cells "$seed" "$n" "$out/cells-$n.json"
	printf '%8s' "$n"
	for c in "${commands[@]}"; do printf ' %14s' "$(timed_command "$c" "$n")"; done
	printf '\n'
done
