"""The data the pickle benchmarks share: records of mixed types, a few
instances, long and short strings, nested containers."""

import datetime


class Record:
    def __init__(self, i):
        self.i = i
        self.label = "record-%d" % i
        self.values = [i * 0.5, i * 2, str(i)]

    def __eq__(self, other):
        return isinstance(other, Record) and vars(self) == vars(other)


DATA = {
    "records": [{"name": "person %d" % i, "score": i * 3.25, "tags": ("a", "b", i), "when": datetime.date(2020, 1, 1 + i % 28),
                 "blob": b"\x00\x01" * (i % 7), "text": "naïve – %d" % i} for i in range(60)],
    "objects": [Record(i) for i in range(20)],
    "numbers": list(range(200)) + [2 ** 70, -1.5e300],
    "long": "x" * 2000,
    "nested": [[[i, str(i)] for i in range(5)] for _ in range(10)],
}
