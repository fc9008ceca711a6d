/*
 * The pictures of a heap map (framework/measure/heapmap.h's frames), drawn by
 * gnuplot: one PNG a frame, a contact sheet of them all, and an animated
 * GIF (gnuplot's gif terminal, from libgd) of the heap evolving.
 *
 * Each innermost region is a tile of 16 x 16 bins in address order (bin 0
 * top left), the bins shaded by the share of their bytes that live blocks
 * cover; its border coloured by the plugin's own occupancy of it (blocks
 * in use of its blocks, else bytes in use of its bytes), grey when empty;
 * its size class written in it where there is room; a red dot on each
 * bin where a live block starts that is split needlessly over two lines
 * (at most a line long), a yellow cross where one of at most a page spans
 * two pages. Tiles of one outer region (an arena) start a row of their
 * own, labelled with its address, with a rule where each arena starts;
 * the border's scale is drawn under the caption.
 */
#ifndef ALLOCLAB_HEAPMAP_PICTURE_H
#define ALLOCLAB_HEAPMAP_PICTURE_H

#include "measure/heapmap.h"

#include <stddef.h>

/* At most this many tiles a frame are drawn (the lowest addresses). */
#define ALLOCLAB_HEAPMAP_MAX_TILES 4096
/* A contact sheet shows at most this many frames, evenly spaced. */
#define ALLOCLAB_HEAPMAP_SHEET_FRAMES 24

/* Draws every frame into dir: frame-NNN.png, contact-sheet.png and
 * heapmap.gif (where gnuplot has the gif terminal). title names the
 * plugin and the workload. 0, or -1 with err set. */
int alloclab_heapmap_draw(const struct alloclab_heapmap *h, const char *title, const char *dir, char *err,
			  size_t err_len);

#endif
