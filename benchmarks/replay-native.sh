#!/usr/bin/env bash
# Does a replay of a shipped trace say what CPython itself says?
# (docs/measurements/replays.md) For each Python benchmark whose trace ships
# (richards, json_dumps, nbody, deltablue):
#   1. natively: Debian's python3.11 runs the benchmark, PYTHONMALLOC=pymalloc
#      against =malloc, in PAIRS alternated process pairs, three untimed
#      warm-up values then ten timed ones of as many iterations as one window
#      of the trace (native_python.py): the steady state's CPU time ratio
#      with its 95% interval, page faults per 1,000 allocator calls (the
#      calls an iteration makes, from the trace), and with CALLGRIND=1 the
#      sign of the instruction difference per iteration;
#   2. replayed: the `cpython` plugin (libpython's own obmalloc) against
#      `system` (glibc), paired, PAIRS processes, the trace's steady state
#      (part=steady) and, for contrast, the whole recording (part=whole):
#      ratio, interval, faults per 1,000 operations;
#   3. whether the replay's direction agrees with the native one (or either
#      is not resolved), per benchmark.
# A benchmark that prints figures, not a test.
#   benchmarks/replay-native.sh [BUILD] [OUT] [PAIRS]
set -euo pipefail
. "$(dirname "$0")/lib.sh"
bench_args "[BUILD] [OUT] [PAIRS]" "$@"
pairs=${3:-10}
case "$pairs" in '' | *[!0-9]*) bench_fail "PAIRS: $pairs is not a whole number" ;; esac
[ "$pairs" -ge 2 ] || bench_fail "PAIRS: at least 2"
[ -x /usr/bin/python3.11 ] || bench_fail "Debian's python3.11 is needed (apt-get install python3.11)"
# Iterations a value, as traces/meson.build records each benchmark's windows.
declare -A loops=([richards]=6 [json_dumps]=1 [nbody]=20 [deltablue]=2)
callgrind=()
if [ "${CALLGRIND:-0}" = 1 ]; then callgrind=(--callgrind --callgrind-values 2,4); fi

for b in richards json_dumps nbody deltablue; do
	trace=$build/traces/$b.trace
	[ -f "$trace" ] || bench_fail "$trace: not built (a build with Python, its traces)"
	bench_say "$b: natively"
	bench_python "$BENCH_DIR/native_python.py" --pairs "$pairs" --warmups 3 --values 10 \
		--loops "${loops[$b]}" "${callgrind[@]}" -o "$out/$b.native.json" \
		"$SOURCE_DIR/workloads/python/bench/$b.py"
	bench_say "$b: replayed"
	bench_run "$out/$b.replay.json" --paired -p system -p cpython -w "trace:file=$trace,part=steady+whole" \
		-t 1 -n "$pairs"
	bench_show "$out/$b.replay.json" >"$out/$b.replay.shown.json"
	bench_compare "$out/$b.compare.json" "$out/$b.replay.json" --plugins system,cpython
done

given=()
for b in "${!loops[@]}"; do given+=("$b=${loops[$b]}"); done
bench_python - "$out" "${given[@]}" <<'PY'
import json, math, os, statistics, sys
import alloclab_json as aj

out = sys.argv[1]
loops = {k: int(v) for k, v in (a.split("=") for a in sys.argv[2:])}


def direction(lo, hi):
    return "faster" if hi < 1 else "slower" if lo > 1 else "not resolved"


print(f"{'benchmark':11} {'native pymalloc/malloc':>30} {'faults/k calls':>15} {'instructions':>15}   "
      f"{'replay cpython/system':>30} {'faults/kop':>13}   {'whole replay':>22}  agrees")
for b in ["richards", "json_dumps", "nbody", "deltablue"]:
    native = aj.load(os.path.join(out, f"{b}.native.json"))["summary"]
    shown = aj.load(os.path.join(out, f"{b}.replay.shown.json"))
    rows = aj.compare_rows(os.path.join(out, f"{b}.compare.json"))
    st = native["steady_cpu_per_iteration"]
    # The allocator calls of one iteration: a window's events (a value's
    # operations, steady part) over the iterations a window holds.
    cells = {(aj.label(shown, c), c["params"]["part"]): c for c in shown["cells"] if c["status"] == "ok"}
    ops = statistics.median(sum(v["thread_ops"]) for r in cells[("system", "steady")]["runs"] for v in r["values"])
    calls = ops / loops[b]
    nf = native["minor_faults_timed"]
    nfk = {m: 1000 * nf[m]["per_iteration"] / calls for m in ("pymalloc", "malloc")}
    instr = native.get("callgrind", {}).get("sign", "-")
    rep = {}
    for row, cols in rows:
        c = cols.get("cpython")
        base = cols.get("system")
        if c and "ratio" in c and c.get("interval"):
            rep[row["params"]["part"]] = (c["ratio"], c["interval"][0], c["interval"][1],
                                          c.get("faults_per_1000_ops", float("nan")),
                                          base.get("faults_per_1000_ops", float("nan")))
    s = rep.get("steady")
    w = rep.get("whole")
    nd = direction(st["low"], st["high"])
    sd = direction(s[1], s[2]) if s else "-"
    agrees = "yes" if s and (nd == sd or "not resolved" in (nd, sd)) else "NO"
    ntxt = f'{st["ratio"]:.3f} [{st["low"]:.3f}..{st["high"]:.3f}]'
    stxt = f"{s[0]:.3f} [{s[1]:.3f}..{s[2]:.3f}]" if s else "-"
    wtxt = f"{w[0]:.3f} ({w[3]:.3f} f/kop)" if w else "-"
    print(f"{b:11} {ntxt:>30} {nfk['pymalloc']:6.4f}/{nfk['malloc']:6.4f} {instr:>15}   {stxt:>30} "
          f"{s[3] if s else float('nan'):6.3f}/{s[4] if s else float('nan'):6.3f}   {wtxt:>22}  {agrees}")
print()
print("native: steady-state CPU time per iteration, pymalloc over malloc, geometric mean of the process pairs'")
print("ratios [95% interval]; faults/k calls: page faults over the timed values per 1,000 allocator calls,")
print("pymalloc/malloc; instr: the sign of pymalloc's instructions per iteration minus malloc's (CALLGRIND=1).")
print("replay: the trace's steady state, cpython over system paired in the same processes; faults/kop per")
print("1,000 operations, cpython/system; whole replay: the whole recording each value (start-up, teardown).")
PY
