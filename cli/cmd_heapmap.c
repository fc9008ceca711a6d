/*
 * `alloclab heapmap -p PLUGIN -w WORKLOAD -o DIR`: pictures of a plugin's
 * heap. One worker runs the workload with the live blocks tracked
 * (framework/measure/heapmap.h) and writes a frame of the plugin's regions at the
 * end of each value (and every --every calls); the frames are read back
 * through their validating reader, summed in a table beside the plugin's
 * own statistics, and drawn (analysis/heapmap_picture.h). DIR gets
 * frames.jsonl, frame-NNN.png, contact-sheet.png and heapmap.gif.
 */
#include "cli.h"
#include "base/shell_word.h"
#include "measure/heapmap.h"
#include "heapmap_picture.h"
#include "files/output_path.h"
#include "plot.h"
#include "registry.h"
#include "results/results.h"
#include "plugin/plugin_arg.h"
#include "files/scratch.h"
#include "check/vet.h"
#include "worker/worker.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char usage[] =
	"usage: alloclab heapmap -p PLUGIN[:options] -w WORKLOAD[:k=v,...] -o DIR [options]\n"
	"\n"
	"Runs the workload in one worker with every live block tracked and draws the\n"
	"plugin's regions (arenas, pools, pages, spans; the plugin's regions op) at the\n"
	"end of each value: each region a tile shaded by where live blocks lie, bordered\n"
	"by its occupancy, labelled with its size class, with blocks split needlessly\n"
	"over two cache lines or pages marked. A heap map serialises every call: it is a\n"
	"picture, never a timing.\n"
	"\n"
	"DIR gets frames.jsonl (the data), frame-NNN.png, contact-sheet.png and heapmap.gif.\n"
	"\n"
	"options:\n"
	"  -p, --plugin PLUGIN   the plugin (name or path), with its options after ':'\n"
	"  -w, --workload SPEC   the workload (one cell)\n"
	"  -o, --output DIR      where the pictures go (made if missing)\n"
	"  -t, --threads N       threads (default 1)\n"
	"  -n, --values N        values, a frame at the end of each (default 3)\n"
	"      --warmups N       warm-ups before them, not drawn (default 0)\n"
	"      --every K         a frame every K allocator calls as well\n"
	"      --timeout SECONDS (default 600)\n"
	"  -h, --help\n";

static void print_table(const struct alloclab_heapmap *h)
{
	printf("%5s %6s %10s %8s %8s %14s %14s %12s %12s %9s %9s\n", "frame", "value", "at call", "outer", "inner",
	       "in use (regs)", "std.in_use", "blocks (regs)", "tracked in", "outside", "split");
	for (size_t k = 0; k < h->n; k++) {
		const struct alloclab_heap_frame *f = &h->frames[k];
		struct alloclab_heap_sums s;
		char at[24], std[24];
		alloclab_heap_frame_sums(f, &s);
		if (f->at_call > 0)
			snprintf(at, sizeof at, "%" PRId64, f->at_call);
		else
			snprintf(at, sizeof at, "end");
		if (f->stats_given & 1)
			snprintf(std, sizeof std, "%" PRIu64, f->stats[0]);
		else
			snprintf(std, sizeof std, "-");
		printf("%5u %6u %10s %8" PRIu64 " %8" PRIu64 " %14" PRIu64 " %14s %12" PRIu64 " %12" PRIu64 " %9" PRIu64
		       " %9" PRIu64 "\n",
		       f->frame, f->value, at, s.outer, s.inner, s.bytes_in_use, std, s.blocks_in_use, s.tracked_blocks,
		       f->outside_blocks, f->split_lines + f->split_pages);
	}
	/* What the plugin says and what the framework saw, side by side. */
	const struct alloclab_heap_frame *last = &h->frames[h->n - 1];
	struct alloclab_heap_sums s;
	alloclab_heap_frame_sums(last, &s);
	if (last->stats_given & 1)
		printf("last frame: the regions' bytes in use %s the plugin's std.in_use_bytes (%" PRIu64 " and %" PRIu64
		       ")\n",
		       s.bytes_in_use == last->stats[0] ? "agree with" : "DIFFER from", s.bytes_in_use, last->stats[0]);
	if (s.blocks_in_use == s.tracked_blocks)
		printf("last frame: the regions' blocks in use agree with the live blocks tracked in them (%" PRIu64
		       " and %" PRIu64 ")\n",
		       s.blocks_in_use, s.tracked_blocks);
	else if (s.blocks_in_use == 0)
		/* A bump allocator, or one that keeps no count per region: not
		 * an error, the pictures show where the blocks are all the same. */
		printf("last frame: the plugin does not count blocks per region (%" PRIu64
		       " live blocks tracked in its regions by alloclab)\n",
		       s.tracked_blocks);
	else
		printf("last frame: the regions' blocks in use (%" PRIu64 ") differ from the live blocks tracked in them (%" PRIu64
		       "): a plugin may not count every region's blocks\n",
		       s.blocks_in_use, s.tracked_blocks);
	/* Frames alike from value to value (a workload that ends each value
	 * in the same state): say what shows change. */
	int alike = h->n > 1;
	for (size_t k = 1; k < h->n && alike; k++) {
		struct alloclab_heap_sums a, b;
		alloclab_heap_frame_sums(&h->frames[k - 1], &a);
		alloclab_heap_frame_sums(&h->frames[k], &b);
		alike = a.outer == b.outer && a.inner == b.inner && a.bytes_in_use == b.bytes_in_use &&
			a.tracked_blocks == b.tracked_blocks && h->frames[k].at_call <= 0;
	}
	if (alike)
		printf("the frames are alike: each value ends in the same state; to see the heap change within a value, "
		       "add --every K (a frame every K allocator calls)\n");
}

/* What the command line asks for. */
struct heapmap_args {
	const char *plugin_text, *workload, *dir;
	unsigned threads, values, warmups, every;
	double timeout;
	struct alloclab_workload_spec ws;
};

/* The options into a, the workload parsed. -1 to go on, or the exit
 * status. */
static int parse_options(int argc, char **argv, struct heapmap_args *a)
{
	static const struct option longopts[] = {
		{"plugin", required_argument, NULL, 'p'}, {"workload", required_argument, NULL, 'w'},
		{"output", required_argument, NULL, 'o'}, {"threads", required_argument, NULL, 't'},
		{"values", required_argument, NULL, 'n'}, {"warmups", required_argument, NULL, 'W'},
		{"every", required_argument, NULL, 'E'},  {"timeout", required_argument, NULL, 'T'},
		{"help", no_argument, NULL, 'h'},         {NULL, 0, NULL, 0},
	};
	char err[ALLOCLAB_ERR_LEN + 600];
	int opt;

	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":p:w:o:t:n:h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'p': a->plugin_text = optarg; break;
		case 'w': a->workload = optarg; break;
		case 'o': a->dir = optarg; break;
		case 't':
			if (alloclab_parse_count("heapmap", "--threads", optarg, 1, ALLOCLAB_MAX_THREADS,
						 &a->threads) != 0)
				return 2;
			break;
		case 'n':
			if (alloclab_parse_count("heapmap", "--values", optarg, 1, 1000, &a->values) != 0)
				return 2;
			break;
		case 'W':
			if (alloclab_parse_count("heapmap", "--warmups", optarg, 0, 1000, &a->warmups) != 0)
				return 2;
			break;
		case 'E':
			if (alloclab_parse_count("heapmap", "--every", optarg, 1, ALLOCLAB_HEAPMAP_MAX_EVERY,
						 &a->every) != 0)
				return 2;
			break;
		case 'T':
			if (alloclab_parse_timeout("heapmap", optarg, 86400, &a->timeout) != 0)
				return 2;
			break;
		case 'h': fputs(usage, stdout); return 0;
		case ':': return alloclab_usage_error("heapmap", "option '%s' needs a value", argv[optind - 1]);
		default: return alloclab_usage_error("heapmap", "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind != argc)
		return alloclab_usage_error("heapmap", "unexpected argument '%s'", argv[optind]);
	if (a->plugin_text == NULL)
		return alloclab_usage_error("heapmap", "which plugin? give -p PLUGIN");
	if (a->workload == NULL)
		return alloclab_usage_error("heapmap", "which workload? give -w WORKLOAD[:k=v,...]");
	if (a->dir == NULL || a->dir[0] == '\0')
		return alloclab_usage_error("heapmap", "where do the pictures go? give -o DIR");
	if (alloclab_workload_parse(a->workload, &a->ws, err, sizeof err) != 0)
		return alloclab_usage_error("heapmap", "%s", err);
	return -1;
}

/* Every file it will write, checked before the run. 0, or said why not. */
static int outputs_usable(const char *dir)
{
	static const char *const names[] = {"frames.jsonl", "frame-001.png", "contact-sheet.png", "heapmap.gif"};
	char err[ALLOCLAB_ERR_LEN + 600], out[ALLOCLAB_PATH_PLUS_LEN];

	for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
		snprintf(out, sizeof out, "%s/%s", dir, names[i]);
		if (alloclab_output_usable(out, i ? ALLOCLAB_OUTPUT_PICTURE : ALLOCLAB_OUTPUT_HEAPMAP, err, sizeof err) !=
		    0) {
			alloclab_say("alloclab: heapmap: %s", err);
			return -1;
		}
	}
	return 0;
}

int alloclab_cmd_heapmap(int argc, char **argv)
{
	struct heapmap_args a = {.threads = 1, .values = 3, .warmups = 0, .every = 0, .timeout = 600};
	struct alloclab_plugin_arg plugin = {0};
	struct alloclab_heapmap h = {0};
	char err[ALLOCLAB_ERR_LEN + 600], tmp[ALLOCLAB_PATH_LEN] = "", frames[ALLOCLAB_PATH_PLUS_LEN],
		out[ALLOCLAB_PATH_PLUS_LEN];
	int parsed, rc = 2;

	if ((parsed = parse_options(argc, argv, &a)) >= 0)
		return parsed;
	if (!alloclab_plot_available()) {
		fprintf(stderr, "alloclab: heapmap: gnuplot is not installed (Debian's gnuplot-nox): nothing to draw with\n");
		return 2;
	}
	if (outputs_usable(a.dir) != 0)
		return 2;
	alloclab_plugin_arg_parse(a.plugin_text, &plugin);
	struct alloclab_probe probe;
	if (alloclab_vet("heapmap", &plugin, ALLOCLAB_CHECK_PATHS, 60, &probe) != 0)
		goto out;
	alloclab_probe_clear(&probe);
	if (alloclab_scratch_make("heapmap", tmp, sizeof tmp) != 0) {
		alloclab_say("alloclab: heapmap: cannot make a scratch folder: %s", strerror(errno));
		tmp[0] = '\0';
		goto out;
	}
	snprintf(frames, sizeof frames, "%s/frames.jsonl", tmp);
	struct alloclab_cell_spec spec = {
		.plugin = plugin.spec, .plugin_options = plugin.options, .workload = a.ws.workload,
		.params = a.ws.params, .threads = a.threads, .warmups = a.warmups, .values = a.values, .gil = plugin.gil,
		.heapmap = frames, .heapmap_every = a.every,
	};
	struct alloclab_process proc;
	int interrupted = 0;
	if (isatty(2))
		alloclab_say("alloclab heapmap: running %s with %s, its live blocks tracked...",
			     a.ws.workload->name, plugin.spec);
	int m = alloclab_measure_isolated(&spec, a.timeout, &proc, &interrupted, err, sizeof err);
	if (m != 0) {
		/* A plugin without the op, or a workload it cannot run, is the
		 * caller's choice (2); a failure while running is the plugin's (1). */
		alloclab_say("alloclab: heapmap: %s: %s%s", plugin.spec, m == -2 ? "not offered: " : "", err);
		rc = m == -2 ? 2 : 1;
		goto out;
	}
	alloclab_process_clear(&proc);
	if (alloclab_heapmap_read(frames, &h, err, sizeof err) != 0) {
		alloclab_say("alloclab: heapmap: %s", err);
		rc = 1;
		goto out;
	}
	print_table(&h);
	char title[512];
	snprintf(title, sizeof title, "%s, %s%s%s, %u thread%s", plugin.spec, a.workload, plugin.options[0] ? " " : "",
		 plugin.options, a.threads, a.threads == 1 ? "" : "s");
	snprintf(out, sizeof out, "%s/frames.jsonl", a.dir);
	if (alloclab_output_copy(frames, out, ALLOCLAB_OUTPUT_HEAPMAP, err, sizeof err) != 0 ||
	    alloclab_heapmap_draw(&h, title, a.dir, err, sizeof err) != 0) {
		alloclab_say("alloclab: heapmap: %s", err);
		rc = 1;
		goto out;
	}
	alloclab_tell("%zu frame%s drawn in %s (frame-NNN.png, contact-sheet.png, heapmap.gif)", h.n, h.n == 1 ? "" : "s",
		      a.dir);
	rc = 0;
out:
	alloclab_heapmap_clear(&h);
	if (tmp[0])
		alloclab_scratch_remove(tmp);
	free(plugin.spec);
	free(plugin.options);
	free(plugin.as);
	return rc;
}
