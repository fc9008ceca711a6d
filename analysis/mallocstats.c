/* Statistics in sys._debugmallocstats() layout. See mallocstats.h. */
#include "mallocstats.h"
#include "results/results.h"

#include <inttypes.h>
#include <string.h>

static int has(const json_t *s, const char *name) { return json_object_get(s, name) != NULL; }

static uint64_t get(const json_t *s, const char *name)
{
	return alloclab_stat_value(json_object_get(s, name));
}

/* 1234567 -> "1,234,567" */
static const char *grouped(uint64_t v, char *buf, size_t len)
{
	char digits[32];
	int n = snprintf(digits, sizeof digits, "%" PRIu64, v), o = 0;

	for (int i = 0; i < n && (size_t)o + 2 < len; i++) {
		if (i > 0 && (n - i) % 3 == 0)
			buf[o++] = ',';
		buf[o++] = digits[i];
	}
	buf[o] = '\0';
	return buf;
}

/* CPython's labelled line: the label padded to 35 columns, '=', the value
 * right-aligned in 21 with thousands separators. */
static void line(FILE *out, const char *label, uint64_t value)
{
	char buf[40];
	fprintf(out, "%-35s=%21s\n", label, grouped(value, buf, sizeof buf));
}

static int print_obmalloc(const json_t *s, FILE *out)
{
	uint64_t arena = get(s, "config.arena_size"), pool = get(s, "config.pool_size");
	uint64_t narenas = get(s, "arenas.current"), pools = 0;
	char label[64], name[64];
	int broken = 0;

	fprintf(out, "Small block threshold = %" PRIu64 ", in %" PRIu64 " size classes.\n\n",
		has(s, "config.small_threshold") ? get(s, "config.small_threshold") : 512,
		has(s, "config.size_classes") ? get(s, "config.size_classes") : 32);
	fprintf(out, "class   size   num pools   blocks in use  avail blocks\n");
	fprintf(out, "-----   ----   ---------   -------------  ------------\n");
	for (unsigned c = 0; c < 64; c++) {
		snprintf(name, sizeof name, "class.%u.pools", c);
		if (!has(s, name))
			continue;
		uint64_t p = get(s, name);
		pools += p;
		snprintf(name, sizeof name, "class.%u.size", c);
		uint64_t size = get(s, name);
		snprintf(name, sizeof name, "class.%u.blocks_in_use", c);
		uint64_t used = get(s, name);
		snprintf(name, sizeof name, "class.%u.blocks_available", c);
		fprintf(out, "%5u %6" PRIu64 " %11" PRIu64 " %15" PRIu64 " %13" PRIu64 "\n", c, size, p, used,
			get(s, name));
	}
	fputc('\n', out);
	line(out, "# arenas allocated total", get(s, "arenas.allocated_total"));
	line(out, "# arenas reclaimed", get(s, "arenas.reclaimed"));
	line(out, "# arenas highwater mark", get(s, "arenas.highwater"));
	line(out, "# arenas allocated current", narenas);
	snprintf(label, sizeof label, "%" PRIu64 " arenas * %" PRIu64 " bytes/arena", narenas, arena);
	line(out, label, narenas * arena);
	fputc('\n', out);
	line(out, "# bytes in allocated blocks", get(s, "bytes.allocated_blocks"));
	line(out, "# bytes in available blocks", get(s, "bytes.available_blocks"));
	snprintf(label, sizeof label, "%" PRIu64 " unused pools * %" PRIu64 " bytes", get(s, "pools.unused"), pool);
	line(out, label, get(s, "pools.unused") * pool);
	line(out, "# bytes lost to pool headers", get(s, "bytes.pool_headers"));
	if (get(s, "bytes.page_headers"))
		line(out, "# bytes lost to page headers", get(s, "bytes.page_headers"));
	line(out, "# bytes lost to quantization", get(s, "bytes.quantization"));
	line(out, "# bytes lost to arena alignment", get(s, "bytes.arena_alignment"));
	line(out, "Total", get(s, "bytes.total"));
	if (has(s, "radix.mid_nodes")) {
		fprintf(out, "\narena map counts\n");
		line(out, "# arena map mid nodes", get(s, "radix.mid_nodes"));
		line(out, "# arena map bot nodes", get(s, "radix.leaf_nodes"));
		fputc('\n', out);
		line(out, "# bytes lost to arena map root", get(s, "radix.bytes_root"));
		line(out, "# bytes lost to arena map mid", get(s, "radix.bytes_mid"));
		line(out, "# bytes lost to arena map bot", get(s, "radix.bytes_leaf"));
		line(out, "Total", get(s, "radix.bytes_total"));
	}
	if (has(s, "errors.foreign_free") && get(s, "errors.foreign_free"))
		fprintf(out, "\nforeign frees refused (per-thread mode): %" PRIu64 "\n", get(s, "errors.foreign_free"));

	fprintf(out, "\nidentities:\n");
	if (arena) {
		int ok = get(s, "bytes.total") == narenas * arena;
		fprintf(out, "  parts add up to %" PRIu64 " arenas x %" PRIu64 " bytes: %s\n", narenas, arena,
			ok ? "ok" : "BROKEN");
		broken |= !ok;
	}
	if (has(s, "class.0.pools") || pools) {
		uint64_t header = has(s, "config.pool_header") ? get(s, "config.pool_header") : 48;
		int ok = get(s, "bytes.pool_headers") == pools * header;
		fprintf(out, "  pool headers = %" PRIu64 " pools x %" PRIu64 " bytes: %s\n", pools, header,
			ok ? "ok" : "BROKEN");
		broken |= !ok;
	}
	return broken;
}

int alloclab_print_stats(const json_t *stats, FILE *out)
{
	const char *key;
	json_t *value;

	if (has(stats, "bytes.total") && has(stats, "arenas.current"))
		return print_obmalloc(stats, out);
	json_object_foreach((json_t *)stats, key, value) {
		uint64_t v = alloclab_stat_value(value);
		fprintf(out, "%-35s= %" PRIu64 "%s\n", key, v,
			v > (uint64_t)INT64_MAX ? "  (past 2^63: a count that went below zero?)" : "");
	}
	return 0;
}
