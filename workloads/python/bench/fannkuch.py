"""fannkuch: the most pancake flips over all permutations of 1..n, on
lists sliced and reversed (many short-lived small lists)."""

N = 8 if SCALE >= 0.5 else 6


def fannkuch(n):
    count = list(range(1, n + 1))
    perm1 = list(range(n))
    max_flips = 0
    r = n
    while True:
        while r != 1:
            count[r - 1] = r
            r -= 1
        if perm1[0] != 0 and perm1[-1] != n - 1:
            perm = perm1[:]
            flips = 0
            k = perm[0]
            while k:
                perm[:k + 1] = perm[k::-1]
                flips += 1
                k = perm[0]
            max_flips = max(max_flips, flips)
        while r != n:
            perm1.insert(r, perm1.pop(0))
            count[r] -= 1
            if count[r] > 0:
                break
            r += 1
        else:
            return max_flips


EXPECTED = {6: 10, 8: 22}


def bench(loops):
    for _ in range(loops):
        assert fannkuch(N) == EXPECTED[N]
