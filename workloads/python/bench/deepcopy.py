"""deepcopy: copy.deepcopy of nested containers and instances: the memo
dict, a new object for every node, and the reductions protocol."""

import copy
from dataclasses import dataclass, field

COPIES = max(1, int(200 * SCALE))


@dataclass
class Node:
    name: str
    weight: float
    children: list = field(default_factory=list)
    tags: dict = field(default_factory=dict)


def build(depth, breadth):
    node = Node("n%d" % depth, depth * 1.5, [], {"depth": depth, "path": ("a", "b", depth)})
    if depth:
        node.children = [build(depth - 1, breadth) for _ in range(breadth)]
    return node


DATA = {
    "tree": build(3, 3),
    "list": [list(range(10)), [str(i) for i in range(10)], {i: (i, str(i)) for i in range(10)}],
    "shared": None,
}
DATA["shared"] = DATA["list"]  # a reference the memo must keep shared


def bench(loops):
    for _ in range(loops):
        for _ in range(COPIES):
            c = copy.deepcopy(DATA)
            assert c["shared"] is c["list"] and c["tree"].children[0].name == "n2"
