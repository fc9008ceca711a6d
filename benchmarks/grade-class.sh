#!/usr/bin/env bash
# How long `alloclab grade` takes for a class: 30 submissions at level 2,
# 25 that pass (the course's free-list and size-class solutions, each a
# folder made by `alloclab new plugin` with the solution as its source,
# built with meson as a student builds it) and 5 broken, one of each kind
# the grader must survive: a build that fails, a plugin that crashes in a
# case, one that hangs, one that kills the grader's processes, and a file
# named like a bundled plugin. Every submission is built, checked and, where
# it passes, timed against glibc (5 paired processes), each in its sandbox.
# A benchmark that prints figures, not a test.
#   benchmarks/grade-class.sh BUILD OUT [TIMEOUT]
set -euo pipefail
. "$(dirname "$0")/lib.sh"
bench_args "BUILD OUT [TIMEOUT]" "$@"
timeout=${3:-30}
src=$SOURCE_DIR
# What an earlier run left (the class and its grading), not the folder.
rm -rf "$out/class" "$out/grading"
mkdir -p "$out/class"
cd "$out/class"
for i in $(seq -w 1 25); do
	if ((10#$i % 2)); then solution=freelist; else solution=segregated; fi
	"$alloclab" new plugin "s$i" --template "$solution" >/dev/null
	cp "$src/tests/course/$solution.c" "s$i/s$i.c"
done
"$alloclab" new plugin broken-build --template freelist >/dev/null
echo 'this is not C;' >>broken-build/broken-build.c
mkdir crashes hangs killer
cp "$src/tests/plugins/bad_crash_free.c" "$src/tests/plugins/test_plugin_common.h" crashes/
cp "$src/tests/plugins/bad_hang.c" "$src/tests/plugins/test_plugin_common.h" hangs/
cp "$src/tests/grade/killer.c" killer/killer.c
cp "$src/tests/course/bump.c" killer/bump.inc
touch killer/evidence.h
echo 'not the bundled glibc plugin' >system
cd "$out"
start=$(date +%s.%N)
"$alloclab" grade --level 2 --timeout "$timeout" -o "$out/grading" class/* >"$out/table.txt"
end=$(date +%s.%N)
load=$(cut -d' ' -f1-3 /proc/loadavg)
bench_python - "$out" "$start" "$end" "$load" "$timeout" <<'PY'
import sys
from alloclab_json import load
out, start, end, load_average, timeout = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), sys.argv[4], sys.argv[5]
rows = load(f"{out}/grading/grades.json")["rows"]
passing = [r for r in rows if r["passed"]]
good = [r["seconds"] for r in passing]
print(f"{len(rows)} submissions ({len(good)} passed) graded in {end - start:.1f} s "
      f"(--timeout {timeout}; load average after: {load_average})")
if good:
    print(f"a passing submission: {sum(good) / len(good):.1f} s on average (build, {passing[0]['cases_passed']} cases, 5 paired processes)")
for r in rows:
    if not r["passed"]:
        print(f"  {r['name']:<14} {r['seconds']:6.1f} s  {(r['problem'] or r['build_error'] or next((c['case'] + ': ' + c['why'] for c in r['cases'] if c['status'] != 'pass'), ''))[:90]}")
PY
