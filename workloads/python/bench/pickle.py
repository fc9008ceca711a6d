"""pickle: serialising dicts, lists, tuples, strings, floats and instances
with the C pickler (protocol 5)."""

import pickle as _pickle

from pickle_data import DATA

REPEAT = max(1, int(60 * SCALE))


def bench(loops):
    for _ in range(loops):
        for _ in range(REPEAT):
            blob = _pickle.dumps(DATA, protocol=5)
        assert blob
