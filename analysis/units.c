/* How numbers read. See units.h. */
#include "units.h"

#include <stdio.h>

void alloclab_format_ns(double ns, char *out, size_t len)
{
	static const struct {
		double scale;
		const char *unit;
	} units[] = {{1, "ns"}, {1e3, "us"}, {1e6, "ms"}, {1e9, "sec"}};
	size_t u = 0;
	double v;

	while (u + 1 < sizeof units / sizeof units[0] && ns >= units[u + 1].scale)
		u++;
	v = ns / units[u].scale;
	snprintf(out, len, v >= 99.95 ? "%.0f %s" : v >= 9.995 ? "%.1f %s" : "%.2f %s", v, units[u].unit);
}

void alloclab_format_ratio(double ratio, char *out, size_t len)
{
	double pct = (ratio - 1) * 100;
	if (ratio >= 1)
		snprintf(out, len, "%.2fx slower (%+.0f%%)", ratio, pct);
	else
		snprintf(out, len, "%.2fx faster (%+.0f%%)", 1 / ratio, pct);
}

void alloclab_format_kib(double kib, char *out, size_t len)
{
	if (kib >= 1024 * 1024)
		snprintf(out, len, "%.2f GiB", kib / (1024 * 1024));
	else if (kib >= 1024)
		snprintf(out, len, "%.1f MiB", kib / 1024);
	else
		snprintf(out, len, "%.0f KiB", kib);
}
