"""unpickle_pure: the pickle benchmark's data read back by the
pure-Python unpickler (pickle._Unpickler)."""

import io
import pickle as _pickle

from pickle_data import DATA

REPEAT = max(1, int(6 * SCALE))
BLOB = _pickle.dumps(DATA, protocol=4)


def bench(loops):
    for _ in range(loops):
        for _ in range(REPEAT):
            data = _pickle._Unpickler(io.BytesIO(BLOB)).load()
        assert data["records"][2]["score"] == DATA["records"][2]["score"]
