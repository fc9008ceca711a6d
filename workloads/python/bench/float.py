"""float: many small objects with float attributes: create a point per
sample, normalise it, then fold them all into their maximum. Allocation
heavy: an object, its __dict__-less slots and several floats per point."""

import math

POINTS = max(1, int(40000 * SCALE))


class Point:
    __slots__ = ("x", "y", "z")

    def __init__(self, i):
        self.x = x = math.sin(i)
        self.y = math.cos(i) * 3
        self.z = (x * x) / 2

    def normalize(self):
        norm = math.sqrt(self.x * self.x + self.y * self.y + self.z * self.z)
        self.x /= norm
        self.y /= norm
        self.z /= norm

    def maximize(self, other):
        self.x = max(self.x, other.x)
        self.y = max(self.y, other.y)
        self.z = max(self.z, other.z)
        return self


def bench(loops):
    for _ in range(loops):
        points = [Point(i) for i in range(POINTS)]
        for p in points:
            p.normalize()
        best = points[0]
        for p in points[1:]:
            best = best.maximize(p)
        assert 0.99 < best.y <= 1.0
