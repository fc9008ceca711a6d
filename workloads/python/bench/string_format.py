"""string_format: %-formatting, str.format and f-strings of ints, floats
and strings, at several widths: result strings of many sizes."""

REPEAT = max(1, int(3000 * SCALE))


def bench(loops):
    for _ in range(loops):
        out = []
        for i in range(REPEAT):
            x = i * 1.0001
            out.append("%d %5.2f %s" % (i, x, "item"))
            out.append("{0:>10} {1:.3e} {2!r}".format(i, x, "name%d" % i))
            out.append(f"{i:08x}|{x:12.4f}|{str(i) * (i % 5)}")
            out.append("-".join(map(str, (i, i + 1, i + 2))))
        assert len(out) == 4 * REPEAT
