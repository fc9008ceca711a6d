"""chaos: the chaos game draws a fractal: a point jumps by a randomly
chosen affine map, thousands of times, and lands in a grid of lists.
Points are small objects made and dropped at every step."""

import random

ITERATIONS = max(100, int(60000 * SCALE))
SIZE = 128


class Point:
    __slots__ = ("x", "y")

    def __init__(self, x, y):
        self.x, self.y = x, y


# The Barnsley fern: (a, b, c, d, e, f, cumulative probability).
MAPS = [
    (0.0, 0.0, 0.0, 0.16, 0.0, 0.0, 0.01),
    (0.85, 0.04, -0.04, 0.85, 0.0, 1.6, 0.86),
    (0.2, -0.26, 0.23, 0.22, 0.0, 1.6, 0.93),
    (-0.15, 0.28, 0.26, 0.24, 0.0, 0.44, 1.0),
]


def play(n, seed):
    rng = random.Random(seed)
    grid = [[0] * SIZE for _ in range(SIZE)]
    p = Point(0.0, 0.0)
    for _ in range(n):
        r = rng.random()
        for a, b, c, d, e, f, cum in MAPS:
            if r <= cum:
                break
        p = Point(a * p.x + b * p.y + e, c * p.x + d * p.y + f)
        col = int((p.x + 2.75) / 5.5 * (SIZE - 1))
        row = int(p.y / 10.0 * (SIZE - 1))
        if 0 <= col < SIZE and 0 <= row < SIZE:
            grid[row][col] += 1
    return grid


def bench(loops):
    for _ in range(loops):
        grid = play(ITERATIONS, 1234)
        assert sum(map(sum, grid)) > ITERATIONS // 2
