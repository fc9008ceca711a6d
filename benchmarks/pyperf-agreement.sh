#!/usr/bin/env bash
# Do alloclab's times of a pyperf benchmark file agree with pyperf's own?
# (docs/guides/python.md). A benchmark that prints figures, not a test, for a
# machine where pyperf is installed (Debian 12 does not package it):
#   PYTHON=python3 benchmarks/pyperf-agreement.sh BUILD OUT FILE [ARG...]
# pyperf runs FILE with its own processes (`FILE ARG... -o OUT/pyperf.json`),
# alloclab runs it under the cpython plugin (nothing hooked: CPython's own
# obmalloc, as pyperf's Python has), both on this machine, one after the
# other; the table gives each benchmark's median time per inner loop and
# alloclab / pyperf (the goal: within 10%). alloclab's worker runs inside
# Debian's python3.11 executable (host=python3), the interpreter pyperf
# runs; with host=embedded it embeds the shared libpython, 9 to 34%
# slower (benchmarks/python-embed-cost.sh).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
usage="usage: pyperf-agreement.sh BUILD OUT FILE [ARG...]"
bench_alloclab "${1:?$usage}"
outdir=${2:?$usage}
file=$(realpath "${3:?$usage}")
shift 3
python=${PYTHON:-python3}
if ! "$python" -c 'import pyperf' 2>/dev/null; then
	echo "pyperf is not importable by $python (Debian 12 does not package it): nothing to compare"
	exit 0
fi
bench_out "$outdir"
cd "$out"
rm -f pyperf.json
"$python" "$file" "$@" -o pyperf.json
args=$(IFS=' '; echo "$*")
bench_run alloclab.json --no-check -p cpython -w "python:pyperf=$file${args:+,args=$args}" -t 1 -n 5
bench_show alloclab.json | bench_python -c '
import json, statistics, sys
from alloclab_json import load, values
ours = {}
doc = json.load(sys.stdin)
for c in doc["cells"]:
    vals = values(c)
    name = c["params"].get("name") or c["params"].get("pyperf")
    if vals:
        ours[name] = statistics.median(vals)
ref = load("pyperf.json")
print("%-32s %14s %14s %8s" % ("benchmark", "pyperf ns", "alloclab ns", "ratio"))
for b in ref["benchmarks"]:
    name = b.get("metadata", {}).get("name") or ref.get("metadata", {}).get("name")
    vals = [v for r in b["runs"] for v in r.get("values", [])]
    if not vals or name not in ours:
        print("%-32s (not measured by both)" % name)
        continue
    theirs = statistics.median(vals) * 1e9
    print("%-32s %14.1f %14.1f %8.3f" % (name, theirs, ours[name], ours[name] / theirs))
'
