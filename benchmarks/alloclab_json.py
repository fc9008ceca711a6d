"""Reading what alloclab writes as JSON, for the benchmark scripts: results
files (as written, or as `alloclab show --format json` prints them) and
`alloclab compare --format json`. One copy of each way of reading them,
imported by the scripts' Python (benchmarks/lib.sh's bench_python puts this
folder on Python's path).

  python3.11 -m alloclab_json value KEY [FORMAT] < SHOWN.json
prints KEY (e.g. instructions_per_op) of the first value of the first
cell's first process, with FORMAT (a % format) or as Python prints it:
what bench_value reads of a run of one value."""
import json
import math
import statistics
import sys


def load(path):
    with open(path) as f:
        return json.load(f)


def label(doc, cell):
    """A cell's plugin by its label; an index into doc["plugins"] is read
    as the label it stands for."""
    p = cell["plugin"]
    return doc["plugins"][p]["label"] if isinstance(p, int) else p


def ok_cells(doc, key):
    """{key(cell): cell} of the cells that were measured (status "ok")."""
    return {key(c): c for c in doc["cells"] if c["status"] == "ok"}


def runs(cell):
    """A cell's processes in the order they ran, so that the first k of
    them are the k a shorter run would have measured."""
    return sorted(cell["runs"], key=lambda r: r["process"])


def values(cell, key="ns_per_op"):
    """KEY of every value of every process of a cell (none when it has no
    processes)."""
    return [v[key] for r in cell.get("runs", []) for v in r["values"]]


def medians(doc, key, figure="ns_per_op"):
    """{key(cell): the median of FIGURE over all of the cell's values}, for
    every cell of the document."""
    return {key(c): statistics.median(values(c, figure)) for c in doc["cells"]}


def process_means(cell, key="ns_per_op"):
    """Each process's mean of KEY over its values, processes in order."""
    return [statistics.mean(v[key] for v in r["values"]) for r in runs(cell)]


def pair_logs(cell):
    """The logarithms of each process's paired ratio against the group's
    reference (a paired run's pair_ratio), processes in order."""
    return [math.log(r["pair_ratio"]) for r in runs(cell)]


def thread_reports(cell):
    """The first thread's report of each value that has one (the exec
    workload: the program's CPU and wall seconds)."""
    return [v["thread_reports"][0] for r in cell.get("runs", []) for v in r["values"] if v.get("thread_reports")]


def exec_runs(doc):
    """(label, params, thread reports) of each cell that has reports: the
    exec workload's programs, each under a plugin or natively preloaded."""
    return [(label(doc, c), c["params"], thread_reports(c)) for c in doc["cells"] if thread_reports(c)]


def median_cpu_s(reports):
    """The median CPU seconds (user and system) of thread reports."""
    return statistics.median(r["user_s"] + r["sys_s"] for r in reports)


def median_wall_s(reports):
    """The median wall seconds of thread reports."""
    return statistics.median(r["wall_s"] for r in reports)


def compare_rows(path):
    """compare --format json's rows, each as (row, {plugin: column}), the
    columns in compare's order (the first is the base); [] where the file is
    missing or holds no comparison (a failed compare is recorded as {})."""
    try:
        doc = load(path)
        return [(row, dict(zip(doc["columns"], row["columns"]))) for row in doc.get("rows", [])]
    except (OSError, ValueError, KeyError, TypeError):
        return []


def main(argv):
    if len(argv) < 2 or argv[0] != "value":
        sys.exit("usage: python3.11 -m alloclab_json value KEY [FORMAT] < SHOWN.json")
    key, fmt = argv[1], argv[2] if len(argv) > 2 else ""
    v = json.load(sys.stdin)["cells"][0]["runs"][0]["values"][0][key]
    print(fmt % v if fmt else v)


if __name__ == "__main__":
    main(sys.argv[1:])
