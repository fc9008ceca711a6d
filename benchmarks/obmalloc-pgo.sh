#!/usr/bin/env bash
# Does profile-guided optimisation close the radix/CPython time gap?
# (docs/measurements/radix-vs-bigpool.md) Debian's libpython is built
# with PGO; the obmalloc plugins are not. This builds the project a
# second time in BUILD_PGO with meson's own option, -Db_pgo=generate,
# trains it on the bundled workloads against the obmalloc plugins (churn,
# unicode and a replay, at 1 and 2 threads), rebuilds it with
# -Db_pgo=use, and measures its obmalloc-radix beside the ordinary build's
# and CPython's, paired (benchmarks/founding-paired.sh).
#   benchmarks/obmalloc-pgo.sh [build folder] [PGO build folder] [output folder] [processes]
set -euo pipefail
build=${1:-build}
pgo=${2:-build-pgo}
out=${3:-alloclab-results/obmalloc-pgo}
processes=${4:-20}
here=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out"

# werror off: with -Db_pgo=use, every file that no training run reached
# (the tests) warns that it has no profile.
if [ ! -d "$pgo" ]; then
	meson setup "$pgo" "$here" --buildtype=release -Dwerror=false -Db_pgo=generate >"$out/setup.log"
else
	meson configure "$pgo" -Dwerror=false -Db_pgo=generate >"$out/setup.log"
fi
ninja -C "$pgo" >"$out/build-generate.log"
# Training: what the plugins' hot paths see in the measurements, once.
for p in obmalloc-radix:mode=none obmalloc-radix:preset=table-64m-16k,mode=none \
	obmalloc-bigpool:preset=table-64m-16k,mode=none obmalloc-radix:mode=per-thread; do
	"$pgo/cli/alloclab" run -q --no-check -p "$p" -w churn -w unicode:rounds=10 -w trace:file=richards.trace \
		-t 1 -n 1 -o "$out/training.json" >/dev/null
done
meson configure "$pgo" -Db_pgo=use >>"$out/setup.log"
ninja -C "$pgo" plugins/obmalloc-radix.so plugins/obmalloc-bigpool.so >"$out/build-use.log"

bash "$here/benchmarks/founding-paired.sh" "$build" "$out" "$processes" \
	"$(cd "$pgo" && pwd)/plugins/obmalloc-radix.so:mode=none,as=radix-pgo"
