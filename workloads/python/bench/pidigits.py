"""pidigits: digits of pi by the unbounded spigot algorithm: big integers
that grow with every digit (realloc-heavy, sizes far above 512 bytes)."""

DIGITS = max(10, int(1500 * SCALE))


def pi_digits(count):
    q, r, t, k, n, l = 1, 0, 1, 1, 3, 3
    out = []
    while len(out) < count:
        if 4 * q + r - t < n * t:
            out.append(n)
            q, r, n = 10 * q, 10 * (r - n * t), (10 * (3 * q + r)) // t - 10 * n
        else:
            q, r, t, k, n, l = q * k, (2 * q + r) * l, t * l, k + 1, (q * (7 * k + 2) + r * l) // (t * l), l + 2
    return out


def bench(loops):
    for _ in range(loops):
        d = pi_digits(DIGITS)
        assert d[:6] == [3, 1, 4, 1, 5, 9]
