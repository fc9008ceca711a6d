"""raytrace: a small ray tracer: vectors as immutable objects (a new one
per operation), spheres and a plane, diffuse and specular light, one level
of reflection. Short-lived objects of one size dominate."""

import math

WIDTH = HEIGHT = max(4, int(48 * SCALE ** 0.5))


class Vec:
    __slots__ = ("x", "y", "z")

    def __init__(self, x, y, z):
        self.x, self.y, self.z = x, y, z

    def __add__(self, o):
        return Vec(self.x + o.x, self.y + o.y, self.z + o.z)

    def __sub__(self, o):
        return Vec(self.x - o.x, self.y - o.y, self.z - o.z)

    def scale(self, k):
        return Vec(self.x * k, self.y * k, self.z * k)

    def dot(self, o):
        return self.x * o.x + self.y * o.y + self.z * o.z

    def norm(self):
        return self.scale(1.0 / math.sqrt(self.dot(self)))


class Sphere:
    def __init__(self, centre, radius, colour, shine):
        self.c, self.r2, self.colour, self.shine = centre, radius * radius, colour, shine

    def hit(self, origin, d):
        oc = origin - self.c
        b = oc.dot(d)
        disc = b * b - oc.dot(oc) + self.r2
        if disc < 0:
            return None
        t = -b - math.sqrt(disc)
        return t if t > 1e-6 else None

    def normal(self, p):
        return (p - self.c).norm()


class Plane:
    def __init__(self, point, normal, colour):
        self.p, self.n, self.colour, self.shine = point, normal.norm(), colour, 0.1

    def hit(self, origin, d):
        denom = d.dot(self.n)
        if abs(denom) < 1e-9:
            return None
        t = (self.p - origin).dot(self.n) / denom
        return t if t > 1e-6 else None

    def normal(self, p):
        return self.n


SCENE = [
    Sphere(Vec(0, 1, 5), 1.0, Vec(1, 0.2, 0.2), 0.5),
    Sphere(Vec(-1.5, 0.7, 6), 0.7, Vec(0.2, 1, 0.2), 0.3),
    Sphere(Vec(1.6, 0.5, 4.5), 0.5, Vec(0.2, 0.2, 1), 0.7),
    Plane(Vec(0, 0, 0), Vec(0, 1, 0), Vec(0.8, 0.8, 0.8)),
]
LIGHT = Vec(-3, 5, -2)


def trace(origin, d, depth):
    best, obj = None, None
    for o in SCENE:
        t = o.hit(origin, d)
        if t is not None and (best is None or t < best):
            best, obj = t, o
    if obj is None:
        return Vec(0.1, 0.1, 0.15)
    p = origin + d.scale(best)
    n = obj.normal(p)
    to_light = (LIGHT - p).norm()
    shadow = any(o.hit(p, to_light) is not None for o in SCENE if o is not obj)
    diffuse = 0.0 if shadow else max(0.0, n.dot(to_light))
    colour = obj.colour.scale(0.1 + 0.9 * diffuse)
    if depth > 0 and obj.shine > 0:
        r = d - n.scale(2 * d.dot(n))
        colour = colour + trace(p, r.norm(), depth - 1).scale(obj.shine)
    return colour


def render():
    eye = Vec(0, 1, -1)
    total = 0.0
    for y in range(HEIGHT):
        for x in range(WIDTH):
            d = Vec((x - WIDTH / 2) / WIDTH, (HEIGHT / 2 - y) / HEIGHT, 1).norm()
            c = trace(eye, d, 1)
            total += c.x + c.y + c.z
    return total


def bench(loops):
    for _ in range(loops):
        assert render() > 0
