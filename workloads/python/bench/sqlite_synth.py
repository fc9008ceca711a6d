"""sqlite_synth: an in-memory SQLite database driven through the sqlite3
module: a table filled and queried, with a Python aggregate and function
called back from SQL (rows and values cross into Python objects)."""

import sqlite3

ROWS = max(10, int(2000 * SCALE))


class Median:
    def __init__(self):
        self.values = []

    def step(self, value):
        self.values.append(value)

    def finalize(self):
        v = sorted(self.values)
        return v[len(v) // 2] if v else None


def bench(loops):
    for _ in range(loops):
        db = sqlite3.connect(":memory:")
        db.create_function("label", 1, lambda x: "item-%d" % x)
        db.create_aggregate("median", 1, Median)
        db.execute("create table t (id integer primary key, grp integer, value real, name text)")
        db.executemany("insert into t values (?, ?, ?, ?)", ((i, i % 10, i * 0.5, "n%d" % i) for i in range(ROWS)))
        rows = db.execute("select grp, median(value), count(*) from t group by grp").fetchall()
        names = db.execute("select label(id) from t where value > ?", (ROWS / 4,)).fetchall()
        db.close()
        assert len(rows) == 10 and names
