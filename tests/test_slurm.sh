#!/usr/bin/env bash
# A sweep through a real Slurm cluster (a one-node cluster on this host,
# tests/slurm_cluster.sh): alloclab slurm submits 4 shards and their merge;
# the merge has every cell with all its processes, compare reads it, and a
# local run of the same plan has the same cells and process counts; a
# shard cancelled on purpose is reported missing, and measuring it again
# completes the merge. TAP; where a cluster cannot start here the whole
# test is skipped with the reason (a plan of 0 tests), never passed.
set -uo pipefail
# Measured as alloclab's users measure: not with the MALLOC_PERTURB_ meson
# gives every test (glibc would fill every block it hands out).
unset MALLOC_PERTURB_
A=${ALLOCLAB_EXE:?ALLOCLAB_EXE names the alloclab to test}
here=$(cd "$(dirname "$0")" && pwd)
py=/usr/bin/python3
work=$(mktemp -d /tmp/alloclab-slurm-test-XXXXXX)
cluster="$work/cluster"

cleanup() {
	"$here/slurm_cluster.sh" stop "$cluster"
	rm -rf "$work"
}
trap cleanup EXIT

if ! conf=$("$here/slurm_cluster.sh" start "$cluster"); then
	echo "1..0 # SKIP ${conf:-the cluster did not start}"
	exit 0
fi
export SLURM_CONF="$conf"
echo "1..10"
n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
fail() {
	n=$((n + 1))
	echo "not ok $n - $1"
	shift
	for f in "$@"; do [ -f "$f" ] && sed 's/^/# /' "$f" | tail -30; done
}

# Waits up to $2 seconds for file $1.
wait_for() {
	for _ in $(seq $(($2 * 5))); do [ -e "$1" ] && return 0; sleep 0.2; done
	return 1
}

# Waits until no task of job $1 is pending or running.
wait_array() {
	for _ in $(seq 600); do
		left=$(squeue -h -r -j "$1" -t PENDING,RUNNING,CONFIGURING,COMPLETING -o %i 2>/dev/null | grep -c "^$1_" || true)
		[ "$left" = 0 ] && return 0
		sleep 0.2
	done
	return 1
}

args=(-p system -p mimalloc -w churn:ops=20000 -t 1,2 -n 4 -v 2 --warmups 0 --no-check -q)

# 1-2: a sweep of 4 shards and its merge.
cd "$work" || exit 1
if "$A" slurm --shards 4 -o "$work/sweep" -- "${args[@]}" >"$work/submit.out" 2>&1 &&
	grep -q "submitted 4 shards as job" "$work/submit.out"; then
	ok "alloclab slurm submits 4 shards and their merge"
else
	fail "alloclab slurm submits 4 shards and their merge" "$work/submit.out"
fi
job=$(sed -n 's/.*as job \([0-9]*\) (array.*/\1/p' "$work/submit.out")
if wait_for "$work/sweep/merged.json" 180 && sleep 1 && "$A" show "$work/sweep/merged.json" >/dev/null 2>&1; then
	ok "the merge job writes merged.json"
else
	fail "the merge job writes merged.json" "$work/submit.out" "$work/sweep/logs/merge.out" "$work/sweep/logs/shard-1.out"
fi

# 3: every cell, every process, from 4 shards.
check_whole() {
	"$A" show --format json "$1" | $py -c '
import json, sys
d = json.load(sys.stdin)
assert len(d["cells"]) == 4, len(d["cells"])
for c in d["cells"]:
    assert c["status"] == "ok", c.get("error", c["status"])
    assert sorted(r["process"] for r in c["runs"]) == [0, 1, 2, 3], [r["process"] for r in c["runs"]]
    assert all(len(r["values"]) == 2 and r.get("host") for r in c["runs"])
m = d["metadata"]["merged"]
assert m["count"] == 4 and m["missing"] == [] and m["incomplete"] == [], m
assert sorted(s["index"] for s in d["metadata"]["shards"]) == [1, 2, 3, 4]
' 2>"$work/check.err"
}
if check_whole "$work/sweep/merged.json"; then
	ok "the merged file has every cell with all its processes"
else
	fail "the merged file has every cell with all its processes" "$work/check.err"
fi

# 4: compare reads it.
if "$A" compare "$work/sweep/merged.json" --plugins system,mimalloc >"$work/compare.out" 2>&1 &&
	grep -q "churn" "$work/compare.out"; then
	ok "compare runs on the merged file"
else
	fail "compare runs on the merged file" "$work/compare.out"
fi

# 5: the same plan run here without Slurm: the same cells and process counts.
"$A" run "${args[@]}" -o "$work/local.json" >/dev/null 2>&1
shape() {
	"$A" show --format json "$1" | $py -c '
import json, sys
d = json.load(sys.stdin)
for c in d["cells"]:
    print(c["plugin"], c["workload"], json.dumps(c["params"], sort_keys=True), c["threads"], c["status"], len(c["runs"]))'
}
if [ -s "$work/local.json" ] && [ "$(shape "$work/local.json")" = "$(shape "$work/sweep/merged.json")" ]; then
	ok "a local run of the plan has the same cells and process counts"
else
	shape "$work/local.json" >"$work/local.shape" 2>&1
	shape "$work/sweep/merged.json" >"$work/merged.shape" 2>&1
	fail "a local run of the plan has the same cells and process counts" "$work/local.shape" "$work/merged.shape"
fi

# 6: status from the shards' files.
if "$A" slurm status "$work/sweep" >"$work/status.out" 2>&1 && [ "$(grep -c ': done, ' "$work/status.out")" = 4 ] &&
	grep -q "merged:" "$work/status.out"; then
	ok "slurm status shows every shard done and the merge"
else
	fail "slurm status shows every shard done and the merge" "$work/status.out"
fi

# 7-10: a shard cancelled on purpose.
"$A" slurm --shards 4 -o "$work/sweep2" -- "${args[@]}" >"$work/submit2.out" 2>&1
job2=$(sed -n 's/.*as job \([0-9]*\) (array.*/\1/p' "$work/submit2.out")
merge2=$(sed -n 's/.*merge as job \([0-9]*\),.*/\1/p' "$work/submit2.out")
scancel "${job2}_2" 2>/dev/null
wait_array "$job2"
scancel "$merge2" 2>/dev/null # its dependency can no longer be met
"$A" slurm status "$work/sweep2" >"$work/status2.out" 2>&1
if grep -Eq "shard 2: (not started|running or stopped|interrupted)" "$work/status2.out" &&
	[ "$(grep -c ': done, ' "$work/status2.out")" = 3 ]; then
	ok "slurm status shows the cancelled shard as not done"
else
	fail "slurm status shows the cancelled shard as not done" "$work/status2.out" "$work/submit2.out"
fi
cd "$work/sweep2" || exit 1
shards=()
for k in 1 2 3 4; do [ -e "shard-$k.json" ] && shards+=("shard-$k.json"); done
"$A" merge -o merged.json "${shards[@]}" >"$work/merge2.out" 2>&1
rc=$?
if [ "$rc" = 1 ] && grep -Eq "shard 2 of 4 (is missing|.*did not finish)" "$work/merge2.out"; then
	ok "merge reports the missing shard by its index (exit 1)"
else
	fail "merge reports the missing shard by its index (exit 1, got $rc)" "$work/merge2.out"
fi
rerun=$(grep -A1 "shard 2 of 4" "$work/merge2.out" | tail -1)
if [ -n "$rerun" ] && eval "$rerun" >"$work/rerun.out" 2>&1 && [ -s shard-2.json ]; then
	ok "the printed command measures the missing shard"
else
	fail "the printed command measures the missing shard: $rerun" "$work/rerun.out"
fi
if "$A" merge -o merged.json shard-1.json shard-2.json shard-3.json shard-4.json >"$work/merge3.out" 2>&1 &&
	check_whole merged.json; then
	ok "with the shard measured again, the merge is whole"
else
	fail "with the shard measured again, the merge is whole" "$work/merge3.out" "$work/check.err"
fi
: "$job"
