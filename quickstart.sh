#!/usr/bin/env bash
# alloclab quick start. On Debian 12, as root (or a user with sudo):
#   ./quickstart.sh run [alloclab run options]   install what is missing, build, run the default suite
#   ./quickstart.sh test [meson test options]    install what is missing, build with gcc and with
#                                                clang (warnings as errors; clang's checking every
#                                                invariant), run the whole test suite under both,
#                                                then fuzz the results and trace readers and the plugin-code hash a minute each
# Both are idempotent: packages already installed are not touched and an
# existing build folder is rebuilt incrementally. The set-up (apt, meson,
# ninja) writes to quickstart.log, one line per step on the terminal, and
# the log's last lines and path when a step fails.
set -euo pipefail
cd "$(dirname "$0")"
log=$PWD/quickstart.log
: >"$log"

step() { printf 'quickstart: %s\n' "$*" >&2; }
# Runs a set-up command with its output in the log; on failure, says which
# step failed, shows the log's end and where the rest is.
quiet() {
	if ! "$@" >>"$log" 2>&1; then
		printf 'quickstart: failed: %s\n' "$*" >&2
		tail -n 25 "$log" | sed 's/^/  | /' >&2
		printf 'quickstart: the whole log is %s\n' "$log" >&2
		exit 1
	fi
}

mode=${1:-}
case "$mode" in
run | test) shift ;;
*)
	echo "usage: ./quickstart.sh run|test [options]: 'run' runs alloclab's default suite, 'test' the test suite" >&2
	exit 2
	;;
esac

# Everything alloclab builds with, from Debian (docs/background/platform.md).
packages=(
	build-essential git meson ninja-build pkg-config
	libjansson-dev libzstd-dev libjemalloc-dev libmimalloc-dev libcriterion-dev python3-dev gnuplot-nox valgrind
	# The history store (SQLite) and file identities (nettle's SHA-256)
	libsqlite3-dev nettle-dev
	# What a plugin file loads, for history run's same-code commits
	libelf-dev
	libtcmalloc-minimal4 libtbbmalloc2
	# alloclab grade's sandbox (docs/guides/grading.md)
	bubblewrap
	# The exec workload's programs (docs/guides/preload.md)
	sqlite3 xz-utils perl
	# The python workload's benchmarks that exercise libraries (docs/guides/python.md)
	python3-django python3-mako python3-genshi python3-html5lib python3-docutils python3-sqlalchemy python3-sympy
	# pyperf files measured within their own run, suspended at the benchmark (docs/guides/python.md)
	python3-greenlet
	# The libraries the rest of pyperformance's benchmarks import, so that a
	# user's pyperformance folder runs whole (docs/guides/pyperformance.md)
	python3-chameleon python3-coverage python3-dask python3-distributed python3-dulwich python3-pyaes
	python3-sqlglot python3-tomli python3-tornado
)
# The second compiler the tests build with, and its fuzzing runtime.
if [ "$mode" = test ]; then
	packages+=(clang lld libclang-rt-14-dev)
	# The one-node Slurm cluster the cluster test starts (tests/slurm_cluster.sh).
	packages+=(munge slurm-wlm)
	# The report's pages opened in a real browser (tests/browser/): Chromium,
	# headless, driven over the DevTools protocol.
	packages+=(chromium python3-websocket)
fi

missing=()
for p in "${packages[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if ((${#missing[@]})); then
	sudo=()
	if [ "$(id -u)" -ne 0 ]; then
		command -v sudo >/dev/null || { echo "quickstart: need root (or sudo) to install: ${missing[*]}" >&2; exit 1; }
		sudo=(sudo)
	fi
	step "installing ${#missing[@]} Debian packages: ${missing[*]}"
	quiet "${sudo[@]}" apt-get update -qq
	quiet "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

if [ ! -f build/build.ninja ]; then
	step "configuring the build (meson setup build)"
	quiet meson setup build --buildtype=release
fi

if [ "$mode" = run ]; then
	step "building (ninja -C build)"
	quiet ninja -C build
	step "running the default suite (every bundled allocator; about a minute)"
	exec build/cli/alloclab run "$@"
fi

# The tests: gcc, then clang, each with every warning an error.
step "building with gcc, every warning an error"
quiet meson configure build -Dwarning_level=3 -Dwerror=true
quiet ninja -C build
# The clang build checks every invariant the headers state
# (framework/base/invariant.h): the suite runs once as released (gcc) and
# once with the checks (clang).
if [ ! -f build-clang/build.ninja ]; then
	step "configuring the clang build"
	quiet env CC=clang meson setup build-clang --buildtype=release -Dwarning_level=3 -Dwerror=true -Dinvariants=true
fi
quiet meson configure build-clang -Dinvariants=true
step "building with clang, every warning an error, every invariant checked"
quiet ninja -C build-clang
status=0
echo "== tests, gcc build" >&2
meson test -C build --print-errorlogs "$@" || status=$?
echo "== tests, clang build" >&2
meson test -C build-clang --print-errorlogs "$@" || status=$?
if [ -f build-clang/tests/fuzz-results ]; then
	echo "== fuzzing the results and trace readers and the plugin-code hash (clang build, bounded: -Dfuzz_seconds each)" >&2
	meson test -C build-clang --setup=fuzz --suite fuzz --print-errorlogs || status=$?
fi
exit "$status"
