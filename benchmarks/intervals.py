"""The 95% intervals the benchmark scripts print, on logarithms of times or
of ratios (a ratio's interval is the exponent of its logarithm's): one
copy, imported by the scripts that need them (paired-slices.sh,
pair-interference.sh, suite-paired.sh, aa-paired.sh, mt-originals.sh).
Student's t from a table of its 95% two-sided quantiles to 30 degrees of
freedom (three decimals, as the scripts have always read it), and beyond,
exactly: the quantile whose two-sided tail, through the regularized
incomplete beta function, is 5% (the 2.0 the table once gave past 30 made
intervals 2% too narrow at 31)."""
import math
import statistics

T95 = [0, 12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145,
       2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042]


def _beta_fraction(a, b, x):
    """The continued fraction of the incomplete beta function (modified
    Lentz), which converges fast for x < (a + 1) / (a + b + 2)."""
    tiny = 1e-300
    c, d = 1.0, 1.0 - (a + b) * x / (a + 1)
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 500):
        for aa in (m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
                   -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1))):
            d = 1.0 + aa * d
            d = 1.0 / (d if abs(d) > tiny else tiny)
            c = 1.0 + aa / c
            c = c if abs(c) > tiny else tiny
            h *= d * c
        if abs(d * c - 1.0) < 1e-15:
            break
    return h


def incomplete_beta(a, b, x):
    """The regularized incomplete beta function I_x(a, b)."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    front = math.exp(math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x))
    if x < (a + 1) / (a + b + 2):
        return front * _beta_fraction(a, b, x) / a
    return 1.0 - front * _beta_fraction(b, a, 1.0 - x) / b


def t_two_sided_p(t, df):
    """P(|T| >= t) for Student's t with df degrees of freedom."""
    return incomplete_beta(df / 2.0, 0.5, df / (df + t * t))


def t95(df):
    """The two-sided 95% quantile of Student's t (df >= 1)."""
    if df < len(T95):
        return T95[df]
    lo, hi = 1.9, 2.1
    for _ in range(100):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if t_two_sided_p(mid, df) > 0.05 else (lo, mid)
    return (lo + hi) / 2


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
