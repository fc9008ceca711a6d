"""go: random playouts of Go on a 9x9 board: stones, groups found by flood
fill, captures, and the final score. Sets, lists and small objects churn
with every move."""

import random

SIZE = 9
GAMES = max(1, int(12 * SCALE))
EMPTY, BLACK, WHITE = 0, 1, 2


def neighbours(size):
    table = []
    for p in range(size * size):
        r, c = divmod(p, size)
        table.append([q for q, ok in ((p - size, r > 0), (p + size, r < size - 1), (p - 1, c > 0), (p + 1, c < size - 1)) if ok])
    return table


NEIGH = neighbours(SIZE)


def group(board, p):
    colour = board[p]
    stones, liberties, frontier = {p}, set(), [p]
    while frontier:
        q = frontier.pop()
        for n in NEIGH[q]:
            if board[n] == EMPTY:
                liberties.add(n)
            elif board[n] == colour and n not in stones:
                stones.add(n)
                frontier.append(n)
    return stones, liberties


def play(board, p, colour):
    board[p] = colour
    other = 3 - colour
    captured = 0
    for n in NEIGH[p]:
        if board[n] == other:
            stones, libs = group(board, n)
            if not libs:
                for s in stones:
                    board[s] = EMPTY
                captured += len(stones)
    stones, libs = group(board, p)
    if not libs:  # suicide: undo
        board[p] = EMPTY
        return False
    return True


def eye_of(board, p, colour):
    return all(board[n] == colour for n in NEIGH[p])


def playout(rng):
    board = [EMPTY] * (SIZE * SIZE)
    colour, passes, moves = BLACK, 0, 0
    while passes < 2 and moves < 3 * SIZE * SIZE:
        empties = [p for p in range(SIZE * SIZE) if board[p] == EMPTY and not eye_of(board, p, colour)]
        rng.shuffle(empties)
        for p in empties:
            if play(board, p, colour):
                passes = 0
                break
        else:
            passes += 1
        colour = 3 - colour
        moves += 1
    return sum(1 if s == BLACK else -1 if s == WHITE else 0 for s in board)


def bench(loops):
    for _ in range(loops):
        rng = random.Random(42)
        scores = [playout(rng) for _ in range(GAMES)]
        assert all(-SIZE * SIZE <= s <= SIZE * SIZE for s in scores)
