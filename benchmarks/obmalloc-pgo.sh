#!/usr/bin/env bash
# Does profile-guided optimisation close the radix/CPython time gap?
# (docs/measurements/radix-vs-bigpool.md) Debian's libpython is built
# with PGO; the obmalloc plugins are not. This builds the project a
# second time in BUILD_PGO with meson's own option, -Db_pgo=generate,
# trains it on the bundled workloads against the obmalloc plugins (churn,
# unicode and a replay, at 1 and 2 threads), rebuilds it with
# -Db_pgo=use, and measures its obmalloc-radix beside the ordinary build's
# and CPython's, paired (benchmarks/founding-paired.sh).
#   benchmarks/obmalloc-pgo.sh [BUILD] [PGO_BUILD] [OUT] [processes]
set -euo pipefail
. "$(dirname "$0")/lib.sh"
bench_alloclab "${1:-build}"
pgo=${2:-build-pgo}
bench_out "${3:-alloclab-results/obmalloc-pgo}"
processes=${4:-20}
for log in setup build-generate build-use; do : >"$out/$log.log"; done

# werror off: with -Db_pgo=use, every file that no training run reached
# (the tests) warns that it has no profile.
bench_configure "$pgo" "$SOURCE_DIR" "$out/setup.log" -Dbuildtype=release -Dwerror=false -Db_pgo=generate
bench_ninja "$pgo" "$out/build-generate.log"
# Training: what the plugins' hot paths see in the measurements, once.
for p in obmalloc-radix:mode=none obmalloc-radix:preset=table-64m-16k,mode=none \
	obmalloc-bigpool:preset=table-64m-16k,mode=none obmalloc-radix:mode=per-thread; do
	alloclab=$pgo/cli/alloclab bench_run "$out/training.json" --no-check -p "$p" -w churn -w unicode:rounds=10 \
		-w trace:file=richards.trace -t 1 -n 1
done
bench_configure "$pgo" "$SOURCE_DIR" "$out/setup.log" -Db_pgo=use
bench_ninja "$pgo" "$out/build-use.log" plugins/obmalloc-radix.so plugins/obmalloc-bigpool.so

bash "$BENCH_DIR/founding-paired.sh" "$build" "$out" "$processes" \
	"$(cd "$pgo" && pwd)/plugins/obmalloc-radix.so:mode=none,as=radix-pgo"
