"""deltablue: an incremental constraint solver in the manner of DeltaBlue:
variables joined by equality and scale constraints of several strengths;
adding and removing constraints re-plans which way each one is satisfied.
Many small objects with lists of references."""

N = max(10, int(2000 * SCALE))
REQUIRED, STRONG, MEDIUM, WEAK = 0, 1, 2, 3


class Variable:
    __slots__ = ("name", "value", "constraints", "determined_by", "walk_strength", "stay", "mark")

    def __init__(self, name, value=0):
        self.name, self.value = name, value
        self.constraints = []
        self.determined_by = None
        self.walk_strength = WEAK + 1
        self.stay = True
        self.mark = 0


class Constraint:
    def __init__(self, strength, inputs, output):
        self.strength, self.inputs, self.output = strength, inputs, output
        for v in inputs + [output]:
            v.constraints.append(self)

    def satisfiable(self):
        return self.strength < self.output.walk_strength or self.output.determined_by is self

    def execute(self):
        raise NotImplementedError

    def remove(self):
        for v in self.inputs + [self.output]:
            v.constraints.remove(self)
        if self.output.determined_by is self:
            self.output.determined_by = None
            self.output.walk_strength = WEAK + 1


class Equality(Constraint):
    def execute(self):
        self.output.value = self.inputs[0].value


class Scale(Constraint):
    def __init__(self, strength, src, scale, offset, dst):
        super().__init__(strength, [src, scale, offset], dst)

    def execute(self):
        src, scale, offset = self.inputs
        self.output.value = src.value * scale.value + offset.value


class Planner:
    def __init__(self):
        self.mark = 0

    def satisfy(self, constraint):
        if not constraint.satisfiable():
            return False
        out = constraint.output
        out.determined_by = constraint
        out.walk_strength = constraint.strength
        return True

    def propagate(self, start):
        self.mark += 1
        frontier = [start]
        plan = []
        while frontier:
            v = frontier.pop()
            if v.mark == self.mark:
                continue
            v.mark = self.mark
            for c in v.constraints:
                if c.output is not v and c.output.determined_by is c:
                    plan.append(c)
                    frontier.append(c.output)
        for c in plan:
            c.execute()
        return len(plan)


def chain_test(n):
    planner = Planner()
    vs = [Variable("v%d" % i) for i in range(n + 1)]
    cs = []
    for a, b in zip(vs, vs[1:]):
        c = Equality(REQUIRED, [a], b)
        planner.satisfy(c)
        cs.append(c)
    for value in (17, 42, 100):
        vs[0].value = value
        planner.propagate(vs[0])
        assert vs[-1].value == value
    for c in cs:
        c.remove()


def projection_test(n):
    planner = Planner()
    scale, offset = Variable("scale", 10), Variable("offset", 1000)
    srcs, dsts = [], []
    for i in range(n):
        src, dst = Variable("src", i), Variable("dst", i)
        c = Scale(STRONG, src, scale, offset, dst)
        planner.satisfy(c)
        c.execute()
        srcs.append(src)
        dsts.append(dst)
    scale.value = 5
    planner.propagate(scale)
    assert dsts[n - 1].value == (n - 1) * 5 + 1000


def bench(loops):
    for _ in range(loops):
        chain_test(N)
        projection_test(N)
