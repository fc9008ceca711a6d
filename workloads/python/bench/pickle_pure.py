"""pickle_pure: the pickle benchmark's data through the pure-Python
pickler (pickle._Pickler): the same output, built by Python code."""

import io
import pickle as _pickle

from pickle_data import DATA

REPEAT = max(1, int(6 * SCALE))


def bench(loops):
    for _ in range(loops):
        for _ in range(REPEAT):
            f = io.BytesIO()
            _pickle._Pickler(f, protocol=4).dump(DATA)
        assert f.getvalue()
