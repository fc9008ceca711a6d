#!/usr/bin/env bash
# Do alloclab's memory figures rank allocators as the programs' real
# memory does? (docs/measurements/memory-native.md) A benchmark that prints
# figures, not a test, for a user who has the programs built outside the
# project (mimalloc-bench's mstress, glibc-thread, alloc-test, rptest,
# malloc-large, xmalloc-test, larson, cfrac, espresso, or any others):
#   benchmarks/memory-native.sh BUILD PROGRAMS.tsv OUT [REPEATS]
# PROGRAMS.tsv: one program a line, NAME<TAB>BINARY<TAB>ARGUMENTS<TAB>FOLDER
# (the folder it must run in, or -); a line whose binary is missing is left
# out, and said to be.
#
# Each program runs under glibc, jemalloc, mimalloc and tcmalloc:
#   - natively: the allocator's own library preloaded (Debian's
#     libjemalloc2, libmimalloc2.0, libtcmalloc-minimal4; glibc's malloc
#     without one), its peak resident set by GNU time (wait4's maxrss),
#     REPEATS times, the allocators in an order drawn per repeat;
#   - under alloclab: `run -w exec:cmd=...` with the four as plugins,
#     REPEATS processes a cell, one warm-up (the census) and one value, and
#     alloclab's figures compared per process (`compare --metric rss`, the
#     program's own peak by wait4; `fragmentation`, at the peak, from the
#     census; `kept`, which has no figure under exec).
# A pair of allocators is decided on a side when their medians differ by 3%
# or more; it agrees when both sides decide it the same way. The goal is
# 90% of the pairs decided on both sides. Beside it, the same count on the
# pairs each side resolves: medians 3% apart and a rank test (Mann-Whitney,
# two-sided, exact) at p < 0.05 on the repeats natively and on the
# processes under alloclab (compare's own test): a program whose memory
# varies from run to run as much as between allocators decides nothing.
# With 3 repeats no pair can be resolved (the smallest p is 0.1): give 5.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
usage="usage: memory-native.sh BUILD PROGRAMS.tsv OUT [REPEATS]"
bench_alloclab "${1:?$usage}"
programs=$(cd "$(dirname "${2:?$usage}")" && pwd)/$(basename "$2")
outdir=${3:?$usage}
repeats=${4:-5}
[ -x /usr/bin/time ] || bench_fail "GNU time is needed (apt-get install time)"
libs=/usr/lib/x86_64-linux-gnu
declare -A native=([system]="" [jemalloc]="$libs/libjemalloc.so.2" [mimalloc]="$libs/libmimalloc.so.2"
	[tcmalloc]="$libs/libtcmalloc_minimal.so.4")
allocators=(system jemalloc mimalloc tcmalloc)
for a in "${allocators[@]}"; do
	[ -z "${native[$a]}" ] || [ -f "${native[$a]}" ] || bench_fail "no ${native[$a]}"
done
bench_out "$outdir"
# REPORT_ONLY=1: the tables again from what OUT already holds.
[ "${REPORT_ONLY:-0}" = 1 ] || : >"$out/native.tsv"

# Each line: name, binary, arguments, folder.
mapfile -t lines < <(grep -v '^#' "$programs" | grep -v '^[[:space:]]*$')
names=()
for line in "${lines[@]}"; do
	IFS=$'\t' read -r name bin args dir <<<"$line"
	if [ ! -x "$bin" ]; then
		echo "($name left out: no $bin)" >&2
		continue
	fi
	names+=("$name")
done

run_native() { # name bin args dir allocator
	local dir=$4 pre=${native[$5]} kib
	[ "$dir" = - ] && dir=$out
	# shellcheck disable=SC2086 # the arguments are words, as the suite gives them
	kib=$(cd "$dir" && timeout 300 env ${pre:+LD_PRELOAD=$pre} /usr/bin/time -f '%M' -o "$out/time.out" \
		"$2" $3 >/dev/null 2>&1 && cat "$out/time.out") || kib=-
	printf '%s\t%s\t%s\n' "$1" "$5" "$kib" >>"$out/native.tsv"
}

[ "${REPORT_ONLY:-0}" = 1 ] && repeats=0
for r in $(seq "$repeats"); do
	for line in "${lines[@]}"; do
		IFS=$'\t' read -r name bin args dir <<<"$line"
		[ -x "$bin" ] || continue
		for a in $(printf '%s\n' "${allocators[@]}" | shuf); do
			[ -t 2 ] && printf '\rnative: repeat %s, %s under %s          ' "$r" "$name" "$a" >&2
			run_native "$name" "$bin" "$args" "$dir" "$a"
		done
	done
done
[ -t 2 ] && printf '\r%60s\r' '' >&2

for line in "${lines[@]}"; do
	[ "${REPORT_ONLY:-0}" = 1 ] && break
	IFS=$'\t' read -r name bin args dir <<<"$line"
	[ -x "$bin" ] || continue
	w="exec:cmd=$bin${args:+ $args}"
	[ "$dir" = - ] || w="$w,cwd=$dir"
	bench_say "alloclab: $name"
	bench_run "$out/$name.json" -p system -p jemalloc -p mimalloc -p tcmalloc -w "$w" -t 1 -n "$repeats" -v 1 \
		--warmups 1 --no-check --timeout 600 2>"$out/$name.err" || true
	for m in rss fragmentation kept; do
		bench_compare "$out/$name.$m.json" "$out/$name.json" --plugins system,jemalloc,mimalloc,tcmalloc --metric "$m" \
			2>/dev/null
	done
	# Each pair's own rank test (compare's, on the processes' figures).
	for m in rss fragmentation; do
		for ab in system,jemalloc system,mimalloc system,tcmalloc jemalloc,mimalloc jemalloc,tcmalloc mimalloc,tcmalloc; do
			bench_compare "$out/$name.$m.$ab.json" "$out/$name.json" --plugins "$ab" --metric "$m" 2>/dev/null
		done
	done
done

bench_python - "$out" "${names[@]}" <<'PY'
import itertools, statistics, sys
from alloclab_json import compare_rows
from rank_tests import rank_sum_p

out, names = sys.argv[1], sys.argv[2:]
allocs = ["system", "jemalloc", "mimalloc", "tcmalloc"]
native = {}
for line in open(f"{out}/native.tsv"):
    name, alloc, kib = line.rstrip("\n").split("\t")
    if kib != "-":
        native.setdefault((name, alloc), []).append(float(kib))

def figures(name, metric):
    rows = compare_rows(f"{out}/{name}.{metric}.json")
    return {a: c.get("median") for a, c in rows[0][1].items()} if rows else {}

def alloclab_p(name, metric, a, b):
    rows = compare_rows(f"{out}/{name}.{metric}.{a},{b}.json")
    cols = list(rows[0][1].values()) if rows else []
    return cols[1].get("p") if len(cols) > 1 else None

def side(x, y):
    """+1, -1, or 0 when the two are within 3% (not decided)."""
    if x is None or y is None or x <= 0 or y <= 0:
        return None
    r = x / y
    return 0 if abs(r - 1) < 0.03 else (1 if r > 1 else -1)

metrics = [("rss", "the program's peak (compare --metric rss)"),
           ("fragmentation", "fragmentation at the peak"), ("kept", "kept once freed")]
print("native peak RSS (KiB, medians of the repeats) against alloclab's figures (medians of the processes)")
print("%-14s %-9s %10s %10s %14s %10s" % ("program", "allocator", "native", "rss", "fragmentation", "kept"))
table = {}
for name in names:
    f = {m: figures(name, m) for m, _ in metrics}
    for a in allocs:
        nat = statistics.median(native[(name, a)]) if (name, a) in native else None
        table[(name, a)] = (nat, *(f[m].get(a) for m, _ in metrics))
        row = table[(name, a)]
        fmt = lambda v, p: "-" if v is None or v < 0 else p % v
        print("%-14s %-9s %10s %10s %14s %10s" % (name, a, fmt(row[0], "%.0f"), fmt(row[1], "%.0f"),
                                                 fmt(row[2], "%.2f"), fmt(row[3], "%.0f")))
print()
def judged(name, metric, k, a, b, resolve):
    """Each side's order of a and b: +1/-1, 0 where the medians are within
    3% (or, with resolve, where the rank test does not reach p < 0.05),
    None where a side has no figure."""
    n = side(table[(name, a)][0], table[(name, b)][0])
    x = side(table[(name, a)][k], table[(name, b)][k])
    if resolve:
        if n and rank_sum_p(native.get((name, a), []), native.get((name, b), [])) >= 0.05:
            n = 0
        p = alloclab_p(name, metric, a, b)
        if x and (p is None or p >= 0.05):
            x = 0
    return n, x

def tally(metric, k, resolve):
    """Counts over every program's pairs, and each program's (alike, on both)."""
    t = {"alike": 0, "both": 0, "tied_here": 0, "native": 0, "alloclab": 0, "per": {}}
    for name in names:
        pa = pb = 0
        for a, b in itertools.combinations(allocs, 2):
            n, x = judged(name, metric, k, a, b, resolve)
            t["native"] += bool(n)
            t["alloclab"] += bool(x)
            if n and x == 0:
                t["tied_here"] += 1
            if n and x:
                pb += 1
                pa += n == x
        t["alike"] += pa
        t["both"] += pb
        t["per"][name] = (pa, pb)
    return t

def share(t):
    return "%.0f%%" % (100 * t["alike"] / t["both"]) if t["both"] else "-"

print("pairs resolved on both sides (3% apart and a rank test at p < 0.05 on each side):")
for k, (m, what) in enumerate(metrics[:2], 1):
    t = tally(m, k, True)
    print("%-42s %3d of %3d rank alike (%s); resolved natively %d, by alloclab %d" % (
        what, t["alike"], t["both"], share(t), t["native"], t["alloclab"]))
    print("  " + ", ".join("%s %d/%d" % (name, *t["per"][name]) for name in names))
print()
per_program = {}
for k, (m, what) in enumerate(metrics, 1):
    t = tally(m, k, False)
    counted = [name for name in names if t["per"][name][1]]
    in_order = sum(t["per"][name][0] == t["per"][name][1] for name in counted)
    for name in counted:
        per_program.setdefault(name, []).append("%s %d/%d" % (m, *t["per"][name]))
    print("%-42s %3d of %3d pairs decided on both sides rank alike (%s); decided natively, tied here: %d; "
          "programs in the native order: %d of %d" % (what, t["alike"], t["both"], share(t), t["tied_here"],
                                                      in_order, len(counted)))
print()
print("per program, pairs alike of those decided on both sides:")
for name in names:
    print("  %-14s %s" % (name, ", ".join(per_program.get(name, ["-"]))))
PY
