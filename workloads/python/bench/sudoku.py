"""sudoku: a constraint-propagating sudoku solver (candidate sets per cell,
elimination, then search on the cell with fewest candidates): dicts of
strings copied at every guess."""

PUZZLES = [
    "4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......",
    "52...6.........7.13...........4..8..6......5...........418.........3..2...87.....",
    "6.....8.3.4.7.................5.4.7.3..2.....1.6.......2.....5.....8.6......1....",
]
COUNT = max(1, int(len(PUZZLES) * SCALE))

DIGITS = "123456789"
ROWS = "ABCDEFGHI"
SQUARES = [r + c for r in ROWS for c in DIGITS]
UNITS = ([[r + c for c in DIGITS] for r in ROWS] + [[r + c for r in ROWS] for c in DIGITS] +
         [[r + c for r in rs for c in cs] for rs in ("ABC", "DEF", "GHI") for cs in ("123", "456", "789")])
UNITS_OF = {s: [u for u in UNITS if s in u] for s in SQUARES}
PEERS = {s: set(sum(UNITS_OF[s], [])) - {s} for s in SQUARES}


def assign(values, s, d):
    for other in values[s].replace(d, ""):
        if not eliminate(values, s, other):
            return False
    return values


def eliminate(values, s, d):
    if d not in values[s]:
        return values
    values[s] = values[s].replace(d, "")
    if not values[s]:
        return False
    if len(values[s]) == 1:
        d2 = values[s]
        if not all(eliminate(values, p, d2) for p in PEERS[s]):
            return False
    for unit in UNITS_OF[s]:
        places = [q for q in unit if d in values[q]]
        if not places:
            return False
        if len(places) == 1 and not assign(values, places[0], d):
            return False
    return values


def search(values):
    if values is False:
        return False
    if all(len(values[s]) == 1 for s in SQUARES):
        return values
    _, s = min((len(values[s]), s) for s in SQUARES if len(values[s]) > 1)
    for d in values[s]:
        result = search(assign(dict(values), s, d))
        if result:
            return result
    return False


def solve(grid):
    values = {s: DIGITS for s in SQUARES}
    for s, d in zip(SQUARES, grid):
        if d in DIGITS and not assign(values, s, d):
            return False
    return search(values)


def bench(loops):
    for _ in range(loops):
        for i in range(COUNT):
            solution = solve(PUZZLES[i % len(PUZZLES)])
            assert solution and all(len(v) == 1 for v in solution.values())
