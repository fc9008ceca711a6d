"""unpickle: rebuilding the pickle benchmark's data with the C unpickler:
one new object per value."""

import pickle as _pickle

from pickle_data import DATA

REPEAT = max(1, int(60 * SCALE))
BLOB = _pickle.dumps(DATA, protocol=5)


def bench(loops):
    for _ in range(loops):
        for _ in range(REPEAT):
            data = _pickle.loads(BLOB)
        assert data["records"][1]["name"] == DATA["records"][1]["name"]
