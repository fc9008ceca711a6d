"""scimark_lu: LU factorisation with partial pivoting of a dense matrix
held as lists of float lists."""

N = max(4, int(60 * SCALE ** 0.5))


def lu(a):
    n = len(a)
    pivots = list(range(n))
    for j in range(n):
        p = max(range(j, n), key=lambda i: abs(a[i][j]))
        if p != j:
            a[p], a[j] = a[j], a[p]
            pivots[p], pivots[j] = pivots[j], pivots[p]
        inv = 1.0 / a[j][j]
        for i in range(j + 1, n):
            a[i][j] *= inv
        for i in range(j + 1, n):
            row, pivot_row, m = a[i], a[j], a[i][j]
            for k in range(j + 1, n):
                row[k] -= m * pivot_row[k]
    return pivots


def bench(loops):
    for _ in range(loops):
        a = [[((i * 31 + j * 17) % 101) / 101.0 + (i == j) for j in range(N)] for i in range(N)]
        pivots = lu(a)
        assert sorted(pivots) == list(range(N))
