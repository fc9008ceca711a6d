#!/usr/bin/env bash
# A plugin's history, measured (docs/guides/plugin-history.md): makes a
# small git repository of twelve commits of one size-class allocator
# (tests/fixtures/history/plugin.c, built with meson against the SDK) in
# which commit 4 adds bookkeeping to every malloc (about 2% of the time of
# a call), commit 7 leaves a reserve at the end of each chunk (about 15% of
# the peak resident set), commit 10 takes the bookkeeping back, and the
# other commits change nothing that is compiled (a README, comments, a
# name). Then, timing each:
#   1. history run over all twelve, into a store (it measures the steps
#      of commits 4, 7 and 10: the others load the code of the commit
#      before them, and are shown as "same code");
#   2. history show: the change points found, against the three planted
#      (memory: 7; instructions and time: 4, 7 and 10, for the reserve
#      maps more chunks while the values run, a few instructions an
#      operation), none else;
#   3. history bisect of time from commit 0 to commit 5: commit 4;
#   4. ab across commit 4 with --fail-above 1% (exit 1 expected), and
#      across two commits that change nothing (exit 0 expected).
# A benchmark that prints figures, not a test.
#   benchmarks/plugin-history.sh BUILD OUT [EXTRA_WORK] [SLACK_PERCENT] [-- ab options]
# EXTRA_WORK (default 1) and SLACK_PERCENT (default 15) are commit 4's and
# commit 7's knobs; the ab options (default -w churn -n 200 -v 5) measure
# every step.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
bench_args "BUILD OUT [EXTRA_WORK] [SLACK_PERCENT] [-- ab options]" "$@"
extra=${3:-1}
slack=${4:-15}
shift $(($# < 4 ? $# : 4))
[ "${1:-}" = "--" ] && shift
opts=("$@")
[ ${#opts[@]} -eq 0 ] && opts=(-w churn -n 200 -v 5)
src=$SOURCE_DIR
A=$alloclab
repo="$out/repo"
rm -rf "$repo" "$out/hist" "$out/h.db" "$out/bisect" "$out/ab-change" "$out/ab-same"

say() { bench_say "$@"; }
# TIME_STEP=store: commit 4 adds EXTRA_WORK stores that nothing reads
# instead of counters (each one instruction an operation; a store reads
# nothing, a counter reads and writes).
config() {
	if [ "${TIME_STEP:-counter}" = store ]; then
		printf '#define EXTRA_WORK 0\n#define EXTRA_STORES %s\n#define SLACK_PERCENT %s\n' "$1" "$2" >"$repo/config.h"
	else
		printf '#define EXTRA_WORK %s\n#define SLACK_PERCENT %s\n' "$1" "$2" >"$repo/config.h"
	fi
}
commit() { git -C "$repo" add -A && git -C "$repo" commit -qm "$1"; }

mkdir -p "$repo"
git -C "$repo" init -q
git -C "$repo" config user.email history@example.org
git -C "$repo" config user.name history
cp "$src/tests/fixtures/history/plugin.c" "$repo/plugin.c"
cat >"$repo/meson.build" <<'EOF'
project('sizeclass', 'c', default_options: ['buildtype=release', 'warning_level=2'])
# alloclab's plugin SDK: alloclab puts its alloclab-plugin.pc on PKG_CONFIG_PATH.
shared_module('sizeclass', 'plugin.c', dependencies: dependency('alloclab-plugin'), name_prefix: '')
EOF
config 0 0
commit "a size-class allocator"                                            # 0
echo "A size-class allocator for alloclab." >"$repo/README"; commit "README"  # 1
sed -i '1s|^/\*|/* sizeclass:|' "$repo/plugin.c"; commit "plugin.c: its name in its first line"  # 2
echo "# Built as alloclab builds a plugin folder." >>"$repo/meson.build"; commit "meson.build: a comment"  # 3
config "$extra" 0; commit "count what each malloc serves"                  # 4: time
echo "Counters: bytes served." >>"$repo/README"; commit "README: counters"   # 5
sed -i 's|#define LARGE 0xffffffffu|#define LARGE 0xffffffffu /* a large block'"'"'s class */|' "$repo/plugin.c"
commit "plugin.c: say what LARGE is"                                       # 6
config "$extra" "$slack"; commit "leave a reserve at each chunk's end"    # 7: memory
sed -i '1s|sizeclass:|sizeclass, an alloclab plugin:|' "$repo/plugin.c"; commit "plugin.c: wording"  # 8
echo "Chunks keep a reserve." >>"$repo/README"; commit "README: reserve"    # 9
config 0 "$slack"; commit "drop the counters"                             # 10: time back
echo "No counters." >>"$repo/README"; commit "README: no counters"          # 11
first=$(git -C "$repo" rev-list --max-parents=0 HEAD)
c() { git -C "$repo" rev-parse "HEAD~$((11 - $1))"; }

t0=$(date +%s)
say "history run over 12 commits"
"$A" history run --repo "$repo" "$first..HEAD" --db "$out/h.db" -o "$out/hist" "${opts[@]}" >"$out/run.txt" 2>"$out/run.err" || true
t1=$(date +%s)
"$A" history show --db "$out/h.db" >"$out/show.txt"
"$A" history show --db "$out/h.db" -f json >"$out/show.json"
say "history bisect of time, commits 0..5"
"$A" history bisect --repo "$repo" --good "$(c 0)" --bad "$(c 5)" --metric time -o "$out/bisect" "${opts[@]}" \
	>"$out/bisect.txt" 2>"$out/bisect.err" || true
t2=$(date +%s)
say "ab across commit 4 and across commits 1..2"
set +e
"$A" ab "$(c 3)" "$(c 4)" --repo "$repo" --fail-above 1% -o "$out/ab-change" "${opts[@]}" >"$out/ab-change.txt" 2>&1
change_rc=$?
t3=$(date +%s)
"$A" ab "$(c 1)" "$(c 2)" --repo "$repo" --fail-above 1% -o "$out/ab-same" "${opts[@]}" >"$out/ab-same.txt" 2>&1
same_rc=$?
t4=$(date +%s)
set -e

cat "$out/show.txt"
echo
/usr/bin/python3.11 - "$out/show.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
# Commit 7's reserve maps more chunks while the values run: a few
# instructions an operation, which the count sees and, given processes
# enough, the clock too (a real change of time, not a false one).
planted = {"instructions": {4, 7, 10}, "time": {4, 7, 10}, "memory": {7}}
for s in doc["series"]:
    found = {p["index"] for p in s["points"] if p.get("step", {}).get("change")}
    want = planted[s["metric"]]
    print(f"{s['metric']:12} {s['row']:20} changes at {sorted(found)}; planted {sorted(want)}: "
          f"{'exactly' if found == want else 'MISSED ' + str(sorted(want - found)) if want - found else ''}"
          f"{' FALSE ' + str(sorted(found - want)) if found - want else ''}")
PY
echo
cat "$out/bisect.txt"
echo "commit 4 is $(c 4)"
echo
echo "ab across commit 4, --fail-above 1%: exit $change_rc (1 expected)"
grep -E "^time|^instructions|^peak" "$out/ab-change.txt" || cat "$out/ab-change.txt"
echo "ab across commits 1..2, --fail-above 1%: exit $same_rc (0 expected)"
grep -E "^time|^instructions|^peak" "$out/ab-same.txt" || cat "$out/ab-same.txt"
echo
echo "seconds: history run $((t1 - t0)), bisect $((t2 - t1)), ab across commit 4 $((t3 - t2)), ab without a change $((t4 - t3))"
