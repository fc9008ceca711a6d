"""telco: the telephone-billing calculation in decimal arithmetic (call
durations priced at two rates, taxes rounded half-even), summed over
generated calls: Decimal objects throughout (the C _decimal module)."""

import random
from decimal import ROUND_DOWN, ROUND_HALF_EVEN, Decimal, getcontext

CALLS = max(10, int(5000 * SCALE))
rng = random.Random(99)
DURATIONS = [rng.randrange(1, 10000) for _ in range(CALLS)]
KINDS = [rng.random() < 0.5 for _ in range(CALLS)]

RATE_LOCAL = Decimal("0.0013")
RATE_DISTANCE = Decimal("0.00894")
BASIC_TAX = Decimal("0.0675")
DISTANCE_TAX = Decimal("0.0341")
CENT = Decimal("0.01")


def bill():
    getcontext().rounding = ROUND_DOWN
    total = basic = distance = Decimal(0)
    for seconds, is_distance in zip(DURATIONS, KINDS):
        price = (Decimal(seconds) * (RATE_DISTANCE if is_distance else RATE_LOCAL)).quantize(CENT, ROUND_HALF_EVEN)
        b = (price * BASIC_TAX).quantize(CENT, ROUND_DOWN)
        basic += b
        if is_distance:
            d = (price * DISTANCE_TAX).quantize(CENT, ROUND_DOWN)
            distance += d
            price += d
        total += price + b
    return total, basic, distance


def bench(loops):
    for _ in range(loops):
        total, basic, distance = bill()
        assert total > basic > 0 and distance > 0
