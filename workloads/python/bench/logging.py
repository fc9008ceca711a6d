"""logging: records through a logger with a formatter into an in-memory
stream, plus messages below the level that are dropped early: LogRecord
objects, formatted strings and the stream's buffer."""

import io
import logging as _logging

MESSAGES = max(10, int(2000 * SCALE))

stream = io.StringIO()
handler = _logging.StreamHandler(stream)
handler.setFormatter(_logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
# A logger of this namespace's own: with threads, each runs this file and
# must not take another's handler.
logger = _logging.getLogger("alloclab.bench.%x" % id(stream))
logger.handlers[:] = [handler]
logger.propagate = False
logger.setLevel(_logging.INFO)


def bench(loops):
    for _ in range(loops):
        stream.seek(0)
        stream.truncate()
        for i in range(MESSAGES):
            logger.info("request %d from %s took %.3f ms", i, "10.0.0.%d" % (i % 255), i * 0.01)
            logger.debug("dropped %d", i)
            if i % 10 == 0:
                logger.warning("slow request %d", i)
        assert stream.tell() > 0
