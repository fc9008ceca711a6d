"""tomllib: parsing TOML configuration text with the standard library's
pure-Python parser (3.11): strings, tables, arrays and dates."""

import tomllib as _tomllib

SECTIONS = max(2, int(60 * SCALE))
DOC = "\n".join(
    '[server_%d]\nhost = "10.0.%d.%d"\nport = %d\nenabled = %s\ntags = ["a", "b", "c%d"]\n'
    'limits = { cpu = %d, memory = "%dMi" }\nstarted = 2024-01-%02dT10:20:30Z\n'
    'description = """multi-line\ntext for server %d"""\n' % (i, i // 256, i % 256, 8000 + i, str(i % 2 == 0).lower(), i,
                                                             i % 8 + 1, 256 * (i % 4 + 1), i % 28 + 1, i)
    for i in range(SECTIONS)
)


def bench(loops):
    for _ in range(loops):
        data = _tomllib.loads(DOC)
        assert data["server_1"]["port"] == 8001
