#!/usr/bin/env bash
# alloclab's times of pyperf benchmark files against the same files run by
# Debian's python3.11 with a stand-in for pyperf's Runner (docs/guides/python.md,
# docs/guides/pyperformance.md). A benchmark that prints figures, not a test, for
# a machine without pyperf (Debian 12 does not package it; with pyperf,
# benchmarks/pyperf-agreement.sh compares with pyperf itself):
#   benchmarks/pyperf-python3.sh BUILD OUT FILE_OR_FOLDER...
# A folder is read as pyperformance's: each bm_*/run_benchmark.py. The
# stand-in does what pyperf's timing does, in one process: loops doubled
# until a value takes 100 ms, one warm-up, the median of 15 values, each
# the time of one inner loop (bench_func, bench_time_func); three such
# processes, the median of their medians. alloclab runs each file under
# the cpython plugin (nothing hooked: CPython's own obmalloc, as python3
# has), 3 processes; the table is each benchmark's median ns and
# alloclab / python3.11.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
usage="usage: pyperf-python3.sh BUILD OUT FILE_OR_FOLDER..."
bench_alloclab "${1:?$usage}"
outdir=${2:?$usage}
shift 2
PY=/usr/bin/python3.11
files=()
for f in "$@"; do
	if [ -d "$f" ]; then
		for b in "$f"/bm_*/run_benchmark.py; do files+=("$(realpath "$b")"); done
	else
		files+=("$(realpath "$f")")
	fi
done
bench_out "$outdir"
mkdir -p "$out/standin/pyperf"
cd "$out"
here=$out
cat >standin/pyperf/__init__.py <<'EOF'
import argparse, json, os, statistics, time

perf_counter = time.perf_counter

class Runner:
    def __init__(self, *args, **kwargs):
        self.argparser = argparse.ArgumentParser()
        self.metadata = {}
        self.args = None

    def parse_args(self, args=None):
        self.args, _ = self.argparser.parse_known_args(args)
        return self.args

    def _measure(self, name, timed, inner):
        loops = 1
        while timed(loops) < 0.1:
            loops *= 2
        timed(loops)
        values = [timed(loops) / (loops * inner) for _ in range(15)]
        with open(os.environ["STANDIN_OUT"], "a") as f:
            f.write(json.dumps({"name": name, "ns": statistics.median(values) * 1e9}) + "\n")

    def bench_func(self, name, func, *args, inner_loops=None, metadata=None):
        def timed(loops):
            t0 = time.perf_counter()
            for _ in range(loops):
                func(*args)
            return time.perf_counter() - t0
        self._measure(name, timed, inner_loops or 1)

    def bench_time_func(self, name, func, *args, inner_loops=None, metadata=None):
        self._measure(name, lambda loops: func(loops, *args), inner_loops or 1)
EOF
rm -f standin.jsonl
specs=()
for f in "${files[@]}"; do
	# Files that need their own command line (pyperformance's manifest
	# gives it) are left out.
	# Three processes, as alloclab's: the median of their medians.
	if (cd "$(dirname "$f")" && for _ in 1 2 3; do
		STANDIN_OUT="$here/standin.jsonl" PYTHONPATH="$here/standin" PYTHONHASHSEED=1 \
			"$PY" "$f" >/dev/null 2>"$here/standin.err" || exit 1
	done); then
		specs+=(-w "python:pyperf=$f,hash_seed=1,profile=no")
	else
		echo "$f: python3.11 with the stand-in failed (left out): $(tail -1 "$here/standin.err")"
	fi
done
bench_run alloclab.json --no-check -p cpython "${specs[@]}" -t 1 -n 3 || true
bench_show alloclab.json | bench_python -c '
import json, statistics, sys
from alloclab_json import values
runs = {}
for line in open("standin.jsonl"):
    r = json.loads(line)
    runs.setdefault(r["name"], []).append(r["ns"])
ref = {name: statistics.median(v) for name, v in runs.items()}
print("%-32s %14s %14s %9s" % ("benchmark", "python3.11 ns", "alloclab ns", "ratio"))
ratios = []
for c in json.load(sys.stdin)["cells"]:
    vals = values(c)
    name = c["params"].get("name")
    if not vals or name not in ref:
        continue
    ours = statistics.median(vals)
    ratios.append(ours / ref[name])
    print("%-32s %14.0f %14.0f %9.3f" % (name, ref[name], ours, ours / ref[name]))
if ratios:
    print("%d rows: ratio median %.3f, from %.3f to %.3f" % (len(ratios), statistics.median(ratios), min(ratios), max(ratios)))'
