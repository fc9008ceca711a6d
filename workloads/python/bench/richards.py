"""richards: an operating-system simulation in the manner of Martin
Richards' benchmark: tasks of four kinds (idle, worker, handler, device)
pass packets through a scheduler. Objects and method calls, few
allocations per step: it shows what the allocator cannot move."""

COUNT = max(10, int(4000 * SCALE))


class Packet:
    __slots__ = ("link", "dest", "kind", "datum", "data")

    def __init__(self, link, dest, kind):
        self.link, self.dest, self.kind, self.datum, self.data = link, dest, kind, 0, [0] * 4


def append(packet, queue):
    packet.link = None
    if queue is None:
        return packet
    last = queue
    while last.link is not None:
        last = last.link
    last.link = packet
    return queue


class Task:
    def __init__(self, scheduler, ident, priority, queue):
        self.s, self.ident, self.priority, self.queue = scheduler, ident, priority, queue
        self.waiting = queue is not None and False
        self.held = False
        self.runnable = queue is not None

    def take(self):
        packet = self.queue
        self.queue = packet.link
        self.runnable = self.queue is not None
        return packet


class Scheduler:
    def __init__(self):
        self.tasks = {}
        self.qpkt = 0
        self.holds = 0

    def add(self, task):
        self.tasks[task.ident] = task

    def send(self, packet, dest):
        task = self.tasks[dest]
        self.qpkt += 1
        packet.link = None
        task.queue = append(packet, task.queue)
        task.runnable = True

    def run(self, limit):
        order = sorted(self.tasks.values(), key=lambda t: -t.priority)
        steps = 0
        while steps < limit:
            progressed = False
            for task in order:
                if task.runnable and not task.held:
                    task.step()
                    progressed = True
                    steps += 1
                    break
            if not progressed:
                for task in order:
                    task.held = False
                order[-1].step()
                steps += 1


class Idle(Task):
    def __init__(self, s, count):
        super().__init__(s, 0, 0, None)
        self.runnable, self.count, self.seed = True, count, 1

    def step(self):
        self.count -= 1
        if self.seed & 1:
            self.seed = (self.seed >> 1) ^ 0xD008
            self.s.tasks[5].held = False
        else:
            self.seed >>= 1
            self.s.tasks[4].held = False


class Worker(Task):
    def __init__(self, s, queue):
        super().__init__(s, 1, 1000, queue)
        self.dest, self.n = 2, 0

    def step(self):
        packet = self.take()
        self.dest = 3 if self.dest == 2 else 2
        for i in range(4):
            self.n = self.n % 26 + 1
            packet.data[i] = self.n
        self.s.send(packet, self.dest)


class Handler(Task):
    def __init__(self, s, ident, queue):
        super().__init__(s, ident, 2000 + ident, queue)

    def step(self):
        packet = self.take()
        packet.datum = (packet.datum + 1) % 4
        self.s.send(packet, 4 + (self.ident - 2))
        self.s.holds += 1


class Device(Task):
    def __init__(self, s, ident):
        super().__init__(s, ident, 4000 + ident, None)

    def step(self):
        if self.queue is None:
            self.held = True
            return
        packet = self.take()
        self.s.send(Packet(None, 1, 1), 1)
        del packet


def simulate(count):
    s = Scheduler()
    s.add(Idle(s, count))
    queue = append(Packet(None, 0, 1), Packet(None, 0, 1))
    s.add(Worker(s, queue))
    for ident in (2, 3):
        q = None
        for _ in range(3):
            q = append(Packet(None, ident, 0), q)
        s.add(Handler(s, ident, q))
    s.add(Device(s, 4))
    s.add(Device(s, 5))
    s.run(count)
    return s.qpkt, s.holds


def bench(loops):
    for _ in range(loops):
        qpkt, holds = simulate(COUNT)
        assert qpkt > 0 and holds > 0
