"""Exact two-sided rank tests for the benchmark scripts' small samples
(a few to a few dozen processes or runs): one copy, imported by the
scripts that need them (resolve-small.sh, memory-native.sh)."""
import math
from functools import lru_cache


def signed_rank_p(d):
    """Wilcoxon signed-rank p of paired differences (no zeros in time ratios)."""
    n = len(d)
    order = sorted(range(n), key=lambda i: abs(d[i]))
    w = sum(r + 1 for r, i in enumerate(order) if d[i] > 0)
    counts = [1] + [0] * (n * (n + 1) // 2)
    for k in range(1, n + 1):
        for s in range(len(counts) - 1, k - 1, -1):
            counts[s] += counts[s - k]
    total = 2 ** n
    lo = sum(counts[:w + 1]) / total
    hi = sum(counts[w:]) / total
    return min(1.0, 2 * min(lo, hi))


def rank_sum_p(a, b):
    """Mann-Whitney p of two samples; a tie counts half to U, and the
    distribution is the untied one (few ties: process means, peaks in KiB)."""
    n, m = len(a), len(b)
    if n == 0 or m == 0:
        return 1.0
    u = sum(1 for x in a for y in b if x < y) + 0.5 * sum(1 for x in a for y in b if x == y)

    @lru_cache(None)
    def ways(i, j, s):
        if s < 0:
            return 0
        if i == 0 or j == 0:
            return 1 if s == 0 else 0
        return ways(i - 1, j, s - j) + ways(i, j - 1, s)

    total = math.comb(n + m, n)
    lo = sum(ways(n, m, s) for s in range(0, int(math.floor(u)) + 1)) / total
    hi = sum(ways(n, m, s) for s in range(int(math.ceil(u)), n * m + 1)) / total
    return min(1.0, 2 * min(lo, hi))
