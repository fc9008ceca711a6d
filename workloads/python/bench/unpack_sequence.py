"""unpack_sequence: tuples and lists unpacked into locals, over and over:
one small list per starred unpacking, and nothing else allocated."""

REPEAT = max(1, int(20000 * SCALE))


def unpack(t, l):
    for _ in range(REPEAT):
        a, b, c, d, e, f, g, h, i, j = t
        a, b, c, d, e, f, g, h, i, j = l
        a, b, c, d, e, f, g, h, i, j = t
        a, b, c, d, e, f, g, h, i, j = l
        a, *rest = t
    return a + j + len(rest)


def bench(loops):
    t = tuple(range(10))
    l = list(range(10))
    for _ in range(loops):
        assert unpack(t, l) == 9 + 9
