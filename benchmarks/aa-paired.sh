#!/usr/bin/env bash
# A/A, paired against unpaired (docs/measurements/paired.md): aa-check.sh's
# "within" plan (system, jemalloc and mimalloc, each beside a second
# instance of itself, churn at five sizes and unicode at two variants, 1
# and 2 threads: 42 rows where nothing differs) measured three times, one
# run after the other: paired in whole values (the default), paired in
# slices of 2,000 operations, and unpaired (each cell in processes of its
# own). For each design: how many rows are called different, the median
# half-width of a row's 95% interval, and how many processes each row
# needed before its interval was within +-1% and +-2% (of at most
# PROCESSES). An A/A cannot show a design's bias (both sides share it):
# see paired-slices.sh and pair-interference.sh for that.
#
# The slices design takes SLICE_VALUES values a process (20 unless given;
# the other two designs the default 3): what is left of its spread is one
# twin slower through a whole value, a draw of that value's layout, and
# more values a process average it (docs/measurements/paired.md).
# REPORT_ONLY=1 reports the output folder's results again without running.
#   benchmarks/aa-paired.sh [BUILD] [OUT] [processes] [slice values]
set -euo pipefail
. "$(dirname "$0")/lib.sh"
[ -n "${REPORT_ONLY:-}" ] || bench_alloclab "${1:-build}"
bench_out "${2:-alloclab-results/aa-paired}"
processes=${3:-20}
slice_values=${4:-20}
plan=(-w churn:max_size=32+64+128+256+512 -w unicode:variant=2chars+32chars -t 1,2 -n "$processes")
for p in system jemalloc mimalloc; do plan+=(-p "$p" -p "$p:as=$p-B"); done

if [ -z "${REPORT_ONLY:-}" ]; then
	t0=$(date +%s)
	bench_run "$out/paired.json" --paired "${plan[@]}"
	t1=$(date +%s)
	bench_run "$out/slices.json" --paired --slice-ops 2000 -v "$slice_values" "${plan[@]}"
	t2=$(date +%s)
	bench_run "$out/unpaired.json" "${plan[@]}"
	t3=$(date +%s)
	echo "paired (whole values): $((t1 - t0)) s; paired (slices, $slice_values values a process): $((t2 - t1)) s;" \
		"unpaired: $((t3 - t2)) s; $processes processes a cell"
fi

bench_python - "$out/paired.json" "$out/slices.json" "$out/unpaired.json" <<'PY'
import json, math, statistics, sys
from alloclab_json import load, ok_cells, process_means, runs
from intervals import mean_half, percent, welch_half

def key(c):
    return (c["workload"], json.dumps(c["params"], sort_keys=True), c["threads"])

def cells(path):
    return ok_cells(load(path), lambda c: (c["plugin"], key(c)))

def half_percent(logs):
    # the 95% interval of the mean log ratio, as a percentage
    return percent(mean_half(logs)[1]) if len(logs) >= 2 else float("inf")

def unpaired_half(a, b):
    # the ratio of two cells' levels (the means of their process means, on a
    # log scale) and its Welch-style 95% interval
    return percent(welch_half([math.log(x) for x in a], [math.log(x) for x in b])[1])

def needed(series, limit):
    # the fewest processes k whose first-k interval is within limit, from 2 on
    for k in range(2, len(series) + 1):
        if series[k - 1] <= limit:
            return k
    return None

def report(name, rows):
    called = sum(1 for r in rows if r["different"])
    halves = [r["half"][-1] for r in rows]
    n1 = [needed(r["half"], 1.0) for r in rows]
    n2 = [needed(r["half"], 2.0) for r in rows]
    reached1 = [k for k in n1 if k]
    reached2 = [k for k in n2 if k]
    print(f"{name:9} {len(rows)} rows: {len(rows) - called} not called different ({100 * (len(rows) - called) / len(rows):.0f}%); "
          f"median interval +-{statistics.median(halves):.2f}% at {len(rows[0]['half'])} processes, largest +-{max(halves):.2f}%")
    print(f"          within +-1%: {len(reached1)} of {len(rows)} rows"
          + (f", after {statistics.median(reached1):.0f} processes (median), {max(reached1)} at most" if reached1 else ""))
    print(f"          within +-2%: {len(reached2)} of {len(rows)} rows"
          + (f", after {statistics.median(reached2):.0f} processes (median), {max(reached2)} at most" if reached2 else ""))
    short = sorted((r for r, k in zip(rows, n1) if not k), key=lambda r: -r["half"][-1])
    if short and len(short) < len(rows):
        named = ", ".join(f"{r['name']} +-{r['half'][-1]:.1f}%" for r in short[:8])
        print(f"          not within +-1% ({len(short)}): {named}" + (", ..." if len(short) > 8 else ""))

def row_name(plugin, c):
    p = c["params"]
    what = f"max_size={p['max_size']}" if c["workload"] == "churn" else p.get("variant", "")
    return f"{plugin} {c['workload']} {what} t={c['threads']}"

def twins(table):
    # each plugin's cell beside its twin's (NAME-B) in the same row
    for (plugin, k), c in table.items():
        twin = table.get((plugin + "-B", k))
        if not plugin.endswith("-B") and twin is not None:
            yield plugin, c, twin

def row(plugin, c, half, m):
    # a row's interval after each number of processes; different where the
    # last leaves 0 (the log of a ratio of 1) out
    h = math.log(1 + half[-1] / 100)
    return {"half": half, "different": m - h > 0 or m + h < 0, "name": row_name(plugin, c)}

def paired_rows(table):
    rows = []
    for plugin, c, twin in twins(table):
        mine = {r["process"]: r["pair_ratio"] for r in c["runs"]}
        logs = [math.log(r["pair_ratio"] / mine[r["process"]]) for r in runs(twin) if r["process"] in mine]
        rows.append(row(plugin, c, [half_percent(logs[:n]) for n in range(1, len(logs) + 1)], statistics.mean(logs)))
    return rows

def unpaired_rows(table):
    rows = []
    for plugin, c, twin in twins(table):
        a, b = process_means(c), process_means(twin)
        half = [unpaired_half(a[:n], b[:n]) if n >= 2 else float("inf") for n in range(1, min(len(a), len(b)) + 1)]
        m = statistics.mean(math.log(x) for x in b) - statistics.mean(math.log(x) for x in a)
        rows.append(row(plugin, c, half, m))
    return rows

report("values", paired_rows(cells(sys.argv[1])))
report("slices", paired_rows(cells(sys.argv[2])))
report("unpaired", unpaired_rows(cells(sys.argv[3])))
PY
