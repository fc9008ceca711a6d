#!/usr/bin/env bash
# What alloclab does with each of pyperformance's benchmarks, from a run:
# the table of docs/guides/pyperformance.md, made by a script rather than
# by hand. A report that prints a table, not a test.
#   benchmarks/pyperformance-table.sh BUILD BENCHMARKS_DIR OUT [PLUGIN...]
# BENCHMARKS_DIR is pyperformance's benchmarks folder (the one holding its
# MANIFEST). Every manifest entry runs under each plugin (default: system
# and obmalloc-radix:mode=none), one process a row, values of 20 ms; the
# table groups the rows by benchmark folder and arguments (a manifest
# entry), with what became of each row under each plugin: run, not
# applicable (and why), or its error. It ends with the counts, the rows
# the dry run said would not apply, and the run's command.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
usage="usage: pyperformance-table.sh BUILD BENCHMARKS_DIR OUT [PLUGIN...]"
bench_alloclab "${1:?$usage}"
bench=$(cd "${2:?$usage}" && pwd)
outdir=${3:?$usage}
shift 3
plugins=("$@")
[ ${#plugins[@]} -gt 0 ] || plugins=(system obmalloc-radix:mode=none)
[ -f "$bench/MANIFEST" ] || bench_fail "$bench has no MANIFEST"
# The folder goes into a workload's parameters, where a comma separates
# them.
case $bench in *,*) bench_fail "$bench: a comma in the folder's path cannot be passed to pyperf=" ;; esac
bench_out "$outdir"
for f in dry-run.txt run.txt run.err run.json; do
	if [ -L "$out/$f" ] || { [ -e "$out/$f" ] && [ ! -f "$out/$f" ]; }; then
		bench_fail "$out/$f is not a plain file: not replaced"
	fi
done
rm -f "$out/run.json"

args=()
for p in "${plugins[@]}"; do args+=(-p "$p"); done
args+=(-w "python:pyperf=$bench,value_ms=20" -t 1 -n 1 -v 1 --no-check --timeout 600)
"$alloclab" run "${args[@]}" --dry-run >"$out/dry-run.txt" 2>&1 || true
bench_say "running every entry under ${plugins[*]}"
status=0
"$alloclab" run "${args[@]}" -q -o "$out/run.json" >"$out/run.txt" 2>"$out/run.err" || status=$?
# A run whose rows failed still has its results; one that wrote none
# failed as a whole.
if [ ! -f "$out/run.json" ]; then
	printf '%s: alloclab run failed (status %s):\n' "$BENCH_NAME" "$status" >&2
	cat "$out/run.err" >&2
	exit 2
fi

bench_python - "$out" "$bench" "alloclab run ${args[*]}" <<'PY'
import collections, os, re, sys
from alloclab_json import load

out, bench, command = sys.argv[1], sys.argv[2], sys.argv[3]
doc = load(f"{out}/run.json")
labels = [p["label"] for p in doc["plugins"]]

def cell_text(s):
    """Text fit for one markdown table cell: no line breaks, no column
    separators, no backticks that would pair with ours."""
    return re.sub(r"\s+", " ", s).replace("|", "\\|").replace("`", "'")

def entry_of(params):
    path = params.get("pyperf", "")
    # A row that failed before its file was found names the MANIFEST: the
    # entry is its name.
    if os.path.basename(path) == "MANIFEST" and params.get("name"):
        return params["name"]
    rel = os.path.relpath(path, bench) if os.path.isabs(path) else path
    folder = rel.split(os.sep)[0] if os.sep in rel else rel
    folder = re.sub(r"^bm_", "", folder)
    return folder + (" (" + params["args"] + ")" if params.get("args") else "")

def status(cell):
    s = cell["status"]
    if s == "ok":
        return "run"
    why = cell_text(cell.get("reason") or cell.get("error") or "")[:160]
    return ("not applicable: " if s == "not applicable" else s + ": ") + why

entries = collections.OrderedDict()
for c in doc["cells"]:
    p = c.get("params", {})
    e = entries.setdefault(entry_of(p), collections.OrderedDict())
    row = p.get("name") or "(its only benchmark)"
    e.setdefault(row, {})[c["plugin"]] = status(c)

counts = collections.Counter()
print("| entry | rows | " + " | ".join(labels) + " |")
print("|---|---|" + "---|" * len(labels))
for name, rows in entries.items():
    cols = []
    for plugin in labels:
        got = collections.Counter(rows[r].get(plugin, "not measured") for r in rows)
        for st, n in got.items():
            counts[st.split(":")[0]] += n
        if list(got) == ["run"]:
            cols.append("run")
        else:
            parts = []
            for r in rows:
                st = rows[r].get(plugin, "not measured")
                if st != "run":
                    parts.append(f"`{cell_text(r)}`: {st}")
            n_run = got.get("run", 0)
            cols.append(("%d run; " % n_run if n_run else "") + "; ".join(parts))
    shown = ", ".join(f"`{cell_text(r)}`" for r in list(rows)[:6]) + (", ..." if len(rows) > 6 else "")
    print(f"| {cell_text(name)} | {len(rows)} ({shown}) | " + " | ".join(cols) + " |")
print()
nrows = sum(len(r) for r in entries.values())
print(f"{len(entries)} entries, {nrows} rows; over the plugins: " +
      ", ".join(f"{n} {st}" for st, n in counts.most_common()))
dry = open(f"{out}/dry-run.txt").read()
m = re.search(r"(\d+) not applicable", dry)
print(f"the dry run said {m.group(1) if m else 'nothing of'} not applicable")
print(f"command: {command}")
PY
