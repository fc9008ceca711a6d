"""pathlib: path objects joined, split, compared and converted, over the
names of the standard library's own files (read-only: it only lists a
folder)."""

import os
import pathlib as _pathlib

ROOT = _pathlib.Path(os.__file__).parent
NAMES = sorted(p.name for p in ROOT.iterdir())[: max(10, int(400 * SCALE))]


def bench(loops):
    for _ in range(loops):
        total = 0
        for name in NAMES:
            p = ROOT / "sub" / name
            q = _pathlib.PurePosixPath("/tmp", "x", name).with_suffix(".txt")
            total += len(p.parts) + len(q.stem) + len(str(p.parent)) + (p.suffix == ".py")
            total += len(p.relative_to(ROOT).as_posix())
        listed = sum(1 for _ in ROOT.glob("*.py"))
        assert total > 0 and listed > 0
