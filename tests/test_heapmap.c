/*
 * `alloclab heapmap`: the regions a plugin reports agree with its own
 * statistics and with the live blocks the framework tracked, region by
 * region; the pictures are drawn; a plugin without the op says "not
 * offered"; a regions op that lies is refused naming the region; the
 * frames file's reader names the line and the field of what is wrong; bad
 * command lines get one line and exit status 2.
 */
#include "helpers.h"
#include "measure/heapmap.h"

#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int is_png(const char *path)
{
	char head[8] = {0};
	FILE *f = fopen(path, "rb");
	if (f == NULL)
		return 0;
	size_t n = fread(head, 1, sizeof head, f);
	fclose(f);
	return n == 8 && memcmp(head, "\x89PNG\r\n\x1a\n", 8) == 0;
}

/* Runs heapmap into dir/out, reads its frames back. */
static struct alloclab_heapmap draw(const char *dir, const char *plugin, const char *workload, const char *values,
				    const char *every)
{
	struct alloclab_heapmap h;
	char frames[4200], err[1024];
	const char *args[] = {"heapmap", "-p", plugin, "-w", workload, "-n", values, "-o", "out",
			      every ? "--every" : NULL, every, NULL};
	struct cmd_result r = run_alloclab(dir, args);
	cr_assert_eq(r.status, 0, "heapmap -p %s: %s%s", plugin, r.out, r.err);
	cmd_result_free(&r);
	snprintf(frames, sizeof frames, "%s/out/frames.jsonl", dir);
	cr_assert_eq(alloclab_heapmap_read(frames, &h, err, sizeof err), 0, "%s", err);
	return h;
}

/* Every inner region holds as many live blocks as the plugin says it has
 * in use, and the frame's counts add up. */
static void expect_blocks_agree(const struct alloclab_heapmap *h, const char *plugin)
{
	for (size_t k = 0; k < h->n; k++) {
		const struct alloclab_heap_frame *f = &h->frames[k];
		struct alloclab_heap_sums s;
		alloclab_heap_frame_sums(f, &s);
		cr_expect_gt(s.inner, 0, "%s frame %zu: no regions", plugin, k + 1);
		cr_expect_gt(f->tracked_blocks, 0, "%s frame %zu: no live blocks", plugin, k + 1);
		cr_expect_eq(s.tracked_blocks + f->outside_blocks, f->tracked_blocks, "%s frame %zu", plugin, k + 1);
		for (size_t i = 0; i < f->nregions; i++) {
			const struct alloclab_heap_region *r = &f->regions[i];
			if (r->inner)
				cr_expect_eq(r->tracked_blocks, r->blocks_in_use,
					     "%s frame %zu: the region at 0x%lx holds %lu live blocks, the plugin says %lu",
					     plugin, k + 1, (unsigned long)r->address, (unsigned long)r->tracked_blocks,
					     (unsigned long)r->blocks_in_use);
		}
	}
}

Test(heapmap, obmalloc_regions_agree_with_its_statistics_and_the_live_blocks, .timeout = 240)
{
	static const char *const variants[] = {"obmalloc-radix", "obmalloc-bigpool", "obmalloc-py37"};
	for (size_t v = 0; v < sizeof variants / sizeof *variants; v++) {
		char *dir = scratch_dir(), path[4200];
		struct alloclab_heapmap h = draw(dir, variants[v], "churn:ops=50000", "2", NULL);
		cr_expect_eq(h.n, 2, "%s: a frame at the end of each value", variants[v]);
		expect_blocks_agree(&h, variants[v]);
		for (size_t k = 0; k < h.n; k++) {
			const struct alloclab_heap_frame *f = &h.frames[k];
			struct alloclab_heap_sums s;
			alloclab_heap_frame_sums(f, &s);
			cr_expect_gt(s.outer, 0, "%s: the arenas are regions", variants[v]);
			cr_assert(f->stats_given & 1, "%s: std.in_use_bytes given", variants[v]);
			cr_expect_eq(s.bytes_in_use, f->stats[0], "%s frame %zu: regions %lu bytes in use, stats %lu",
				     variants[v], k + 1, (unsigned long)s.bytes_in_use, (unsigned long)f->stats[0]);
			cr_expect_eq(f->at_call, -1);
			/* Each pool lies in the arena before it. */
			const struct alloclab_heap_region *arena = NULL;
			for (size_t i = 0; i < f->nregions; i++) {
				const struct alloclab_heap_region *r = &f->regions[i];
				if (r->kind == ALLOCLAB_REGION_ARENA) {
					arena = r;
					continue;
				}
				cr_expect_eq(r->kind, ALLOCLAB_REGION_POOL);
				cr_expect(arena && r->address >= arena->address &&
						  r->address + r->bytes <= arena->address + arena->bytes,
					  "%s: a pool outside its arena", variants[v]);
				if (r->blocks_in_use)
					cr_expect(r->block_size >= 8 && r->block_size <= 512 && r->blocks >= r->blocks_in_use);
			}
		}
		alloclab_heapmap_clear(&h);
		static const char *const pictures[] = {"frame-001.png", "frame-002.png", "contact-sheet.png"};
		for (size_t i = 0; i < 3; i++) {
			snprintf(path, sizeof path, "%s/out/%s", dir, pictures[i]);
			cr_expect(is_png(path), "%s: %s is not a PNG", variants[v], path);
		}
		snprintf(path, sizeof path, "%s/out/heapmap.gif", dir);
		char *gif = read_file(path);
		cr_expect(gif && strncmp(gif, "GIF8", 4) == 0, "%s: no animated GIF", variants[v]);
		free(gif);
	}
}

Test(heapmap, mimalloc_pages_hold_every_live_block_of_one_thread, .timeout = 120)
{
	char *dir = scratch_dir();
	struct cmd_result l = run_alloclab(dir, (const char *const[]){"list", NULL});
	int built = strstr(l.out, "mimalloc") != NULL;
	cmd_result_free(&l);
	if (!built)
		cr_skip_test("the mimalloc plugin is not built here (no libmimalloc-dev)");
	struct alloclab_heapmap h = draw(dir, "mimalloc", "churn:ops=50000", "2", NULL);
	expect_blocks_agree(&h, "mimalloc");
	/* Blocks split over two pages are told apart from those split over
	 * two lines (mimalloc's pages hold blocks across 4 KiB boundaries),
	 * marked only where some are. */
	for (size_t k = 0; k < h.n; k++) {
		uint64_t page_bins = 0;
		for (size_t i = 0; i < h.frames[k].nregions; i++) {
			const struct alloclab_heap_region *r = &h.frames[k].regions[i];
			uint64_t bins = 0;
			cr_assert(r->page_splits_known, "frame %zu region %zu: page splits not written", k + 1, i + 1);
			for (unsigned b = 0; b < ALLOCLAB_HEAPMAP_BINS; b++) {
				cr_expect(!r->page_splits[b] || r->splits[b]);
				bins += r->page_splits[b];
			}
			cr_expect_eq(bins > 0, r->split_pages > 0, "region 0x%lx: %lu page-split blocks, %lu bins marked",
				     (unsigned long)r->address, (unsigned long)r->split_pages, (unsigned long)bins);
			cr_expect_leq(bins, r->split_pages);
			page_bins += bins;
		}
		cr_expect_gt(page_bins, 0, "frame %zu: churn's blocks up to 512 bytes split no page?", k + 1);
	}
	for (size_t k = 0; k < h.n; k++) {
		cr_expect_eq(h.frames[k].outside_blocks, 0, "one thread: every block in the main heap's pages");
		for (size_t i = 0; i < h.frames[k].nregions; i++)
			cr_expect_eq(h.frames[k].regions[i].kind, ALLOCLAB_REGION_PAGE);
	}
	alloclab_heapmap_clear(&h);
}

Test(heapmap, the_course_solutions_draw_and_agree, .timeout = 240)
{
	static const char *const solutions[] = {"course-freelist", "course-segregated", "course-arenas"};
	for (size_t i = 0; i < sizeof solutions / sizeof *solutions; i++) {
		char *dir = scratch_dir();
		struct alloclab_heapmap h = draw(dir, test_plugin(solutions[i]), "churn:ops=30000", "1", NULL);
		expect_blocks_agree(&h, solutions[i]);
		alloclab_heapmap_clear(&h);
	}
	/* A bump allocator holds every byte it handed out. */
	char *dir = scratch_dir();
	struct alloclab_heapmap h = draw(dir, test_plugin("course-bump"), "churn:ops=20000", "1", NULL);
	struct alloclab_heap_sums s;
	alloclab_heap_frame_sums(&h.frames[0], &s);
	uint64_t bytes = 0;
	for (size_t i = 0; i < h.frames[0].nregions; i++)
		bytes += h.frames[0].regions[i].bytes;
	cr_expect_eq(s.bytes_in_use, bytes);
	cr_expect_eq(h.frames[0].outside_blocks, 0);
	cr_expect_gt(bytes, h.frames[0].tracked_bytes, "it keeps more than is live");
	alloclab_heapmap_clear(&h);
}

Test(heapmap, every_k_calls_adds_frames_within_a_value, .timeout = 120)
{
	char *dir = scratch_dir();
	struct alloclab_heapmap h = draw(dir, "obmalloc-radix", "churn:ops=20000", "1", "5000");
	cr_assert_geq(h.n, 3, "frames every 5000 calls and one at the end: %zu", h.n);
	for (size_t k = 0; k + 1 < h.n; k++) {
		cr_expect_eq(h.frames[k].at_call % 5000, 0, "frame %zu at call %ld", k + 1, (long)h.frames[k].at_call);
		cr_expect(k == 0 || h.frames[k].at_call > h.frames[k - 1].at_call);
	}
	cr_expect_eq(h.frames[h.n - 1].at_call, -1, "the last frame is the value's end");
	expect_blocks_agree(&h, "obmalloc-radix");
	alloclab_heapmap_clear(&h);
}

Test(heapmap, a_plugin_without_the_op_says_not_offered)
{
	char *dir = scratch_dir(), path[4200];
	struct cmd_result r = run_alloclab(dir, (const char *const[]){"heapmap", "-p", "system", "-w", "churn:ops=1000",
								      "-o", "out", NULL});
	cr_expect_eq(r.status, 2, "%s", r.err);
	cr_expect(strstr(r.err, "not offered") && count_lines(r.err) == 1, "%s", r.err);
	snprintf(path, sizeof path, "%s/out/frames.jsonl", dir);
	cr_expect_neq(access(path, F_OK), 0, "nothing written");
	cmd_result_free(&r);
}

Test(heapmap, a_regions_op_that_lies_is_refused_naming_the_region, .timeout = 120)
{
	static const struct {
		const char *mode, *says;
	} lies[] = {
		{"inuse", "bytes_in_use exceeds its bytes"},
		{"kind", "kind is none of"},
		{"wrap", "not a range of memory"},
		{"size", "size field is too small"},
		{"null", "NULL region"},
		{"fail", "regions op failed"},
		{"overlap", "without nesting in it"},
		{"manyblocks", "more blocks in use than it has bytes"},
	};
	for (size_t i = 0; i < sizeof lies / sizeof *lies; i++) {
		char *dir = scratch_dir(), plugin[4300], path[4200];
		snprintf(plugin, sizeof plugin, "%s:%s", test_plugin("bad_regions"), lies[i].mode);
		struct cmd_result r = run_alloclab(dir, (const char *const[]){"heapmap", "-p", plugin, "-w",
									      "churn:ops=1000", "-n", "1", "-o", "out", NULL});
		cr_expect_eq(r.status, 1, "%s: %s", lies[i].mode, r.err);
		/* One line of heapmap's own; the vetting of a plugin given by
		 * path has said before it that the check's regions case fails. */
		const char *own = strstr(r.err, "alloclab: heapmap: ");
		cr_expect(own && strstr(own, lies[i].says) && strstr(own, "bad_regions") && count_lines(own) == 1,
			  "%s: %s", lies[i].mode, r.err);
		cr_expect(strstr(r.err, "fails 1 of alloclab check's cases (regions)") || own == r.err, "%s: %s",
			  lies[i].mode, r.err);
		snprintf(path, sizeof path, "%s/out/frames.jsonl", dir);
		cr_expect_neq(access(path, F_OK), 0, "%s: nothing written", lies[i].mode);
		cmd_result_free(&r);
	}
	/* The honest mode draws. */
	char *dir = scratch_dir(), plugin[4300];
	snprintf(plugin, sizeof plugin, "%s:none", test_plugin("bad_regions"));
	struct alloclab_heapmap h = draw(dir, plugin, "churn:ops=1000", "1", NULL);
	cr_expect_eq(h.frames[0].outside_blocks, h.frames[0].tracked_blocks, "its span holds none of the blocks");
	alloclab_heapmap_clear(&h);
}

static char *replace_once(const char *s, const char *from, const char *to)
{
	const char *at = strstr(s, from);
	cr_assert(at, "'%s' not in the frame", from);
	char *out = malloc(strlen(s) + strlen(to) + 1);
	sprintf(out, "%.*s%s%s", (int)(at - s), s, to, at + strlen(from));
	return out;
}

Test(heapmap, the_frames_reader_names_the_line_and_the_field, .timeout = 120)
{
	char *dir = scratch_dir(), path[4200], bad[4200], err[1024];
	struct alloclab_heapmap h = draw(dir, "obmalloc-radix", "churn:ops=20000", "1", NULL);
	alloclab_heapmap_clear(&h);
	snprintf(path, sizeof path, "%s/out/frames.jsonl", dir);
	char *good = read_file(path);
	cr_assert(good && strchr(good, '\n'));
	*strchr(good, '\n') = '\0';
	const char *first_occupancy = strstr(good, "\"occupancy\":\"");
	cr_assert(first_occupancy);
	char occ_short[40];
	snprintf(occ_short, sizeof occ_short, "\"occupancy\":\"%.8s", first_occupancy + 13);
	static const struct {
		const char *from, *to, *says;
		int twice; /* the good frame first, then the bad one as frame 2 */
	} cases[] = {
		{"\"format\":\"alloclab-heapmap\"", "\"format\":\"alloclab-run\"", "line 1: not a frame", 0},
		{"\"version\":1", "\"version\":2", "line 1: field 'version'", 0},
		{"\"bins\":256", "\"bins\":16", "line 1: field 'bins'", 0},
		{"\"kind\":\"arena\"", "\"kind\":\"heap\"", "region 1: field 'kind'", 0},
		{"\"address\":\"0x", "\"address\":\"zz", "region 1: field 'address'", 0},
		{"\"line_size\":64", "\"line_size\":48", "field 'line_size'", 0},
		{"\"frame\":1", "\"frame\":3", "line 2: field 'frame'", 1},
		{"\"tracked\":{\"blocks\":", "\"tracked\":{\"blocks\":1", "do not add up", 0},
		{"\"at_call\":null", "\"at_call\":-5", "field 'at_call'", 0},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		char *text = replace_once(good, cases[i].from, cases[i].to);
		snprintf(bad, sizeof bad, "%s/bad-%zu.jsonl", dir, i);
		FILE *f = fopen(bad, "w");
		if (cases[i].twice)
			fprintf(f, "%s\n", good);
		fprintf(f, "%s\n", text);
		fclose(f);
		free(text);
		cr_expect_eq(alloclab_heapmap_read(bad, &h, err, sizeof err), -1, "case %zu read", i);
		cr_expect(strstr(err, cases[i].says) && strstr(err, bad), "case %zu: %s", i, err);
	}
	/* A page split marked in a bin where no split starts. */
	{
		json_t *frame = json_loads(good, 0, NULL), *region;
		size_t i;
		cr_assert(frame);
		json_array_foreach(json_object_get(frame, "regions"), i, region)
		{
			if (!json_is_true(json_object_get(region, "inner")))
				continue;
			char zero[65], one[65];
			memset(zero, '0', 64), memset(one, '0', 64);
			zero[64] = one[64] = '\0';
			one[0] = '8';
			json_object_set_new(region, "splits", json_string(zero));
			json_object_set_new(region, "page_splits", json_string(one));
			json_object_set_new(region, "split_pages", json_integer(1));
			break;
		}
		snprintf(bad, sizeof bad, "%s/subset.jsonl", dir);
		cr_assert_eq(json_dump_file(frame, bad, JSON_COMPACT), 0);
		json_decref(frame);
		cr_expect_eq(alloclab_heapmap_read(bad, &h, err, sizeof err), -1);
		cr_expect(strstr(err, "field 'page_splits': bin 0 is marked but not in 'splits'"), "%s", err);
	}
	/* An occupancy cut short; not JSON; an empty file. */
	char *text = replace_once(good, occ_short, "\"occupancy\":\"");
	snprintf(bad, sizeof bad, "%s/short.jsonl", dir);
	FILE *f = fopen(bad, "w");
	fprintf(f, "%s\n", text);
	fclose(f);
	free(text);
	cr_expect_eq(alloclab_heapmap_read(bad, &h, err, sizeof err), -1);
	cr_expect(strstr(err, "field 'occupancy'"), "%s", err);
	f = fopen(bad, "w");
	fprintf(f, "{\"format\":\n");
	fclose(f);
	cr_expect_eq(alloclab_heapmap_read(bad, &h, err, sizeof err), -1);
	cr_expect(strstr(err, "line 1: not JSON"), "%s", err);
	f = fopen(bad, "w");
	fclose(f);
	cr_expect_eq(alloclab_heapmap_read(bad, &h, err, sizeof err), -1);
	cr_expect(strstr(err, "no frames"), "%s", err);
	free(good);
}

Test(heapmap, bad_command_lines_get_one_line_and_status_2, .timeout = 120)
{
	char *dir = scratch_dir(), link[4200];
	const char *const *const bad[] = {
		(const char *const[]){"heapmap", "-w", "churn", "-o", "out", NULL},
		(const char *const[]){"heapmap", "-p", "obmalloc-radix", "-o", "out", NULL},
		(const char *const[]){"heapmap", "-p", "obmalloc-radix", "-w", "churn", NULL},
		(const char *const[]){"heapmap", "-p", "obmalloc-radix", "-w", "churn", "-o", "out", "--every", "0", NULL},
		(const char *const[]){"heapmap", "-p", "obmalloc-radix", "-w", "churn", "-o", "out", "-n", "0", NULL},
		(const char *const[]){"heapmap", "-p", "obmalloc-radix", "-w", "churn", "-o", "out", "--frobnicate", NULL},
		(const char *const[]){"heapmap", "-p", "obmalloc-radix", "-w", "nosuchworkload", "-o", "out", NULL},
		(const char *const[]){"heapmap", "-p", "obmalloc-radix", "-w", "churn", "-o", "out", "extra", NULL},
		(const char *const[]){"heapmap", "-p", "no-such-plugin", "-w", "churn", "-o", "out", NULL},
	};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		struct cmd_result r = run_alloclab(dir, bad[i]);
		cr_expect_eq(r.status, 2, "case %zu: %s", i, r.err);
		cr_expect_eq(count_lines(r.err), 1, "case %zu: %s", i, r.err);
		cmd_result_free(&r);
	}
	/* A link where the frames would go is never written through, and is
	 * refused before the run. */
	snprintf(link, sizeof link, "%s/linked", dir);
	mkdir(link, 0755);
	snprintf(link, sizeof link, "%s/linked/frames.jsonl", dir);
	cr_assert_eq(symlink("/dev/null", link), 0);
	struct cmd_result r = run_alloclab(dir, (const char *const[]){"heapmap", "-p", "obmalloc-radix", "-w",
								      "churn:ops=1000", "-o", "linked", NULL});
	cr_expect_eq(r.status, 2, "%s", r.err);
	cr_expect(strstr(r.err, "frames.jsonl") && count_lines(r.err) == 1, "%s", r.err);
	cr_expect_eq(r.out[0], '\0', "refused before the run: %s", r.out);
	cmd_result_free(&r);
}

Test(heapmap, the_check_case_regions_holds_the_op_to_the_live_blocks, .timeout = 240)
{
	char *dir = scratch_dir();
	static const char *const pass[] = {"obmalloc-radix", "course-freelist", "course-segregated", "course-arenas"};
	for (size_t i = 0; i < sizeof pass / sizeof *pass; i++) {
		const char *p = strncmp(pass[i], "course", 6) == 0 ? test_plugin(pass[i]) : pass[i];
		struct cmd_result r = run_alloclab(dir, (const char *const[]){"check", "--case", "regions", p, NULL});
		cr_expect_eq(r.status, 0, "%s: %s", pass[i], r.out);
		cr_expect(strstr(r.out, "regions           pass") && strstr(r.out, "blocks in use those of the live blocks"),
			  "%s: %s", pass[i], r.out);
		cmd_result_free(&r);
	}
	struct cmd_result r = run_alloclab(dir, (const char *const[]){"check", "--case", "regions", "system", NULL});
	cr_expect(strstr(r.out, "regions           skip  no regions op"), "%s", r.out);
	cmd_result_free(&r);
	static const struct {
		const char *mode, *says;
	} lies[] = {{"inuse", "bytes_in_use exceeds its bytes"}, {"miscount", "says 1 blocks in use; 0 of the check's"}};
	for (size_t i = 0; i < 2; i++) {
		char plugin[4300];
		snprintf(plugin, sizeof plugin, "%s:%s", test_plugin("bad_regions"), lies[i].mode);
		r = run_alloclab(dir, (const char *const[]){"check", "--case", "regions", plugin, NULL});
		cr_expect_eq(r.status, 1, "%s: %s", lies[i].mode, r.out);
		cr_expect(strstr(r.out, "regions           fail") && strstr(r.out, lies[i].says), "%s: %s", lies[i].mode,
			  r.out);
		cmd_result_free(&r);
	}
}
