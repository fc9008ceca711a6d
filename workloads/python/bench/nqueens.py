"""nqueens: every solution of the n-queens problem by filtering the
permutations through generator expressions and sets."""

from itertools import permutations

N = 8 if SCALE >= 0.5 else 6
SOLUTIONS = {6: 4, 8: 92}


def solutions(n):
    cols = range(n)
    for vec in permutations(cols):
        if n == len({vec[i] + i for i in cols}) == len({vec[i] - i for i in cols}):
            yield vec


def bench(loops):
    for _ in range(loops):
        assert sum(1 for _ in solutions(N)) == SOLUTIONS[N]
