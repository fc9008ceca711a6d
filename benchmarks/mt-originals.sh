#!/usr/bin/env bash
# Do alloclab's multithreaded workloads rank allocators as the original
# programs do, where both can tell? (docs/measurements/multithreaded.md)
# A benchmark that prints figures, not a test, for a user who has the
# originals built outside the project (mimalloc-bench's xmalloc-test,
# larson, cache-thrash and cache-scratch, Hoard's threadtest; the C++ ones
# with -fno-allocation-dce, or GCC 12 removes their new/delete pairs):
#   benchmarks/mt-originals.sh BUILD ORIGINALS_DIR OUT [ROUNDS] [REPEATS]
#
# Both sides at 2 threads, with every allocator's difference measured
# with its 95% interval:
#   - the originals at mimalloc-bench's arguments (xmalloc-test -w 1 -t 5
#     -s 64: one producer and one consumer; larson 5 8 1000 5000 100 4141 2;
#     cache-thrash and cache-scratch 2 1000 1 2000000 2; threadtest 2 50
#     30000 0 1, Hoard's defaults at 2 threads), each under `alloclab exec
#     -p PLUGIN` (what they print on either stream is read), in the paired process design: ROUNDS rounds, each running
#     every allocator once, back to back, in an order drawn per round; a
#     pair's ratio is taken within each round;
#   - alloclab's workloads with the same parameters, paired (`run
#     --paired`, ROUNDS processes a cell).
# A pair of allocators counts where both sides resolve it (its interval
# leaves 1 out); it agrees when both put them in the same order. The
# whole comparison runs REPEATS times (default 2), to show how stable
# the count is.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
usage="usage: mt-originals.sh BUILD ORIGINALS_DIR OUT [ROUNDS] [REPEATS]"
bench_alloclab "${1:?$usage}"
orig=$(cd "${2:?$usage}" && pwd)
bench_out "${3:?$usage}"
rounds=${4:-10}
repeats=${5:-2}
reps=2000000
# obmalloc-radix in its default mode: its own lock around every call, as
# CPython's GIL serialises obmalloc.
plugins=(system jemalloc mimalloc tcmalloc tbbmalloc obmalloc-radix)
cd "$out"

# workload  original command (after the binary)  alloclab's workload
specs=(
	"xmalloc|xmalloc-test -w 1 -t 5 -s 64|xmalloc"
	"larson|larson 5 8 1000 5000 100 4141 2|larson"
	"cache-thrash|cache-thrash 2 1000 1 $reps 2|cache-thrash:writes=$reps"
	"cache-scratch|cache-scratch 2 1000 1 $reps 2|cache-scratch:writes=$reps"
	"threadtest|threadtest 2 50 30000 0 1|threadtest:objects=30000,iterations=50,size=8"
)

# An original's figure, higher is better: frees a second (xmalloc-test),
# operations a second (larson), or runs a second, 1 / its time: threadtest
# prints its time; cache-thrash and cache-scratch print none (mimalloc-bench
# times the whole process), so theirs is the process's wall time as
# `alloclab exec` reports it.
figure() {
	local name=$1 text=$2
	case $name in
	xmalloc) sed -n 's/.*free\/sec: \([0-9.]*\) M.*/\1/p' <<<"$text" ;;
	larson) sed -n 's/.*Throughput = *\([0-9]*\) operations.*/\1/p' <<<"$text" ;;
	threadtest) sed -n 's/.*Time elapsed = *\([0-9.]*\).*/\1/p' <<<"$text" | awk '{ if ($1 > 0) print 1 / $1 }' ;;
	*) sed -n 's/.*exit status 0, wall \([0-9.]*\) s.*/\1/p' <<<"$text" | awk '{ if ($1 > 0) print 1 / $1 }' ;;
	esac
}

for ((rep = 1; rep <= repeats; rep++)); do
	: >"originals-$rep.tsv"
	for ((r = 0; r < rounds; r++)); do
		# This round's order: a shuffle, so that no allocator always
		# runs first or after the same neighbour.
		mapfile -t order < <(printf '%s\n' "${plugins[@]}" | shuf --random-source=<(yes "$rep.$r"))
		for spec in "${specs[@]}"; do
			IFS='|' read -r name cmd _ <<<"$spec"
			read -r -a argv <<<"$cmd"
			[ -x "$orig/${argv[0]}" ] || continue
			for p in "${order[@]}"; do
				text=$(timeout 120 "$alloclab" exec --no-check -p "$p" -- "$orig/${argv[0]}" "${argv[@]:1}" 2>&1 || true)
				printf '%s\t%s\t%s\t%s\n' "$name" "$r" "$p" "$(figure "$name" "$text")" >>"originals-$rep.tsv"
			done
		done
	done
	args=()
	for p in "${plugins[@]}"; do args+=(-p "$p"); done
	for spec in "${specs[@]}"; do
		IFS='|' read -r _ _ wl <<<"$spec"
		args+=(-w "$wl")
	done
	bench_run "alloclab-$rep.json" --no-check --paired "${args[@]}" -t 2 -n "$rounds" 2>"alloclab-$rep.err"

	echo "== repeat $rep of $repeats ($rounds rounds a side)"
	bench_python - "originals-$rep.tsv" "alloclab-$rep.json" "${plugins[@]}" <<'PY'
import itertools, math, sys
from collections import defaultdict
from alloclab_json import label, load
from intervals import mean_half, ratio_interval

def interval(logs):
    """The geometric mean of the ratios and its 95% t interval."""
    return ratio_interval(*mean_half(logs)) if len(logs) >= 2 else None

plugins = sys.argv[3:]
# Originals: a figure per (workload, round, plugin), higher is better.
theirs = defaultdict(dict)
for line in open(sys.argv[1]):
    w, r, p, v = line.rstrip("\n").split("\t")
    if v:
        theirs[(w, int(r))][p] = float(v)
# alloclab: each process's time ratio to the reference; the speed ratio
# of b over a in one process is pair_ratio(a) / pair_ratio(b).
doc = load(sys.argv[2])
ours = defaultdict(dict)
designs = {}
for c in doc["cells"]:
    if c["status"] != "ok" or not c.get("pair_design"):
        continue
    designs[c["workload"]] = c["pair_design"]
    for run in c["runs"]:
        ours[(c["workload"], run["process"])][label(doc, c)] = run["pair_ratio"]

def pair_logs(table, w, a, b, speed_is_figure):
    logs = []
    for (ww, _), figs in table.items():
        if ww == w and a in figs and b in figs:
            # log of b's speed over a's
            logs.append(math.log(figs[b] / figs[a]) if speed_is_figure else math.log(figs[a] / figs[b]))
    return logs

workloads = sorted({w for (w, _) in theirs})
total_both = total_alike = 0
for w in workloads:
    both = alike = only_theirs = only_ours = 0
    lines = []
    for a, b in itertools.combinations(plugins, 2):
        t = interval(pair_logs(theirs, w, a, b, True))
        o = interval(pair_logs(ours, w, a, b, False))
        if t is None or o is None:
            continue
        t_res, o_res = t[1] > 1 or t[2] < 1, o[1] > 1 or o[2] < 1
        only_theirs += t_res and not o_res
        only_ours += o_res and not t_res
        if t_res and o_res:
            both += 1
            same = (t[0] > 1) == (o[0] > 1)
            alike += same
            if not same:
                lines.append(f"    differ: {b} / {a}: original {t[0]:.3f} [{t[1]:.3f} .. {t[2]:.3f}], "
                             f"alloclab {o[0]:.3f} [{o[1]:.3f} .. {o[2]:.3f}]")
    total_both += both
    total_alike += alike
    pct = f"{100 * alike / both:.0f}%" if both else "-"
    print(f"{w:14} {alike:2} of {both:2} pairs resolved on both sides rank alike ({pct}); resolved by the original "
          f"only: {only_theirs}, by alloclab only: {only_ours} (alloclab's design: {designs.get(w, '?')})")
    for line in lines:
        print(line)
if total_both:
    print(f"{'all':14} {total_alike} of {total_both} ({100 * total_alike / total_both:.0f}%)")
PY
	if [ -s "alloclab-$rep.err" ]; then sed 's/^/  alloclab: /' "alloclab-$rep.err"; fi
done
