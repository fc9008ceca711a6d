"""regex_compile: compiling a set of regular expressions with the cache
purged each time: the sre parser and compiler build and drop many small
lists, tuples and strings."""

import re

PATTERNS = [
    r"^(\w+)\s*=\s*(.*)$", r"(\d{1,3}\.){3}\d{1,3}", r"[A-Za-z_][A-Za-z0-9_]*", r"<([a-z]+)([^<]+)*(?:>(.*)<\/\1>|\s+\/>)",
    r"(?P<year>\d{4})-(?P<month>\d\d)-(?P<day>\d\d)", r"(?i)(?:https?|ftp)://[^\s/$.?#].[^\s]*",
    r"^\s*#\s*(include|define|ifdef|ifndef|endif)\b", r"(a|b|c|d|e)*(x|y|z)+[0-9]{2,5}?", r"\b(\w+)\s+\1\b",
    r"[^\x00-\x7f]+", r"(?:(?:25[0-5]|2[0-4]\d|1?\d?\d)\.){3}", r"\$\{([^}]+)\}", r"(?s)/\*.*?\*/",
    r"[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?", r"(?m)^(?:From|To|Subject): (.*)$",
]
REPEAT = max(1, int(10 * SCALE))


def bench(loops):
    for _ in range(loops):
        for _ in range(REPEAT):
            re.purge()
            compiled = [re.compile(p) for p in PATTERNS]
        assert compiled[4].match("2024-01-31").group("month") == "01"
