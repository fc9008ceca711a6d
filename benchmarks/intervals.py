"""The 95% intervals the benchmark scripts print, on logarithms of times or
of ratios (a ratio's interval is the exponent of its logarithm's): one
copy, imported by the scripts that need them (paired-slices.sh,
pair-interference.sh, suite-paired.sh, aa-paired.sh, mt-originals.sh).
Student's t from a table of its 95% two-sided quantiles, 2.0 past 30
degrees of freedom, as the scripts have always read it."""
import math
import statistics

T95 = [0, 12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145,
       2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042]


def t95(df):
    return T95[df] if df < len(T95) else 2.0


def mean_half(logs):
    """The mean of a sample and the half-width of its mean's 95% interval
    (at least two values)."""
    n = len(logs)
    return statistics.mean(logs), t95(n - 1) * statistics.stdev(logs) / math.sqrt(n)


def welch_half(a, b):
    """The difference of two samples' means (b's less a's) and the
    half-width of its Welch 95% interval, with the smaller sample's degrees
    of freedom (at least two values on each side)."""
    h = t95(min(len(a), len(b)) - 1) * math.sqrt(statistics.variance(a) / len(a) + statistics.variance(b) / len(b))
    return statistics.mean(b) - statistics.mean(a), h


def ratio_interval(m, h):
    """A mean logarithm and its half-width as (ratio, low, high)."""
    return math.exp(m), math.exp(m - h), math.exp(m + h)


def percent(log_width):
    """A width on the logarithms as a share of the ratio, in percent."""
    return 100 * (math.exp(log_width) - 1)
