"""regex_match: searching generated text with a mix of patterns: match
objects, group strings and findall lists are the allocations."""

import random
import re

rng = random.Random(7)
WORDS = ["alpha", "beta", "gamma", "delta", "mail", "user", "example", "value", "2024", "error", "warning"]
LINES = []
for i in range(max(20, int(2000 * SCALE))):
    kind = i % 4
    if kind == 0:
        LINES.append("%s@%s.org wrote at 12:%02d" % (rng.choice(WORDS), rng.choice(WORDS), i % 60))
    elif kind == 1:
        LINES.append("key_%d = %s %s" % (i, rng.choice(WORDS), rng.random()))
    elif kind == 2:
        LINES.append("GET /%s/%d.html HTTP/1.1 200 %d" % (rng.choice(WORDS), i, rng.randrange(99999)))
    else:
        LINES.append(" ".join(rng.choice(WORDS) for _ in range(8)))
TEXT = "\n".join(LINES)

EMAIL = re.compile(r"([\w.]+)@([\w.]+)\.(org|com)")
ASSIGN = re.compile(r"^(\w+)\s*=\s*(.*)$", re.M)
REQUEST = re.compile(r'(GET|POST) (/\S*) HTTP/1\.[01] (\d{3}) (\d+)')
WORD = re.compile(r"\b(?:error|warning)\b")
NUMBER = re.compile(r"\d+\.\d+")


def bench(loops):
    for _ in range(loops):
        emails = [m.group(1, 2) for m in EMAIL.finditer(TEXT)]
        assigns = dict(ASSIGN.findall(TEXT))
        sizes = sum(int(m.group(4)) for m in REQUEST.finditer(TEXT))
        words = len(WORD.findall(TEXT))
        numbers = NUMBER.sub("<n>", TEXT)
        assert emails and assigns and sizes >= 0 and words >= 0 and "<n>" in numbers
