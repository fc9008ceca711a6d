"""json_dumps: encoding nested dicts, lists, strings and numbers with the
json module (its C accelerator): the output string grows by reallocation."""

import json

REPEAT = max(1, int(100 * SCALE))
DATA = [
    {"id": i, "name": "user%d" % i, "score": i * 1.5, "active": i % 2 == 0, "tags": ["a", "bb", "ccc"][: i % 4],
     "address": {"street": "%d Main St" % i, "city": "Springfield", "zip": "%05d" % i}, "notes": None}
    for i in range(40)
]
UNICODE = {"text": "naïve café – 中文 – 😀" * 4, "list": list(range(50))}


def bench(loops):
    for _ in range(loops):
        for _ in range(REPEAT):
            s = json.dumps(DATA)
            u = json.dumps(UNICODE, ensure_ascii=False, indent=2)
        assert s.startswith("[{") and u
