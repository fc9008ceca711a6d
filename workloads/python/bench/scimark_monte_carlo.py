"""scimark_monte_carlo: pi by throwing points at a quarter circle, with a
random number generator written in Python (an object per draw)."""

SAMPLES = max(100, int(100000 * SCALE))


class Random:
    """A linear congruential generator: Python ints and floats per draw."""

    def __init__(self, seed):
        self.state = seed

    def next_float(self):
        self.state = (self.state * 1103515245 + 12345) & 0x7FFFFFFF
        return self.state / 2147483648.0


def integrate(n):
    rng = Random(113)
    under = 0
    for _ in range(n):
        x = rng.next_float()
        y = rng.next_float()
        if x * x + y * y <= 1.0:
            under += 1
    return under / n * 4.0


def bench(loops):
    for _ in range(loops):
        assert 2.8 < integrate(SAMPLES) < 3.5
