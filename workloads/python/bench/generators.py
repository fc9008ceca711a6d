"""generators: walking a binary tree through recursive generators (yield
from), and pipelines of generator expressions: a frame object per
generator, created and freed constantly."""

DEPTH = max(3, int(14 + (SCALE >= 1) - 4 * (SCALE < 0.1)))


class Tree:
    __slots__ = ("left", "value", "right")

    def __init__(self, left, value, right):
        self.left, self.value, self.right = left, value, right

    def __iter__(self):
        if self.left:
            yield from self.left
        yield self.value
        if self.right:
            yield from self.right


def build(lo, hi):
    if lo >= hi:
        return None
    mid = (lo + hi) // 2
    return Tree(build(lo, mid), mid, build(mid + 1, hi))


def bench(loops):
    n = 2 ** DEPTH
    for _ in range(loops):
        tree = build(0, n)
        assert sum(tree) == n * (n - 1) // 2
        evens = (x for x in tree if x % 2 == 0)
        squares = (x * x for x in evens)
        assert sum(1 for _ in squares) == n // 2
