"""nbody: the five outer planets under Newtonian gravity, advanced in small
time steps. Float arithmetic on a handful of lists: almost every float is a
new object, freed at once (the float free list takes most of them)."""

SOLAR_MASS = 4 * 3.141592653589793 ** 2
DAYS = 365.24

PLANETS = [
    # position (AU), velocity (AU/day), mass (solar masses)
    ([0.0, 0.0, 0.0], [0.0, 0.0, 0.0], 1.0),
    ([4.84143144246472090e+00, -1.16032004402742839e+00, -1.03622044471123109e-01],
     [1.66007664274403694e-03, 7.69901118419740425e-03, -6.90460016972063023e-05], 9.54791938424326609e-04),
    ([8.34336671824457987e+00, 4.12479856412430479e+00, -4.03523417114321381e-01],
     [-2.76742510726862411e-03, 4.99852801234917238e-03, 2.30417297573763929e-05], 2.85885980666130812e-04),
    ([1.28943695621391310e+01, -1.51111514016986312e+01, -2.23307578892655734e-01],
     [2.96460137564761618e-03, 2.37847173959480950e-03, -2.96589568540237556e-05], 4.36624404335156298e-05),
    ([1.53796971148509165e+01, -2.59193146099879641e+01, 1.79258772950371181e-01],
     [2.68067772490389322e-03, 1.62824170038242295e-03, -9.51592254519715870e-05], 5.15138902046611451e-05),
]

STEPS = max(1, int(2000 * SCALE))


def make_system():
    bodies = [([*p], [v * DAYS for v in vel], m * SOLAR_MASS) for p, vel, m in PLANETS]
    px = py = pz = 0.0
    for _, v, m in bodies:
        px += v[0] * m
        py += v[1] * m
        pz += v[2] * m
    sun_v = bodies[0][1]
    sun_v[0], sun_v[1], sun_v[2] = -px / SOLAR_MASS, -py / SOLAR_MASS, -pz / SOLAR_MASS
    return bodies


def energy(bodies):
    e = 0.0
    for i, (p1, v1, m1) in enumerate(bodies):
        e += 0.5 * m1 * (v1[0] * v1[0] + v1[1] * v1[1] + v1[2] * v1[2])
        for p2, _, m2 in bodies[i + 1:]:
            dx, dy, dz = p1[0] - p2[0], p1[1] - p2[1], p1[2] - p2[2]
            e -= m1 * m2 / (dx * dx + dy * dy + dz * dz) ** 0.5
    return e


def advance(bodies, pairs, dt, steps):
    for _ in range(steps):
        for (p1, v1, m1), (p2, v2, m2) in pairs:
            dx, dy, dz = p1[0] - p2[0], p1[1] - p2[1], p1[2] - p2[2]
            mag = dt * (dx * dx + dy * dy + dz * dz) ** -1.5
            b1, b2 = m1 * mag, m2 * mag
            v1[0] -= dx * b2
            v1[1] -= dy * b2
            v1[2] -= dz * b2
            v2[0] += dx * b1
            v2[1] += dy * b1
            v2[2] += dz * b1
        for p, v, _ in bodies:
            p[0] += dt * v[0]
            p[1] += dt * v[1]
            p[2] += dt * v[2]


def bench(loops):
    for _ in range(loops):
        bodies = make_system()
        pairs = [(bodies[i], bodies[j]) for i in range(len(bodies)) for j in range(i + 1, len(bodies))]
        before = energy(bodies)
        advance(bodies, pairs, 0.01, STEPS)
        assert abs(energy(bodies) - before) < 1e-3
