"""coroutines: recursive Fibonacci through async functions awaited one
inside another, driven by send() without an event loop: a coroutine
object and its frame per call."""

N = max(10, int(22 + (SCALE >= 1) - 8 * (SCALE < 0.1)))


class Ready:
    def __await__(self):
        yield


async def fib(n):
    if n <= 1:
        if n == 1:
            await Ready()
        return n
    return await fib(n - 1) + await fib(n - 2)


def run(coro):
    try:
        while True:
            coro.send(None)
    except StopIteration as stop:
        return stop.value


FIB = {12: 144, 14: 377, 22: 17711, 23: 28657}


def bench(loops):
    for _ in range(loops):
        assert run(fib(N)) == FIB[N]
