/*
 * HTML as the report's pages write it: the one place where text becomes
 * markup. Every string that reaches a page from a results file, a store
 * or a plugin (labels, workload names and parameters, host names,
 * messages, commit subjects) goes through alloclab_html_text or
 * alloclab_html_printf, which escape it for element content and quoted
 * attribute values alike; markup itself is only ever constant text of the
 * page code. Links are to the site's own files, by names checked here.
 *
 * Every page declares a content security policy that allows nothing but
 * the site's own files (its stylesheet, its script, its pictures): no
 * inline script or style, no other origin, no form, no frame. So that
 * even a mistake in escaping could run nothing, and a page opened from
 * the file system never reaches the network.
 */
#ifndef ALLOCLAB_HTML_H
#define ALLOCLAB_HTML_H

#include <stddef.h>
#include <stdio.h>

#define ALLOCLAB_HTML_CSP                                                                                         \
	"default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; base-uri 'none'; "                \
	"form-action 'none'"

/* s escaped (& < > " '), control characters (C0 but tab and newline, DEL,
 * C1) dropped, bytes that are not UTF-8 as U+FFFD, and bidirectional
 * controls as their escapes ("\u202e", base/json_text.h), so that no text
 * from outside reverses the page's own. */
void alloclab_html_text(FILE *f, const char *s);
/* s as alloclab_html_text writes it, its first max bytes at most (cut at
 * the end of a character), then "… N more bytes": what a page shows of a
 * text from outside that may be of any length (a command line of 20,000
 * words made a site of 229 MiB). Returns whether s was cut. */
int alloclab_html_text_max(FILE *f, const char *s, size_t max);

/* A formatted string, escaped as a whole. */
void alloclab_html_printf(FILE *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A page's start: the doctype, the policy, its title (escaped), the
 * stylesheet and the script (deferred), and the top bar linking home
 * ("index.html", unless the page is it). */
void alloclab_html_begin(FILE *f, const char *title, int is_index);
void alloclab_html_end(FILE *f);

/* <a href="HREF">TEXT</a>: href a name inside the site
 * (alloclab_output_folder_name_ok, with an optional #fragment of the
 * same characters); a name that is not one is written as text alone. */
void alloclab_html_link(FILE *f, const char *href, const char *text);

/* A table cell of text: <td>TEXT</td>; a column filtered by its words:
 * <td data-f="TEXT">TEXT</td>. */
void alloclab_html_cell(FILE *f, const char *text);
void alloclab_html_filter_cell(FILE *f, const char *text);

/* A table cell with a number: its value for sorting in data-v, its text
 * as shown (both escaped); NaN or < 0 with unknown: "-". */
void alloclab_html_number_cell(FILE *f, double v, const char *shown);

#endif
