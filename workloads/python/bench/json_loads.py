"""json_loads: decoding JSON documents into dicts, lists, strings, ints and
floats: every value is a new object."""

import json

REPEAT = max(1, int(100 * SCALE))
DOC = json.dumps([
    {"id": i, "name": "user%d" % i, "score": i * 1.5, "active": i % 2 == 0, "tags": ["x", "yy", "zzz"][: i % 4],
     "text": "naïve café %d 中文" % i, "nested": {"a": [1, 2, {"b": None}]}}
    for i in range(40)
])


def bench(loops):
    for _ in range(loops):
        for _ in range(REPEAT):
            data = json.loads(DOC)
        assert data[3]["name"] == "user3"
