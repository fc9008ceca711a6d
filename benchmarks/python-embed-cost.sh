#!/usr/bin/env bash
# What the python workload's embedded interpreter costs against CPython run
# as `python3` (docs/guides/python.md). A benchmark that prints figures, not a test:
# each bundled benchmark's bench(loops) is timed four ways on this machine,
# one after the other:
#   python3.11   Debian's /usr/bin/python3.11 (libpython linked in statically)
#   embedder     a one-line C program around Debian's libpython3.11.so
#                (Py_BytesMain), built into OUT: the shared library alone
#   alloclab     alloclab run -p cpython (nothing hooked), median ns a loop:
#                host=python3, the worker inside the python3.11 executable
#                (the default), and host=embedded, embedding the library
# and the ratios say how alloclab's default compares with python3, and how
# much of the embedded way's time is the shared library and how much the
# harness.
#   benchmarks/python-embed-cost.sh BUILD OUT [BENCH...]
set -euo pipefail
. "$(dirname "$0")/lib.sh"
bench_args "BUILD OUT [BENCH...]" "$@"
shift 2
benches=("$@")
((${#benches[@]})) || benches=(float nqueens json_dumps deepcopy richards generators)
src="$SOURCE_DIR/workloads/python/bench"
PY=/usr/bin/python3.11
cd "$out"

printf '#include <Python.h>\nint main(int argc, char **argv) { return Py_BytesMain(argc, argv); }\n' >embed.c
# shellcheck disable=SC2046 # python3.11-config prints flags to split
cc -O2 $(/usr/bin/python3.11-config --cflags --embed) embed.c -o embed $(/usr/bin/python3.11-config --ldflags --embed)

# timer.py FILE: bench(loops) with loops calibrated to 100 ms a value, one
# warm-up, the median of 15 values, in ns a loop (alloclab's unit).
cat >timer.py <<'EOF'
import statistics, sys, time
g = {"SCALE": 1.0, "__name__": "__alloclab__", "__file__": sys.argv[1]}
exec(compile(open(sys.argv[1]).read(), sys.argv[1], "exec"), g)
bench = g["bench"]
def timed(loops):
    t0 = time.perf_counter()
    bench(loops)
    return time.perf_counter() - t0
loops = 1
while timed(loops) < 0.1:
    loops *= 2
timed(loops)
print("%.0f" % (statistics.median(timed(loops) / loops for _ in range(15)) * 1e9))
EOF

specs=$(IFS=+; echo "${benches[*]}")
bench_run embed-cost.json --no-check -p cpython -w "python:bench=$specs,profile=no,hash_seed=1,host=python3" \
	-w "python:bench=$specs,profile=no,hash_seed=1,host=embedded" -t 1 -n 3
declare -A ours
while read -r key ns; do ours[$key]=$ns; done < <(bench_show embed-cost.json | bench_python -c '
import json, statistics, sys
from alloclab_json import values
for c in json.load(sys.stdin)["cells"]:
    vals = values(c)
    if vals:
        print(c["params"]["bench"] + "/" + c["params"]["host"], "%.0f" % statistics.median(vals))')

printf '%-14s %14s %14s %14s %14s %10s %10s %10s\n' benchmark "python3.11 ns" "embedder ns" "alloclab ns" \
	"embedded ns" "alloc/py" "emb/py" "embd/emb"
for b in "${benches[@]}"; do
	p=$(PYTHONHASHSEED=1 $PY timer.py "$src/$b.py")
	e=$(PYTHONHASHSEED=1 ./embed timer.py "$src/$b.py")
	a=${ours[$b/python3]:-}
	d=${ours[$b/embedded]:-}
	if [ -z "$a" ] || [ -z "$d" ]; then
		echo "$b: alloclab measured nothing (see embed-cost.json)"
		continue
	fi
	printf '%-14s %14s %14s %14s %14s %10.3f %10.3f %10.3f\n' "$b" "$p" "$e" "$a" "$d" "$(bench_calc "$a / $p")" \
		"$(bench_calc "$e / $p")" "$(bench_calc "$d / $e")"
done
