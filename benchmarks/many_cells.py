"""A results file of many cells, made from a small real one, for timing
how the readers and writers grow with the number of cells (many-cells.sh).

  python3.11 -m many_cells SEED.json CELLS OUT.json

SEED.json is a run of one plugin, one workload and one cell (alloclab run
-p system -w churn:ops=1000 -t 1 -n 2). OUT.json gets a second plugin, a
copy of the first under another label, and CELLS cells in all: half of
them each plugin's, one row for every value of the workload's seed
parameter, so that every row has a partner to be compared with and the
seed is the one parameter that varies."""
import copy
import json
import sys


def grow(seed, cells):
    doc = copy.deepcopy(seed)
    first = doc["plugins"][0]
    twin = copy.deepcopy(first)
    twin["label"] = first["label"] + "-twin"
    twin["spec"] = first["spec"] + ":as=" + twin["label"]
    doc["plugins"] = [first, twin]
    model = doc["cells"][0]
    rows = max(1, cells // 2)
    out = []
    for p, plugin in enumerate(doc["plugins"]):
        for row in range(rows):
            c = copy.deepcopy(model)
            c["plugin"] = plugin["label"]
            c["plugin_index"] = p
            c["params"]["seed"] = row + 1
            out.append(c)
    doc["cells"] = out
    return doc


def main(argv):
    if len(argv) != 4 or not argv[2].isdigit():
        sys.exit("usage: python3.11 -m many_cells SEED.json CELLS OUT.json")
    with open(argv[1]) as f:
        seed = json.load(f)
    with open(argv[3], "w") as f:
        json.dump(grow(seed, int(argv[2])), f)


if __name__ == "__main__":
    main(sys.argv)
