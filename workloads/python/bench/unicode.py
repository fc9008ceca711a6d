"""unicode: str operations on mixed-width text (Latin-1, BMP and astral
characters, so all of CPython's string kinds): split, join, case mapping,
encode/decode, slicing and replacement. Strings of many sizes."""

PIECES = ["plain ascii words", "café crème brûlée", "Ελληνικά κείμενα", "中文字符测试", "emoji 😀🎉 mix", "Ünïcödé"]
REPEAT = max(1, int(300 * SCALE))


def work(text):
    words = text.split()
    upper = " ".join(w.upper() for w in words)
    title = text.title()
    encoded = text.encode("utf-8")
    decoded = encoded.decode("utf-8")
    utf16 = text.encode("utf-16-le").decode("utf-16-le")
    replaced = text.replace("a", "ä").replace("e", "€")
    pieces = [text[i:i + 7] for i in range(0, len(text), 7)]
    return len(upper) + len(title) + len(decoded) + len(utf16) + len(replaced) + len("".join(pieces))


def bench(loops):
    for _ in range(loops):
        total = 0
        for i in range(REPEAT):
            text = " ".join(PIECES[(i + k) % len(PIECES)] for k in range(6)) + " %d" % i
            total += work(text)
        assert total > 0
