#!/usr/bin/env bash
# alloclab quick start. On Debian 12, as root (or a user with sudo):
#   ./quickstart.sh run [alloclab run options]   install what is missing, build, run the default suite
#   ./quickstart.sh test [meson test options]    install what is missing, build with gcc and with
#                                                clang (warnings as errors), run the whole test suite
#                                                under both, then fuzz the results reader for a minute
# Both are idempotent: packages already installed are not touched and an
# existing build folder is rebuilt incrementally.
set -euo pipefail
cd "$(dirname "$0")"

mode=${1:-}
case "$mode" in
run | test) shift ;;
*)
	echo "usage: ./quickstart.sh run|test [options]: 'run' runs alloclab's default suite, 'test' the test suite" >&2
	exit 2
	;;
esac

# Everything alloclab builds with, from Debian (docs/platform.md).
packages=(
	build-essential git meson ninja-build pkg-config
	libjansson-dev libzstd-dev libjemalloc-dev libmimalloc-dev libcriterion-dev python3-dev gnuplot-nox valgrind
	libtcmalloc-minimal4 libtbbmalloc2
	# The exec workload's programs (docs/preload.md)
	sqlite3 xz-utils perl
	# The python workload's benchmarks that exercise libraries (docs/python.md)
	python3-django python3-mako python3-genshi python3-html5lib python3-docutils python3-sqlalchemy python3-sympy
)
# The second compiler the tests build with, and its fuzzing runtime.
if [ "$mode" = test ]; then
	packages+=(clang lld libclang-rt-14-dev)
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
	echo "quickstart: installing ${missing[*]}" >&2
	"${sudo[@]}" apt-get update -qq
	"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
fi

if [ ! -f build/build.ninja ]; then
	meson setup build --buildtype=release >&2
fi

if [ "$mode" = run ]; then
	ninja -C build >&2
	exec build/cli/alloclab run "$@"
fi

# The tests: gcc, then clang, each with every warning an error.
meson configure build -Dwarning_level=3 -Dwerror=true >&2
ninja -C build >&2
if [ ! -f build-clang/build.ninja ]; then
	CC=clang meson setup build-clang --buildtype=release -Dwarning_level=3 -Dwerror=true >&2
fi
ninja -C build-clang >&2
status=0
echo "== tests, gcc build" >&2
meson test -C build --print-errorlogs "$@" || status=$?
echo "== tests, clang build" >&2
meson test -C build-clang --print-errorlogs "$@" || status=$?
if [ -f build-clang/tests/fuzz-results ]; then
	echo "== fuzzing the results and trace readers (clang build, bounded: -Dfuzz_seconds each)" >&2
	meson test -C build-clang --setup=fuzz --suite fuzz --print-errorlogs || status=$?
fi
exit "$status"
