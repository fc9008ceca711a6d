#!/usr/bin/env bash
# How long `alloclab grade` takes for a class at the course's final level
# (5: every case), and whether every row says what it should. A class of 38
# in one command, each submission in its sandbox:
#  - 27 honest ones of varied quality: 5 copies of each of the course's
#    solutions (tests/course/), each a folder made by `alloclab new plugin`
#    with the solution as its source, built with meson as a student builds
#    it; at level 5 only the arenas pass (bump fails on footprint, the free
#    list and the size classes on threads, the thread cache on regions).
#    And the arenas solution twice more: a bare C file (twin) and a built
#    plugin (victim, the test build's course-arenas.so);
#  - 11 hostile or broken ones, one of each kind the grader stops
#    (tests/test_grade.c has each): a build and a plugin that print every
#    environment they can read in /proc, the first process's too, looking
#    for a secret this script puts in the grader's environment (secret); a
#    build that writes a forged event into the grader's channel through
#    /proc/PID/fd/1 and attaches to it with ptrace (forger, from
#    tests/grade/forger-meson.build); the arenas solution made to slow the
#    reference wherever glibc's plugin is loaded beside it (bender, a bare C
#    file, the twin's twin); a fork bomb; a plugin's constructor trying every other way out
#    (snoop) and one rewriting the victim's plugin (vandal), from
#    tests/grade/; a build that fails, a crash in a case, a hang, a plugin
#    that kills the processes that load it, a file named like a bundled
#    plugin.
# Every submission is built, checked and, where it passes, timed against
# glibc (5 rounds). Then every row's verdict is checked against what it
# should be (pass or FAIL, and words of its first failure), and so is what
# the sandbox must keep: the secret in no file of the grading's folder, no
# forged case, the bender's ratio no less than half its twin's, nothing
# left in the evidence folder (snoop's and vandal's writes, a connection to
# this script's port on the loopback), the victim's plugin untouched. Prints
# the wall time, the load average before and after, and the verdicts right
# of all; a wrong one is named and the script exits 1. A benchmark that
# prints figures, but a wrong verdict is loud.
#   benchmarks/grade-class.sh BUILD OUT [TIMEOUT]
set -euo pipefail
. "$(dirname "$0")/lib.sh"
bench_args "BUILD OUT [TIMEOUT]" "$@"
# The cases' deadline: level 5's 14 cases took the thread cache 17 to 20 s at
# a load average of 14, and the hang takes all of it.
timeout=${3:-60}
src=$SOURCE_DIR
victim_so=$build/tests/plugins/course-arenas.so
[ -f "$victim_so" ] || bench_fail "no $victim_so (a build with the tests has it)"
# What an earlier run left (the class, its grading, its evidence), not the folder.
rm -rf "$out/class" "$out/grading" "$out/evidence" "$out/expected.tsv" "$out/port" "$out/port.done" \
	"$out/victim.so" "$out/table.txt"
mkdir -p "$out/class" "$out/evidence"
chmod 0777 "$out/evidence"
cp "$victim_so" "$out/victim.so"
# The secret: in the grader's environment, and in no file of the grading's.
secret="class-secret-$(od -An -N8 -tx8 /dev/urandom | tr -d ' ')"
# expect NAME VERDICT [WORDS]: NAME's row should read VERDICT (pass or FAIL)
# with WORDS in its first failure.
expect() { printf '%s\t%s\t%s\n' "$1" "$2" "${3:-}" >>"$out/expected.tsv"; }

# A port on the loopback that no submission may reach: a connection leaves
# evidence. It listens until the grading is over.
PYTHONDONTWRITEBYTECODE=1 /usr/bin/python3.11 -P - "$out" <<'PY' &
import os, socket, sys
out = sys.argv[1]
s = socket.socket()
s.bind(("127.0.0.1", 0))
s.listen(16)
s.settimeout(0.5)
with open(f"{out}/port.tmp", "w") as f:
    f.write(str(s.getsockname()[1]))
os.rename(f"{out}/port.tmp", f"{out}/port")
while not os.path.exists(f"{out}/port.done"):
    try:
        c, _ = s.accept()
    except socket.timeout:
        continue
    with open(f"{out}/evidence/connected", "a") as f:
        f.write("a submission reached the loopback\n")
    c.close()
PY
listener=$!
trap 'touch "$out/port.done"' EXIT
for _ in $(seq 100); do [ -s "$out/port" ] && break; sleep 0.1; done
[ -s "$out/port" ] || bench_fail "the listener on the loopback did not start"

cd "$out/class"
for solution in arenas bump freelist segregated threadcache; do
	for i in 1 2 3 4 5; do
		"$alloclab" new plugin "$solution-$i" --template segregated >/dev/null
		cp "$src/tests/course/$solution.c" "$solution-$i/$solution-$i.c"
		case $solution in
		arenas) expect "$solution-$i" pass ;;
		bump) expect "$solution-$i" FAIL "footprint:" ;;
		threadcache) expect "$solution-$i" FAIL "regions:" ;;
		*) expect "$solution-$i" FAIL "threads:" ;;
		esac
	done
done
cp "$src/tests/course/arenas.c" twin.c
expect twin.c pass
mkdir victim
cp "$victim_so" victim/victim.so
expect victim pass
# Where the hostile ones would leave evidence, and whom they aim at.
cat >evidence.h <<EOF
#define EVIDENCE "$out/evidence"
#define SUBMISSIONS "$out/class"
#define VICTIM "$out/class/victim/victim.so"
#define PORT $(cat "$out/port")
EOF

# secret: at setup its build prints every environment it can read, and at
# every load its plugin does; "ENV:LEAK" where the secret's name is in one.
mkdir secret
cat >secret/meson.build <<'EOF'
project('secret', 'c')
r = run_command('sh', '-c', '''
for p in /proc/1 /proc/[0-9]*; do
  [ "${p#/proc/}" = "$$" ] && continue
  printf "%s: " "$p"
  tr "\0" " " < $p/environ 2>/dev/null || printf "(unread)"
  echo
done
''', check: false)
message(r.stdout().strip())
message('ENV:' + (r.stdout().contains('ALLOCLAB_CLASS_SECRET') ? 'LEAK' : 'denied'))
shared_module('secret', 'secret.c', name_prefix: '', dependencies: dependency('alloclab-plugin'))
EOF
{
	cat "$src/tests/course/arenas.c"
	printf '\n#include <%s>\n' dirent.h
	cat <<'EOF'

/* Every environment in /proc, printed at every load. */
__attribute__((constructor)) static void environments(void)
{
	static char env[65536];
	DIR *d = opendir("/proc");
	struct dirent *e;
	int leak = 0;
	while (d && (e = readdir(d)) != NULL) {
		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		char path[300];
		snprintf(path, sizeof path, "/proc/%s/environ", e->d_name);
		FILE *f = fopen(path, "r");
		size_t n = f ? fread(env, 1, sizeof env - 1, f) : 0;
		if (f)
			fclose(f);
		for (size_t i = 0; i < n; i++)
			if (env[i] == '\0')
				env[i] = ' ';
		env[n] = '\0';
		leak |= strstr(env, "ALLOCLAB_CLASS_SECRET") != NULL;
		fprintf(stderr, "%s: %s\n", path, n ? env : "(unread)");
	}
	if (d)
		closedir(d);
	fprintf(stderr, "ENV:%s\n", leak ? "LEAK" : "denied");
}
EOF
} >secret/secret.c
expect secret pass
# forger: the test's build, looking for the secret's name.
mkdir forger
sed "s/, SECRET)/, 'ALLOCLAB_CLASS_SECRET')/" "$src/tests/grade/forger-meson.build" >forger/meson.build
grep -q "'ALLOCLAB_CLASS_SECRET')" forger/meson.build || bench_fail "tests/grade/forger-meson.build: no SECRET to set"
cp "$src/tests/course/arenas.c" forger/forger.c
expect forger pass
# The bender: its twin, and wherever the reference is loaded beside it, every
# glibc allocation a system call (tests/test_grade.c).
{
	cat "$src/tests/course/arenas.c"
	cat <<'EOF'

/* Wherever the reference (system.so) is loaded beside it. */
__attribute__((constructor)) static void bend(void)
{
	FILE *m = fopen("/proc/self/maps", "r");
	char line[4096];
	while (m && fgets(line, sizeof line, m))
		if (strstr(line, "/system.so"))
			mallopt(M_MMAP_THRESHOLD, 0);
	if (m)
		fclose(m);
}
EOF
} >bender.c
expect bender.c pass
# The bomb: the bump solution whose constructor forks until it cannot and
# holds what it started (tests/test_grade.c).
{
	cat "$src/tests/course/bump.c"
	printf '\n#include <%s>\n' signal.h unistd.h
	cat <<'EOF'

__attribute__((constructor)) static void bomb(void)
{
	for (int i = 0; i < 5000; i++) {
		pid_t p = fork();
		if (p == 0) {
			sleep(30);
			_exit(0);
		}
		if (p < 0)
			break;
	}
	sleep(30);
}
EOF
} >bomb.c
expect bomb.c FAIL "while being loaded it left"
# snoop, vandal, killer: tests/grade/'s, on the arenas solution (killer on
# bump's, as it never gets to a case).
for h in snoop vandal killer; do
	mkdir "$h"
	cp "$src/tests/grade/$h.c" "$h/$h.c"
	cp evidence.h "$h/"
	if [ "$h" = killer ]; then cp "$src/tests/course/bump.c" "$h/bump.inc"; else cp "$src/tests/course/arenas.c" "$h/bump.inc"; fi
done
# As root, a file of its own that only root may read (it stays unread).
if [ "$(id -u)" = 0 ]; then
	echo "root's alone" >snoop/rootonly
	chmod 0600 snoop/rootonly
fi
expect snoop FAIL "while being loaded it left"
expect vandal pass
expect killer FAIL "does not load"
rm evidence.h
# The broken ones.
"$alloclab" new plugin broken-build --template freelist >/dev/null
echo 'this is not C;' >>broken-build/broken-build.c
expect broken-build FAIL "build failed"
mkdir crashes hangs
cp "$src/tests/plugins/bad_crash_free.c" "$src/tests/plugins/test_plugin_common.h" crashes/
cp "$src/tests/plugins/bad_hang.c" "$src/tests/plugins/test_plugin_common.h" hangs/
expect crashes FAIL "edge-sizes"
expect hangs FAIL "timed out"
echo 'not the bundled glibc plugin' >system
expect system FAIL "neither a plugin"

cd "$out"
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
start=$(date +%s.%N)
ALLOCLAB_CLASS_SECRET=$secret "$alloclab" grade --level 5 --timeout "$timeout" -o "$out/grading" class/* >"$out/table.txt"
end=$(date +%s.%N)
load_after=$(cut -d' ' -f1-3 /proc/loadavg)
sleep 3 # what a daemon would write after its grading, it has written by now
touch "$out/port.done"
wait "$listener"
bench_python - "$out" "$start" "$end" "$load_before" "$load_after" "$timeout" "$secret" <<'PY'
import csv, glob, math, os, sys
from alloclab_json import load
out, start, end, before, after, timeout, secret = sys.argv[1:8]
wall = float(end) - float(start)
grading = f"{out}/grading"
rows = load(f"{grading}/grades.json")["rows"]
by_name = {r["name"]: r for r in rows}
with open(f"{grading}/grades.csv", newline="") as f:
    table = {r["submission"]: r for r in csv.DictReader(f)}
with open(f"{out}/expected.tsv") as f:
    expected = [line.rstrip("\n").split("\t") for line in f]

def words(name):
    """What a row's first failure says, or its note where it passed."""
    r = table[name]
    return (r["first_failure"] or r["note"])[:100]

# Each row's verdict against what it should be.
wrong, right = [], 0
for name, verdict, says in expected:
    r = table.get(name)
    if r is None:
        wrong.append(f"{name}: no row (should be {verdict})")
        continue
    got = "pass" if r["verdict"] == "pass" else "FAIL"
    if got != verdict or (verdict == "FAIL" and says not in r["first_failure"]):
        wrong.append(f"{name}: {got} {words(name)!r}, should be {verdict}" + (f" with {says!r}" if says else ""))
    else:
        right += 1
for name in table:
    if name not in {e[0] for e in expected}:
        wrong.append(f"{name}: a row no submission should have ({table[name]['verdict']})")

# What the sandbox must keep.
kept = []
def check(ok, what):
    kept.append((ok, what))

def log_of(name):
    found = glob.glob(f"{grading}/logs/*-{name}.build.log")
    return open(found[0], errors="replace").read() if found else ""

def printed(name):
    r = by_name.get(name, {})
    return "\n".join(c.get("plugin_output") or "" for c in r.get("cases", [])) + "\n" + (r.get("problem") or "")

leaks = []
for path in [f"{out}/table.txt"] + glob.glob(f"{grading}/**", recursive=True):
    if os.path.isfile(path) and secret.encode() in open(path, "rb").read():
        leaks.append(os.path.relpath(path, out))
check(not leaks, "the secret is in no file of the grading's" + (f": in {', '.join(leaks)}" if leaks else ""))
secret_log, secret_said = log_of("secret"), printed("secret")
check("ENV:denied" in secret_log and "ENV:denied" in secret_said and "ENV:LEAK" not in secret_log + secret_said,
      "secret's build and plugin read every environment and found no secret's name"
      + ("" if "ENV:" in secret_log and "ENV:" in secret_said else " (its probe did not run)"))
forger_log = log_of("forger")
check(all(t in forger_log for t in ("ENV:denied", "FD:denied", "PT:denied")),
      f"forger read no secret, wrote no event and attached nothing: {forger_log[forger_log.find('ENV:'):][:60]!r}")
forged = [r["name"] for r in rows for c in r.get("cases", []) if c.get("case") == "forged"]
check(not forged, "no forged case in any row" + (f": in {', '.join(forged)}" if forged else ""))
ratio = {n: by_name.get(n, {}).get("time", {}).get("ratio") for n in ("bender.c", "twin.c")}
if None in ratio.values():
    check(False, f"bender.c and twin.c both timed: {ratio}")
else:
    # A bent reference makes the bender read faster (the test's bender
    # read tens of times faster); slower is the machine's noise, which
    # moves copies of one code by more than 2 at a load of 14.
    check(ratio["bender.c"] >= ratio["twin.c"] / 2,
          f"bender.c's ratio {ratio['bender.c']:.3f} no less than half twin.c's {ratio['twin.c']:.3f} "
          f"({ratio['bender.c'] / ratio['twin.c']:.2f} of it)")
evidence = sorted(os.listdir(f"{out}/evidence"))
check(not evidence, "nothing in the evidence folder" + (f": {', '.join(evidence)}" if evidence else ""))
said = printed("snoop")
ways = ["S:denied", "L:denied", "N:denied", "F:denied"] + (["R:denied"] if os.geteuid() == 0 else [])
check(all(w in said for w in ways), f"snoop's ways out denied ({' '.join(ways)})"
      + ("" if all(w in said for w in ways) else f": it said {said.strip()[:200]!r}"))
check("V:denied" in printed("vandal"), "vandal did not rewrite the victim's plugin")
check(open(f"{out}/victim.so", "rb").read() == open(f"{out}/class/victim/victim.so", "rb").read(),
      "the victim's plugin is untouched")

# The figures.
passing = [r for r in rows if r["passed"]]
print(f"{len(rows)} submissions ({len(passing)} passed) graded at level 5 in {wall:.1f} s "
      f"(--timeout {timeout}; load average before: {before}, after: {after}; {os.cpu_count()} CPUs)")
if passing:
    print(f"a passing submission: {sum(r['seconds'] for r in passing) / len(passing):.1f} s on average "
          f"(build, {passing[0]['cases_passed']} cases, 5 rounds against glibc)")
timed = sorted((r["time"]["ratio"], r["name"]) for r in passing if r.get("time"))
if timed:
    print(f"time column, {len(timed)} copies of the arenas solution: "
          + ", ".join(f"{n} {x:.3f}" for x, n in timed))
for r in rows:
    if not r["passed"]:
        print(f"  {r['name']:<14} {r['seconds']:6.1f} s  {words(r['name'])[:90]}")
print(f"verdicts right: {right} of {len(expected)}")
for w in wrong:
    print(f"  WRONG {w}")
print(f"sandbox checks right: {sum(ok for ok, _ in kept)} of {len(kept)}")
for ok, what in kept:
    print(f"  {'ok   ' if ok else 'WRONG'} {what}")
sys.exit(1 if wrong or not all(ok for ok, _ in kept) else 0)
PY
