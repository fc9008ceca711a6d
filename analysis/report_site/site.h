/*
 * A report's site as files: the one owner of its layout. Every page is at
 * the top of the folder (so that every link is a plain name), with
 *
 *   assets/style.css, assets/site.js   the stylesheet and the script (built into alloclab)
 *   figures/...svg                     the pictures, drawn by the plot code
 *   data/...json                       the raw values and the figures as data
 *   alloclab-report.txt                the mark: what alloclab wrote, a name a line
 *
 * The folder is written whole, under the output policy
 * (files/output_path.h): a new folder, an empty one, or an earlier
 * report's (recognised by its mark, holding nothing but what that lists)
 * is replaced only once the whole site is written.
 */
#ifndef ALLOCLAB_SITE_H
#define ALLOCLAB_SITE_H

#include "figures/cell_index.h"
#include "files/output_path.h"

#include <jansson.h>
#include <stddef.h>
#include <stdio.h>

#define ALLOCLAB_SITE_MARK "alloclab-report.txt"
#define ALLOCLAB_SITE_SIGNATURE "alloclab report site"

struct alloclab_site {
	struct alloclab_output_folder folder;
	char **files; /* what is written, for the mark */
	size_t nfiles, cap;
	struct alloclab_text_index *written; /* files, found by name */
	int gnuplot;  /* pictures can be drawn */
};

/* Starts a site to be put at dir. 0, or -1 with one line in err. */
int alloclab_site_begin(struct alloclab_site *s, const char *dir, char *err, size_t err_len);

/* A file of the site (name: alloclab_output_folder_name_ok), its folders
 * made. NULL with err. */
FILE *alloclab_site_open(struct alloclab_site *s, const char *name, char *err, size_t err_len);
/* Closes it: 0, or -1 with err when anything of it was not written. */
int alloclab_site_close(FILE *f, const char *name, char *err, size_t err_len);
/* JSON into a file of the site (compact). */
int alloclab_site_json(struct alloclab_site *s, const char *name, const json_t *doc, char *err, size_t err_len);

/* Where a folder of the site is being written (made), for code that
 * writes files there itself (the plot code); each file it wrote is then
 * recorded with alloclab_site_add. 0, or -1 with err. */
int alloclab_site_folder(struct alloclab_site *s, const char *name, char *out, size_t len, char *err, size_t err_len);
/* Records name as written when it is there (a regular file): 1, else 0. */
int alloclab_site_add(struct alloclab_site *s, const char *name);
/* Whether name was written (opened or added). */
int alloclab_site_has(const struct alloclab_site *s, const char *name);

/* Writes the assets and the mark, and puts the site in place. 0, or -1
 * with err (nothing then changed at dir). */
int alloclab_site_finish(struct alloclab_site *s, char *err, size_t err_len);
/* Drops a site that will not be finished. */
void alloclab_site_abandon(struct alloclab_site *s);

#endif
