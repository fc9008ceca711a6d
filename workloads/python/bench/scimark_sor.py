"""scimark_sor: successive over-relaxation on a grid of lists of floats,
in the manner of the SciMark kernels."""

N = max(4, int(60 * SCALE ** 0.5))
CYCLES = 5


def sor(grid, omega, cycles):
    n = len(grid)
    f = omega * 0.25
    g = 1.0 - omega
    for _ in range(cycles):
        for i in range(1, n - 1):
            up, row, down = grid[i - 1], grid[i], grid[i + 1]
            for j in range(1, n - 1):
                row[j] = f * (up[j] + down[j] + row[j - 1] + row[j + 1]) + g * row[j]


def bench(loops):
    for _ in range(loops):
        grid = [[((i * 7 + j * 13) % 17) / 17.0 for j in range(N)] for i in range(N)]
        sor(grid, 1.25, CYCLES)
        assert 0.0 <= grid[N // 2][N // 2] <= 1.0
