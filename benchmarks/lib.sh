# shellcheck shell=bash
# What the benchmark scripts share; each sources it after `set -euo pipefail`:
#   . "$(dirname "$0")/lib.sh"
# It names this folder BENCH_DIR and the project's source SOURCE_DIR, and
# gives the scripts one way to find alloclab, make their output folder,
# run alloclab, read a figure back and build a second copy of the project.
# Not a script of its own: it only defines.

BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SOURCE_DIR=$(dirname "$BENCH_DIR")
BENCH_NAME=$(basename "$0")

# bench_fail TEXT: one line naming the script and the problem; exit 2.
bench_fail() {
	printf '%s: %s\n' "$BENCH_NAME" "$*" >&2
	exit 2
}

# bench_alloclab WHERE: from a build folder (build) or the alloclab in one
# (build/cli/alloclab), the executable's absolute path in alloclab and its
# build folder in build; every script takes either.
bench_alloclab() {
	local where=${1:?bench_alloclab: a build folder or an alloclab executable}
	if [ -d "$where" ]; then
		build=$(cd "$where" && pwd)
		alloclab=$build/cli/alloclab
	elif [ -f "$where" ]; then
		alloclab=$(cd "$(dirname "$where")" && pwd)/$(basename "$where")
		build=$(dirname "$(dirname "$alloclab")")
	else
		bench_fail "$where: no such build folder or alloclab executable"
	fi
	[ -x "$alloclab" ] || bench_fail "no alloclab at $alloclab (give a build folder, or the alloclab in one)"
}

# bench_args USAGE ARG...: the usual first two arguments, the build (or the
# alloclab in one) and the output folder, read as bench_alloclab and
# bench_out read them. USAGE is how the script is called after its name,
# kept in usage for the script's checks of its later arguments; where it
# starts with "[" both may be left out: build, and alloclab-results/ and
# the script's name.
bench_args() {
	# shellcheck disable=SC2034 # the scripts' own variable
	usage="usage: $BENCH_NAME $1"
	shift
	if [ "${usage#"usage: $BENCH_NAME ["}" != "$usage" ]; then
		bench_alloclab "${1:-build}"
		bench_out "${2:-alloclab-results/${BENCH_NAME%.sh}}"
	else
		if [ -z "${1:-}" ] || [ -z "${2:-}" ]; then bench_fail "$usage"; fi
		bench_alloclab "$1"
		bench_out "$2"
	fi
}

# bench_out DIR: the output folder, made if it is not there; its absolute
# path in out, so that the script may change folder.
bench_out() {
	local dir=${1:?bench_out: an output folder}
	[ ! -e "$dir" ] || [ -d "$dir" ] || bench_fail "$dir: not a folder"
	mkdir -p "$dir"
	# shellcheck disable=SC2034 # the scripts' own variable
	out=$(cd "$dir" && pwd)
}

# bench_say TEXT: a progress line on a terminal (standard error), nothing
# otherwise.
bench_say() {
	if [ -t 2 ]; then printf '%s\n' "$*" >&2; fi
	return 0
}

# bench_run FILE ARG...: `alloclab run ARG...` with its results in FILE and
# its table not printed; alloclab shows its own progress on a terminal.
# A run whose cells partly failed (alloclab's status 1: finished, the
# errors in the results) is said to be so and reported on: what it
# measured is not thrown away. `alloclab=EXE bench_run ...` runs another
# build's executable.
bench_run() {
	local file=${1:?bench_run: a results file} status=0
	shift
	"$alloclab" run -q "$@" -o "$file" >/dev/null || status=$?
	if [ "$status" -eq 1 ] && [ -f "$file" ]; then
		printf '%s: some cells of %s failed (alloclab show lists why); the rest are reported\n' "$BENCH_NAME" "$file" >&2
		status=0
	fi
	return "$status"
}

# bench_show FILE: the results file as `alloclab show --format json` gives it
# (plugins by label, each value's figures), for bench_python to read.
bench_show() {
	"$alloclab" show --format json "${1:?bench_show: a results file}"
}

# bench_python ARG...: Debian's python3.11 with this folder's modules
# (alloclab_json, intervals, rank_tests) importable and nothing else added
# to its path (-P: not the current folder, which may be an output folder);
# no bytecode is written into the source tree.
bench_python() {
	PYTHONPATH=$BENCH_DIR PYTHONDONTWRITEBYTECODE=1 /usr/bin/python3.11 -P "$@"
}

# bench_compare JSON RESULTS ARG...: `alloclab compare RESULTS ARG...
# --format json` into JSON, or {} there where compare fails (a metric the
# run lacks, too few processes), so that the report says "no figure" where
# it would have stopped.
bench_compare() {
	local json=${1:?bench_compare: an output file} results=${2:?bench_compare: a results file}
	shift 2
	"$alloclab" compare "$results" "$@" --format json >"$json" || echo '{}' >"$json"
}

# bench_value FILE KEY [FORMAT]: one figure (KEY, e.g. instructions_per_op)
# of a run of one cell, one process and one value, printed with FORMAT (a
# Python % format; as Python prints it without one).
bench_value() {
	bench_show "$1" | bench_python -m alloclab_json value "$2" "${3:-}"
}

# bench_calc EXPR: bc's value of an arithmetic expression on the figures.
bench_calc() {
	echo "$1" | bc -l
}

# bench_seconds CMD...: the wall seconds a command takes, its output
# discarded.
bench_seconds() {
	local t0 t1
	t0=$(date +%s.%N)
	"$@" >/dev/null
	t1=$(date +%s.%N)
	bench_calc "$t1 - $t0"
}

# A second copy of the project, built beside the first: bench_checkout REF
# DIR puts commit REF's source in DIR (emptied first); bench_configure
# BUILD SOURCE LOG OPTION... sets BUILD up from SOURCE with meson's options,
# or sets the options again where BUILD exists; bench_ninja BUILD LOG
# [TARGET...] builds. meson's and ninja's output goes to LOG.
bench_checkout() {
	local ref=${1:?bench_checkout: a commit} dir=${2:?bench_checkout: a folder}
	rm -rf "$dir"
	mkdir -p "$dir"
	git -C "$SOURCE_DIR" archive "$ref" | tar -x -C "$dir"
}

bench_configure() {
	local build=${1:?bench_configure: a build folder} source=${2:?bench_configure: a source folder}
	local log=${3:?bench_configure: a log file}
	shift 3
	if [ -d "$build" ]; then
		meson configure "$build" "$@" >>"$log"
	else
		meson setup "$build" "$source" "$@" >>"$log"
	fi
}

bench_ninja() {
	local build=${1:?bench_ninja: a build folder} log=${2:?bench_ninja: a log file}
	shift 2
	ninja -C "$build" "$@" >>"$log"
}
