"""What a benchmark can raise to say it cannot run here, shared by the
harness and the pyperf stand-in so that neither imports the other."""


class NotApplicable(Exception):
    """The benchmark cannot run here (a library missing, an unsupported
    pyperf call): the cell is "not applicable" with this message."""
