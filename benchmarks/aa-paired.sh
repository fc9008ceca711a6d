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
#   benchmarks/aa-paired.sh [alloclab] [output folder] [processes] [slice values]
set -euo pipefail
alloclab=${1:-build/cli/alloclab}
out=${2:-alloclab-results/aa-paired}
processes=${3:-20}
slice_values=${4:-20}
mkdir -p "$out"
plan=(-w churn:max_size=32+64+128+256+512 -w unicode:variant=2chars+32chars -t 1,2 -n "$processes" -q)
for p in system jemalloc mimalloc; do plan+=(-p "$p" -p "$p:as=$p-B"); done

if [ -z "${REPORT_ONLY:-}" ]; then
	t0=$(date +%s)
	"$alloclab" run --paired "${plan[@]}" -o "$out/paired.json" >/dev/null
	t1=$(date +%s)
	"$alloclab" run --paired --slice-ops 2000 -v "$slice_values" "${plan[@]}" -o "$out/slices.json" >/dev/null
	t2=$(date +%s)
	"$alloclab" run "${plan[@]}" -o "$out/unpaired.json" >/dev/null
	t3=$(date +%s)
	echo "paired (whole values): $((t1 - t0)) s; paired (slices, $slice_values values a process): $((t2 - t1)) s;" \
		"unpaired: $((t3 - t2)) s; $processes processes a cell"
fi

/usr/bin/python3.11 - "$out/paired.json" "$out/slices.json" "$out/unpaired.json" <<'PY'
import json, math, statistics, sys

T95 = [0, 12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145,
       2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042]
def t95(df):
    return T95[df] if df < len(T95) else 2.0

def key(c):
    return (c["workload"], json.dumps(c["params"], sort_keys=True), c["threads"])

def cells(path):
    doc = json.load(open(path))
    return {(c["plugin"], key(c)): c for c in doc["cells"] if c["status"] == "ok"}

def half_percent(logs):
    # the 95% interval of the mean log ratio, as a percentage
    n = len(logs)
    return 100 * (math.exp(t95(n - 1) * statistics.stdev(logs) / math.sqrt(n)) - 1) if n >= 2 else float("inf")

def unpaired_half(a, b):
    # the ratio of two cells' levels (the means of their process means, on a
    # log scale) and its Welch-style 95% interval
    la, lb = [math.log(x) for x in a], [math.log(x) for x in b]
    se = math.sqrt(statistics.variance(la) / len(la) + statistics.variance(lb) / len(lb))
    return 100 * (math.exp(t95(min(len(la), len(lb)) - 1) * se) - 1)

def mean_of(run):
    return statistics.mean(v["ns_per_op"] for v in run["values"])

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

def paired_rows(table):
    rows = []
    for (plugin, k), c in table.items():
        if plugin.endswith("-B"):
            continue
        twin = table.get((plugin + "-B", k))
        if twin is None:
            continue
        mine = {r["process"]: r["pair_ratio"] for r in c["runs"]}
        logs = [math.log(r["pair_ratio"] / mine[r["process"]]) for r in sorted(twin["runs"], key=lambda r: r["process"])
                if r["process"] in mine]
        half = [half_percent(logs[:n]) for n in range(1, len(logs) + 1)]
        m, h = statistics.mean(logs), math.log(1 + half[-1] / 100)
        rows.append({"half": half, "different": m - h > 0 or m + h < 0, "name": row_name(plugin, c)})
    return rows

def unpaired_rows(table):
    rows = []
    for (plugin, k), c in table.items():
        if plugin.endswith("-B"):
            continue
        twin = table.get((plugin + "-B", k))
        if twin is None:
            continue
        a = [mean_of(r) for r in sorted(c["runs"], key=lambda r: r["process"])]
        b = [mean_of(r) for r in sorted(twin["runs"], key=lambda r: r["process"])]
        half = [unpaired_half(a[:n], b[:n]) if n >= 2 else float("inf") for n in range(1, min(len(a), len(b)) + 1)]
        m = statistics.mean(math.log(x) for x in b) - statistics.mean(math.log(x) for x in a)
        h = math.log(1 + half[-1] / 100)
        rows.append({"half": half, "different": m - h > 0 or m + h < 0, "name": row_name(plugin, c)})
    return rows

report("values", paired_rows(cells(sys.argv[1])))
report("slices", paired_rows(cells(sys.argv[2])))
report("unpaired", unpaired_rows(cells(sys.argv[3])))
PY
