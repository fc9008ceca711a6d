#!/usr/bin/env bash
# A plugin's history on an allocator the history tests never measured, as
# an outside tester checks it (docs/guides/plugin-history.md): the same
# stages as plugin-history.sh, on a different allocator, so that what they
# find is not tuned to the one they were written against. Makes a git
# repository of ten commits of a per-thread segregated free-list allocator
# whose blocks carry headers (tests/fixtures/history/headers.c, built with
# meson against the SDK), in which commit 6 adds one store that nothing
# reads to every malloc (EXTRA_STORES: churn's 98 instructions an
# operation become 99, 1.02%, just over the gate's 1%; about 1% of the
# time), commit 8 pads every block by 48 bytes (PADDING: 10 to 16% of
# churn's peak resident set in small runs), and the other commits change
# nothing that is compiled (a README, comments: the plugin's file is the
# same, byte for byte, at commits 0 to 5). Then, timing each:
#   1. history run over all ten, into a store (it measures the steps of
#      commits 6 and 8: the others load the code of the commit before
#      them, and are shown as "same code");
#   2. history show: the change points found, against the two planted;
#   3. history bisect of time from commit 4 to commit 7: commit 6;
#   4. ab across commit 6 with --fail-above 1% (exit 1 expected), and
#      across two commits that change nothing (exit 0 expected);
# and the load average before and after, for a time step this small is
# resolved or not by what else the machine runs.
# A benchmark that prints figures, not a test.
#   benchmarks/history-unseen.sh BUILD OUT [-- ab options]
# The ab options (default -w churn -n 200 -v 5, as plugin-history.sh's)
# measure every step.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
bench_args "BUILD OUT [-- ab options]" "$@"
shift 2
if [ $# -gt 0 ]; then
	[ "$1" = "--" ] || bench_fail "$usage"
	shift
fi
opts=("$@")
[ ${#opts[@]} -eq 0 ] && opts=(-w churn -n 200 -v 5)
src=$SOURCE_DIR
A=$alloclab
repo="$out/repo"
rm -rf "$repo" "$out/hist" "$out/h.db" "$out/bisect" "$out/ab-change" "$out/ab-same"

say() { bench_say "$@"; }
config() {
	printf '#define EXTRA_STORES %s\n#define PADDING %s\n' "$1" "$2" >"$repo/config.h"
}
commit() { git -C "$repo" add -A && git -C "$repo" commit -qm "$1"; }

mkdir -p "$repo"
git -C "$repo" init -q
git -C "$repo" config user.email history@example.org
git -C "$repo" config user.name history
cp "$src/tests/fixtures/history/headers.c" "$repo/headers.c"
cat >"$repo/meson.build" <<'EOF'
project('headers', 'c', default_options: ['buildtype=release', 'warning_level=2'])
# alloclab's plugin SDK: alloclab puts its alloclab-plugin.pc on PKG_CONFIG_PATH.
shared_module('headers', 'headers.c', dependencies: [dependency('alloclab-plugin'), dependency('threads')],
  name_prefix: '')
EOF
config 0 0
commit "a per-thread free-list allocator"                                     # 0
echo "A per-thread free-list allocator for alloclab." >"$repo/README"; commit "README"  # 1
sed -i '1s|^/\*|/* headers:|' "$repo/headers.c"; commit "headers.c: its name in its first line"  # 2
echo "# Built as alloclab builds a plugin folder." >>"$repo/meson.build"; commit "meson.build: a comment"  # 3
echo "Blocks carry a 16-byte header." >>"$repo/README"; commit "README: headers"  # 4
sed -i 's|^#define LARGE 0xffffffffu$|#define LARGE 0xffffffffu /* a large block'"'"'s class */|' "$repo/headers.c"
commit "headers.c: say what LARGE is"                                         # 5
config 1 0; commit "a store in every malloc"                                  # 6: time
echo "Every malloc stores its size once." >>"$repo/README"; commit "README: the store"  # 7
config 1 48; commit "pad every block"                                         # 8: memory
sed -i '1s|headers:|headers, an alloclab plugin:|' "$repo/headers.c"; commit "headers.c: wording"  # 9
[ "$(git -C "$repo" rev-list --count HEAD)" -eq 10 ] || bench_fail "the repository has not ten commits"
first=$(git -C "$repo" rev-list --max-parents=0 HEAD)
c() { git -C "$repo" rev-parse "HEAD~$((9 - $1))"; }

load0=$(cut -d' ' -f1-3 /proc/loadavg)
t0=$(date +%s)
say "history run over 10 commits"
"$A" history run --repo "$repo" "$first..HEAD" --db "$out/h.db" -o "$out/hist" "${opts[@]}" >"$out/run.txt" 2>"$out/run.err" || true
t1=$(date +%s)
"$A" history show --db "$out/h.db" >"$out/show.txt"
"$A" history show --db "$out/h.db" -f json >"$out/show.json"
t2=$(date +%s)
say "history bisect of time, commits 4..7"
"$A" history bisect --repo "$repo" --good "$(c 4)" --bad "$(c 7)" --metric time -o "$out/bisect" "${opts[@]}" \
	>"$out/bisect.txt" 2>"$out/bisect.err" || true
t3=$(date +%s)
say "ab across commit 6 and across commits 1..2"
set +e
"$A" ab "$(c 5)" "$(c 6)" --repo "$repo" --fail-above 1% -o "$out/ab-change" "${opts[@]}" >"$out/ab-change.txt" 2>&1
change_rc=$?
t4=$(date +%s)
"$A" ab "$(c 1)" "$(c 2)" --repo "$repo" --fail-above 1% -o "$out/ab-same" "${opts[@]}" >"$out/ab-same.txt" 2>&1
same_rc=$?
t5=$(date +%s)
set -e
load1=$(cut -d' ' -f1-3 /proc/loadavg)

cat "$out/show.txt"
echo
bench_python - "$out/show.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
planted = {"instructions": {6}, "time": {6}, "memory": {8}}
# Commit 8's padding is an immediate in the class's arithmetic and the
# small blocks' limit, and it moves every request up by three classes
# alike: which requests carve, and so every operation's count, stay as
# they were (instructions: 6 only). But churn's blocks, 280 bytes on
# average, take 48 more, so more cache misses an operation: a real change
# of time where the heap outgrows a cache (5 to 7% in small runs on the
# 2-core machine), none where it fits either way. So time may change at 8
# too, and that is neither missed nor false.
may = {"time": {8}}
for s in doc["series"]:
    found = {p["index"] for p in s["points"] if p.get("step", {}).get("change")}
    want, allowed = planted[s["metric"]], may.get(s["metric"], set())
    missed, false, also = want - found, found - want - allowed, found & allowed
    verdict = "exactly" if not missed and not false else ""
    verdict += f"MISSED {sorted(missed)}" if missed else ""
    verdict += f" FALSE {sorted(false)}" if false else ""
    verdict += f" (and {sorted(also)}: the padding's cache misses)" if also else ""
    print(f"{s['metric']:12} {s['row']:20} changes at {sorted(found)}; planted {sorted(want)}: {verdict}")
PY
echo
cat "$out/bisect.txt"
echo "commit 6 is $(c 6)"
echo
echo "ab across commit 6, --fail-above 1%: exit $change_rc (1 expected)"
grep -E "^time|^instructions|^peak" "$out/ab-change.txt" || cat "$out/ab-change.txt"
echo "ab across commits 1..2, --fail-above 1%: exit $same_rc (0 expected)"
grep -E "^time|^instructions|^peak" "$out/ab-same.txt" || cat "$out/ab-same.txt"
echo
echo "seconds: history run $((t1 - t0)), show $((t2 - t1)), bisect $((t3 - t2)), ab across commit 6 $((t4 - t3)),"\
	"ab without a change $((t5 - t4)); load average before $load0, after $load1"
