/* The pictures of a heap map. See heapmap_picture.h. */
#define _GNU_SOURCE 1
#include "heapmap_picture.h"
#include "base/lengths.h"
#include "base/shell_word.h"
#include "files/output_path.h"
#include "plot.h"
#include "process/program.h"
#include "files/scratch.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#define SIDE 16   /* bins a tile's side: SIDE * SIDE == ALLOCLAB_HEAPMAP_BINS */
#define CELL 18   /* a tile and its margin, in image pixels */
#define MAX_COLS 64 /* and at least 8 */

_Static_assert(SIDE * SIDE == ALLOCLAB_HEAPMAP_BINS, "a tile is the region's bins");

struct tile {
	const struct alloclab_heap_region *r;
	unsigned col, row;
};

/* Where a group of tiles starts: an arena's (labelled with its address)
 * or that of inner regions lying in no arena (arena 0). */
struct row_label {
	unsigned row;
	int arena;
	uint64_t address;
};

struct layout {
	struct tile *tiles;
	size_t n, skipped;
	unsigned rows;
	struct row_label *labels;
	size_t nlabels;
};

/* The outer region each inner one lies in (an index, or -1), in order. */
static void groups_of(const struct alloclab_heap_frame *f, long *group)
{
	long outer = -1;
	for (size_t i = 0; i < f->nregions; i++) {
		const struct alloclab_heap_region *r = &f->regions[i];
		if (outer >= 0 && r->address - f->regions[outer].address >= f->regions[outer].bytes)
			outer = -1;
		if (!r->inner)
			outer = (long)i;
		group[i] = r->inner ? outer : -2;
	}
}

static int lay_out(const struct alloclab_heap_frame *f, unsigned cols, struct layout *l)
{
	long *group = calloc(f->nregions + 1, sizeof *group);
	long last = -3;
	unsigned col = 0, row = 0;

	memset(l, 0, sizeof *l);
	l->tiles = calloc(f->nregions + 1, sizeof *l->tiles);
	l->labels = calloc(f->nregions + 1, sizeof *l->labels);
	if (group == NULL || l->tiles == NULL || l->labels == NULL) {
		free(group);
		return -1;
	}
	groups_of(f, group);
	for (size_t i = 0; i < f->nregions; i++) {
		if (group[i] == -2)
			continue;
		if (l->n == ALLOCLAB_HEAPMAP_MAX_TILES) {
			l->skipped++;
			continue;
		}
		if (group[i] != last) {
			/* A new arena starts a row of its own. */
			if (col) {
				row++;
				col = 0;
			}
			l->labels[l->nlabels++] = (struct row_label){row, group[i] >= 0,
								     group[i] >= 0 ? f->regions[group[i]].address : 0};
			last = group[i];
		} else if (col == cols) {
			row++;
			col = 0;
		}
		l->tiles[l->n++] = (struct tile){&f->regions[i], col++, row};
	}
	l->rows = l->n ? row + 1 : 1;
	free(group);
	return 0;
}

static void layout_clear(struct layout *l)
{
	free(l->tiles);
	free(l->labels);
	memset(l, 0, sizeof *l);
}

/* The columns every frame uses: of 8, 16, 32 and 64, the one whose
 * tallest frame comes nearest a 16:10 picture. */
static unsigned columns(const struct alloclab_heapmap *h)
{
	unsigned best = 16;
	double best_miss = INFINITY;
	for (unsigned cols = 8; cols <= MAX_COLS; cols *= 2) {
		unsigned rows = 1;
		for (size_t k = 0; k < h->n; k++) {
			struct layout l;
			if (lay_out(&h->frames[k], cols, &l) != 0)
				return best;
			if (l.rows > rows)
				rows = l.rows;
			layout_clear(&l);
		}
		double miss = fabs(log((double)cols / rows / 1.6));
		if (miss < best_miss) {
			best_miss = miss;
			best = cols;
		}
	}
	return best;
}

/* The bins as a float image (NaN between tiles), and the split marks. */
static int write_data(const struct layout *l, unsigned cols, unsigned rows, const char *image, const char *marks,
		      size_t *nmarks, char *err, size_t err_len)
{
	size_t w = (size_t)cols * CELL, hgt = (size_t)rows * CELL;
	float *px = malloc(w * hgt * sizeof *px);
	FILE *f = fopen(image, "wb"), *m = fopen(marks, "w");
	int rc = -1;

	*nmarks = 0;
	if (px == NULL || f == NULL || m == NULL) {
		snprintf(err, err_len, "cannot write the heap map's picture data: %s", strerror(errno));
		goto out;
	}
	for (size_t i = 0; i < w * hgt; i++)
		px[i] = NAN;
	for (size_t t = 0; t < l->n; t++) {
		const struct tile *tl = &l->tiles[t];
		for (unsigned b = 0; b < ALLOCLAB_HEAPMAP_BINS; b++) {
			size_t x = (size_t)tl->col * CELL + 1 + b % SIDE, y = (size_t)tl->row * CELL + 1 + b / SIDE;
			px[y * w + x] = (float)tl->r->occupancy[b] / 15.0f;
			/* Column 3: 1 a split page, 0 a split line. */
			if (tl->r->splits[b]) {
				fprintf(m, "%zu %zu %d\n", x, y, tl->r->page_splits[b]);
				++*nmarks;
			}
		}
	}
	if (fwrite(px, sizeof *px, w * hgt, f) != w * hgt) {
		snprintf(err, err_len, "cannot write the heap map's picture data: %s", strerror(errno));
		goto out;
	}
	rc = 0;
out:
	free(px);
	if (f && fclose(f) != 0 && rc == 0) {
		snprintf(err, err_len, "cannot write the heap map's picture data: %s", strerror(errno));
		rc = -1;
	}
	if (m && fclose(m) != 0 && rc == 0) {
		snprintf(err, err_len, "cannot write the heap map's picture data: %s", strerror(errno));
		rc = -1;
	}
	return rc;
}

/* Light orange (little in use) to dark red (full); grey: nothing. */
static void border_colour(const struct alloclab_heap_region *r, char *out, size_t len)
{
	double share = r->blocks ? (double)r->blocks_in_use / (double)r->blocks
				 : (double)r->bytes_in_use / (double)r->bytes;
	if (r->blocks_in_use == 0 && r->bytes_in_use == 0) {
		snprintf(out, len, "#b0b0b0");
		return;
	}
	if (share > 1)
		share = 1;
	const double lo[3] = {0xfd, 0xd4, 0x9e}, hi[3] = {0xb3, 0x00, 0x00};
	snprintf(out, len, "#%02x%02x%02x", (unsigned)(lo[0] + (hi[0] - lo[0]) * share),
		 (unsigned)(lo[1] + (hi[1] - lo[1]) * share), (unsigned)(lo[2] + (hi[2] - lo[2]) * share));
}

static void bytes_text(uint64_t n, char *out, size_t len)
{
	if (n >= 10ull << 20)
		snprintf(out, len, "%.1f MiB", (double)n / 1048576.0);
	else if (n >= 10ull << 10)
		snprintf(out, len, "%.1f KiB", (double)n / 1024.0);
	else
		snprintf(out, len, "%" PRIu64 " B", n);
}

static void frame_caption(const struct alloclab_heap_frame *f, const struct layout *l, char *out, size_t len)
{
	struct alloclab_heap_sums s;
	char used[32], tracked[32], when[64];
	alloclab_heap_frame_sums(f, &s);
	bytes_text(s.bytes_in_use, used, sizeof used);
	bytes_text(f->tracked_bytes, tracked, sizeof tracked);
	if (f->at_call > 0)
		snprintf(when, sizeof when, "value %u, call %" PRId64, f->value, f->at_call);
	else
		snprintf(when, sizeof when, "end of value %u", f->value);
	snprintf(out, len,
		 "frame %u (%s): %" PRIu64 " regions (%" PRIu64 " outer, %zu tiles drawn%s); %s in use by its own "
		 "account; %" PRIu64 " live blocks, %s, tracked\\n%" PRIu64 " blocks of at most a line split over two "
		 "lines (red dots), %" PRIu64 " of at most a page over two pages (yellow crosses); %" PRIu64
		 " blocks outside every region; a black rule where an arena starts",
		 f->frame, when, f->regions_total, s.outer, l->n, l->skipped || f->regions_total > f->nregions ? ", not all" : "",
		 used, f->tracked_blocks, tracked, f->split_lines, f->split_pages, f->outside_blocks);
}

/* The border's scale, bottom right: five steps of the plugin's own
 * occupancy and the grey of an empty region. */
static void border_legend(FILE *p, unsigned ph)
{
	static const unsigned share[] = {5, 25, 50, 75, 100, 0};
	static const char *const name[] = {"little", "1/4", "1/2", "3/4", "full", "empty"};
	const double y0 = ph ? 8.0 / ph : 0.01, y1 = ph ? 20.0 / ph : 0.03;
	const unsigned id = ALLOCLAB_HEAPMAP_MAX_TILES + 10;
	char colour[16];
	fprintf(p, "set label %u \"border: in use by the plugin's own account\" at screen 0.585, screen %.4f right front "
		   "font ',8'\n",
		id, (y0 + y1) / 2);
	for (unsigned k = 0; k < 6; k++) {
		const struct alloclab_heap_region r = {.bytes = 100, .bytes_in_use = share[k]};
		double x = 0.595 + k * 0.062;
		border_colour(&r, colour, sizeof colour);
		fprintf(p, "set object %u rect from screen %.4f,%.4f to screen %.4f,%.4f fs empty border lc rgb '%s' lw 2.5 "
			   "front\n",
			id + 1 + k, x, y0, x + 0.014, y1, colour);
		fprintf(p, "set label %u \"%s\" at screen %.4f, screen %.4f left front font ',8'\n", id + 1 + k, name[k],
			x + 0.019, (y0 + y1) / 2);
	}
}

struct frame_files {
	char image[ALLOCLAB_PATH_PLUS_LEN], marks[ALLOCLAB_PATH_PLUS_LEN];
	size_t nmarks;
	struct layout l;
};

/* One frame's plot: full (labels, key and caption) or small (a sheet's). */
static void plot_frame(FILE *p, const struct alloclab_heap_frame *f, const struct frame_files *ff, unsigned cols,
		       unsigned rows, const char *title, int small, unsigned ph)
{
	unsigned w = cols * CELL, hgt = rows * CELL;
	char caption[1024];

	fputs("unset object\nunset label\nunset arrow\nunset key\nset border 0\nunset xtics\nunset ytics\nunset bmargin\n", p);
	fprintf(p, "set xrange [-0.5:%u.5]\nset yrange [%u.5:-0.5]\nset size ratio -1\n", w - 1, hgt - 1);
	fputs("set style textbox opaque fc rgb '#ffffff' noborder margins 0.5,0.5\n", p);
	fputs("set palette defined (0 '#eef2f7', 0.4 '#9ecae1', 0.7 '#4292c6', 1 '#08306b')\nset cbrange [0:1]\n", p);
	if (small) {
		fprintf(p, "unset colorbox\nset title '%s %u' noenhanced\n", f->at_call > 0 ? "frame" : "value",
			f->at_call > 0 ? f->frame : f->value);
		/* The sheet's key, at its foot (drawn by each thumbnail, in one
		 * place). */
		fputs("set label 100 \"shade: the share of each 1/256 of a region that live blocks cover, pale empty to "
		      "dark full; border: the plugin's own occupancy, light orange to dark red; red dot: a block split "
		      "over two lines starts there, yellow cross: over two pages; black rule: an arena starts\" at screen "
		      "0.01, screen 0.012 left front font ',9'\n",
		      p);
	} else {
		fputs("set colorbox\nset cbtics ('empty' 0, 'half' 0.5, 'full' 1)\nset bmargin 8\n", p);
		frame_caption(f, &ff->l, caption, sizeof caption);
		fputs("set title ", p);
		alloclab_gnuplot_title(p, title);
		fputs(" noenhanced\nset label 1 \"", p);
		/* The caption is ours: only digits, words and \n. */
		fputs(caption, p);
		/* What one bin is, for the commonest region (the first tile's). */
		if (ff->l.n) {
			const struct alloclab_heap_region *r = ff->l.tiles[0].r;
			char whole[32], bin[32];
			bytes_text(r->bytes, whole, sizeof whole);
			bytes_text(r->bytes / ALLOCLAB_HEAPMAP_BINS, bin, sizeof bin);
			fprintf(p, "\\nshade: the share of each 1/256 of a region that live blocks cover (%s of a %s %s); ",
				bin, whole, alloclab_region_kind_name(r->kind));
		} else {
			fputs("\\n", p);
		}
		/* Its three lines placed in pixels from the bottom, so that a
		 * short frame does not clip the last. */
		fprintf(p, "border: the plugin's own occupancy, light orange to dark red, grey when empty; "
			   "number: the size class\" at screen 0.01, screen %.4f left front noenhanced font ',8'\n",
			ph ? 62.0 / ph : 0.08);
		if (ff->l.nlabels) {
			size_t step = ff->l.nlabels / 40 + 1;
			fputs("set ytics out nomirror font ',7' (", p);
			for (size_t i = 0; i < ff->l.nlabels; i += step) {
				if (ff->l.labels[i].arena)
					fprintf(p, "%s'arena 0x%" PRIx64 "' %u", i ? ", " : "", ff->l.labels[i].address,
						ff->l.labels[i].row * CELL + CELL / 2);
				else
					fprintf(p, "%s'in no arena' %u", i ? ", " : "", ff->l.labels[i].row * CELL + CELL / 2);
			}
			fputs(")\n", p);
		}
		border_legend(p, ph);
	}
	/* Where each arena ends and the next starts: a rule across the
	 * picture above its first row (more than one group only). */
	for (size_t i = 1; i < ff->l.nlabels && ff->l.nlabels > 1; i++)
		fprintf(p, "set arrow %zu from -0.5,%.1f to %u.5,%.1f nohead front lc rgb '#202020' lw %s\n", i,
			ff->l.labels[i].row * CELL - 0.5, w - 1, ff->l.labels[i].row * CELL - 0.5, small ? "0.6" : "1.2");
	int borders = !small || ff->l.n <= 512;
	int sizes = !small && ff->l.n <= 1024;
	for (size_t t = 0; t < ff->l.n && (borders || sizes); t++) {
		const struct tile *tl = &ff->l.tiles[t];
		unsigned x0 = tl->col * CELL, y0 = tl->row * CELL;
		if (borders) {
			char colour[16];
			border_colour(tl->r, colour, sizeof colour);
			fprintf(p, "set object %zu rect from %u,%u to %u,%u fs empty border lc rgb '%s' lw %s front\n", t + 1,
				x0, y0, x0 + CELL - 1, y0 + CELL - 1, colour, small ? "0.5" : "1.5");
		}
		if (sizes && tl->r->block_size)
			fprintf(p, "set label %zu '%" PRIu64 "' at %u,%u center front boxed font ',6' tc rgb '#202020'\n", t + 2,
				tl->r->block_size, x0 + CELL / 2, y0 + CELL / 2);
	}
	fputs("plot ", p);
	alloclab_gnuplot_quote(p, ff->image);
	fprintf(p, " binary array=(%u,%u) format='%%float' with image notitle", w, hgt);
	if (ff->nmarks) {
		fputs(", ", p);
		alloclab_gnuplot_quote(p, ff->marks);
		/* Red dots ringed in white and yellow crosses: both stand out on
		 * the darkest shade, and neither reads as a border. */
		fprintf(p, " using 1:($3 == 0 ? $2 : 1/0) with points pt 7 ps %s lc rgb '#ffffff' notitle, ",
			small ? "0.25" : "0.55");
		alloclab_gnuplot_quote(p, ff->marks);
		fprintf(p, " using 1:($3 == 0 ? $2 : 1/0) with points pt 7 ps %s lc rgb '#e31a1c' notitle, ",
			small ? "0.15" : "0.35");
		alloclab_gnuplot_quote(p, ff->marks);
		fprintf(p, " using 1:($3 == 1 ? $2 : 1/0) with points pt 2 ps %s lw %s lc rgb '#ffd21f' notitle",
			small ? "0.25" : "0.5", small ? "0.8" : "1.6");
	}
	fputc('\n', p);
}

#define GNUPLOT_TIMEOUT_S 600

/* gnuplot on the script (written to the scratch folder), its messages
 * passed on to stderr but for the gif terminal's count of frames. */
static int run_gnuplot(const char *tmp, const char *script, char *err, size_t err_len)
{
	char path[ALLOCLAB_PATH_PLUS_LEN], *said = NULL;
	snprintf(path, sizeof path, "%s/draw.gp", tmp);
	FILE *f = fopen(path, "w");
	if (f == NULL || fputs(script, f) < 0 || fclose(f) != 0) {
		snprintf(err, err_len, "cannot write %s: %s", path, strerror(errno));
		return -1;
	}
	char *const argv[] = {"sh", "-c", "exec gnuplot \"$1\" 2>&1", "sh", path, NULL};
	char why[ALLOCLAB_ERR_LEN];
	/* A deadline as every child has: gnuplot drawing a few hundred frames
	 * takes seconds. */
	int status = alloclab_capture(argv, NULL, GNUPLOT_TIMEOUT_S, 1 << 16, &said, why, sizeof why, NULL, 0);
	for (char *line = said, *next; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		else
			next = line + strlen(line);
		if (strstr(line, "frames in animation sequence") == NULL)
			alloclab_say("gnuplot: %s", line); /* it may quote the picture's title */
	}
	free(said);
	if (status != 0) {
		if (status < 0)
			snprintf(err, err_len, "gnuplot failed drawing the heap map: %s", why);
		else
			snprintf(err, err_len, "gnuplot failed drawing the heap map (status %d)", status);
		return -1;
	}
	return 0;
}

static int gif_available(void)
{
	char *const argv[] = {"sh", "-c", "echo 'set terminal' | gnuplot 2>&1", NULL};
	char why[ALLOCLAB_ERR_LEN], *said = NULL;
	int found = alloclab_capture(argv, NULL, 30, 1 << 16, &said, why, sizeof why, NULL, 0) == 0 && said &&
		    strstr(said, " gif ") != NULL;
	free(said);
	return found;
}

/* Draws into the scratch folder, then copies under the output policy. */
static int draw_to(const char *tmp, const char *script_text, const char *drawn, const char *dir, const char *name,
		   char *err, size_t err_len)
{
	char out[ALLOCLAB_PATH_PLUS_LEN];
	if (run_gnuplot(tmp, script_text, err, err_len) != 0)
		return -1;
	snprintf(out, sizeof out, "%s/%s", dir, name);
	return alloclab_output_copy(drawn, out, ALLOCLAB_OUTPUT_PICTURE, err, err_len);
}

int alloclab_heapmap_draw(const struct alloclab_heapmap *h, const char *title, const char *dir, char *err,
			  size_t err_len)
{
	char tmp[ALLOCLAB_PATH_LEN], drawn[ALLOCLAB_PATH_PLUS_LEN], name[64];
	struct frame_files *ff = calloc(h->n + 1, sizeof *ff);
	unsigned cols = columns(h), rows = 1;
	char *script = NULL;
	size_t script_len = 0;
	int rc = -1;

	if (ff == NULL || alloclab_scratch_make("heapmap", tmp, sizeof tmp) != 0) {
		snprintf(err, err_len, "cannot make a scratch folder: %s", strerror(errno));
		free(ff);
		return -1;
	}
	for (size_t k = 0; k < h->n; k++) {
		if (lay_out(&h->frames[k], cols, &ff[k].l) != 0) {
			snprintf(err, err_len, "out of memory laying out frame %zu", k + 1);
			goto out;
		}
		if (ff[k].l.rows > rows)
			rows = ff[k].l.rows;
	}
	/* Every frame the same size, so that the animation does not jump. */
	unsigned w = cols * CELL, hgt = rows * CELL;
	double scale = 1300.0 / w;
	if (scale > 4)
		scale = 4;
	if (scale * hgt > 6000)
		scale = 6000.0 / hgt;
	unsigned pw = (unsigned)(w * scale) + 260, ph = (unsigned)(hgt * scale) + 240;
	if (pw < 1150)
		pw = 1150; /* room for the caption */
	for (size_t k = 0; k < h->n; k++) {
		snprintf(ff[k].image, sizeof ff[k].image, "%s/frame-%03zu.bin", tmp, k + 1);
		snprintf(ff[k].marks, sizeof ff[k].marks, "%s/frame-%03zu.marks", tmp, k + 1);
		if (write_data(&ff[k].l, cols, rows, ff[k].image, ff[k].marks, &ff[k].nmarks, err, err_len) != 0)
			goto out;
	}
	for (size_t k = 0; k < h->n; k++) {
		FILE *s = open_memstream(&script, &script_len);
		snprintf(name, sizeof name, "frame-%03zu.png", k + 1);
		snprintf(drawn, sizeof drawn, "%s/%s", tmp, name);
		fprintf(s, "set terminal pngcairo size %u,%u font 'sans,9'\nset output ", pw, ph);
		alloclab_gnuplot_quote(s, drawn);
		fputc('\n', s);
		plot_frame(s, &h->frames[k], &ff[k], cols, rows, title, 0, ph);
		fputs("set output\n", s);
		fclose(s);
		if (draw_to(tmp, script, drawn, dir, name, err, err_len) != 0)
			goto out;
		free(script);
		script = NULL;
	}
	{
		/* The contact sheet: up to SHEET_FRAMES frames, evenly spaced. */
		size_t shown = h->n < ALLOCLAB_HEAPMAP_SHEET_FRAMES ? h->n : ALLOCLAB_HEAPMAP_SHEET_FRAMES;
		unsigned sc = (unsigned)ceil(sqrt((double)shown)), sr = (unsigned)((shown + sc - 1) / sc);
		/* Thumbnails as wide as a third of a screen, each as tall as its
		 * frame's shape asks (a square cell for a wide heap left it mostly
		 * white), with room for its title and the sheet's caption. */
		unsigned tw = sc == 1 ? 1100 : 640, th = (unsigned)((double)tw * hgt / w) + 36;
		if (th > 1200)
			th = 1200;
		FILE *s = open_memstream(&script, &script_len);
		snprintf(drawn, sizeof drawn, "%s/contact-sheet.png", tmp);
		fprintf(s, "set terminal pngcairo size %u,%u font 'sans,9'\nset output ", sc * tw, sr * th + 90);
		alloclab_gnuplot_quote(s, drawn);
		fprintf(s, "\nset multiplot layout %u,%u margins 0.02,0.98,%.4f,%.4f spacing 0.01,%.4f title ", sr, sc,
			40.0 / (sr * th + 90), 1 - 58.0 / (sr * th + 90), 30.0 / (sr * th + 90));
		alloclab_gnuplot_quote(s, title);
		fputs(" noenhanced\n", s);
		for (size_t i = 0; i < shown; i++) {
			size_t k = shown == h->n ? i : i * (h->n - 1) / (shown - 1);
			plot_frame(s, &h->frames[k], &ff[k], cols, rows, title, 1, 0);
		}
		fputs("unset multiplot\nset output\n", s);
		fclose(s);
		if (draw_to(tmp, script, drawn, dir, "contact-sheet.png", err, err_len) != 0)
			goto out;
		free(script);
		script = NULL;
	}
	if (gif_available()) {
		FILE *s = open_memstream(&script, &script_len);
		snprintf(drawn, sizeof drawn, "%s/heapmap.gif", tmp);
		fprintf(s, "set terminal gif animate delay 80 loop 0 size %u,%u\nset output ", pw, ph);
		alloclab_gnuplot_quote(s, drawn);
		fputc('\n', s);
		for (size_t k = 0; k < h->n; k++)
			plot_frame(s, &h->frames[k], &ff[k], cols, rows, title, 0, ph);
		fputs("set output\n", s);
		fclose(s);
		if (draw_to(tmp, script, drawn, dir, "heapmap.gif", err, err_len) != 0)
			goto out;
	}
	rc = 0;
out:
	free(script);
	for (size_t k = 0; k < h->n; k++)
		layout_clear(&ff[k].l);
	free(ff);
	alloclab_scratch_remove(tmp);
	return rc;
}
