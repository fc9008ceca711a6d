"""sympy: symbolic algebra with SymPy: expanding a polynomial power,
differentiating and simplifying, and integrating a product: expression
trees of many small immutable nodes. Needs python3-sympy."""

import sympy as _sympy

x, y, z = _sympy.symbols("x y z")
POWER = max(3, int(12 * SCALE ** 0.5))


def bench(loops):
    for _ in range(loops):
        _sympy.core.cache.clear_cache()  # so every iteration computes
        e = _sympy.expand((x + y + z + 1) ** POWER)
        d = _sympy.diff(e, x, 2)
        i = _sympy.integrate(x ** 3 * _sympy.sin(x), x)
        s = _sympy.simplify(_sympy.sin(x) ** 2 + _sympy.cos(x) ** 2)
        assert s == 1 and d != 0 and i != 0
