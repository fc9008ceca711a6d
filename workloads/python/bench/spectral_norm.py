"""spectral_norm: the largest singular value of an infinite matrix
A[i][j] = 1/((i+j)(i+j+1)/2+i+1), by power iteration on lists of floats."""

N = max(2, int(120 * SCALE ** 0.5))


def a(i, j):
    return 1.0 / ((i + j) * (i + j + 1) // 2 + i + 1)


def times(u):
    n = len(u)
    return [sum(a(i, j) * u[j] for j in range(n)) for i in range(n)]


def times_transposed(u):
    n = len(u)
    return [sum(a(j, i) * u[j] for j in range(n)) for i in range(n)]


def bench(loops):
    for _ in range(loops):
        u = [1.0] * N
        for _ in range(10):
            v = times_transposed(times(u))
            u = times_transposed(times(v))
        vbv = sum(x * y for x, y in zip(u, v))
        vv = sum(y * y for y in v)
        assert 1.27 < (vbv / vv) ** 0.5 < 1.28
