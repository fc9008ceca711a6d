/* HTML text and the pages' frame. See html.h. */
#define _GNU_SOURCE 1
#include "html.h"
#include "files/output_path.h"
#include "base/json_text.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

void alloclab_html_text(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	while (*p) {
		size_t n = alloclab_utf8_char(p);
		if (n == 0) {
			fputs("\xef\xbf\xbd", f);
			p++;
			continue;
		}
		if (n > 1) {
			/* A bidirectional control would turn the page's own text
			 * around it: shown as its escape, as on a terminal. */
			unsigned bidi = alloclab_bidi_control(p, n);
			if (bidi)
				fprintf(f, "\\u%04x", bidi);
			else if (!alloclab_control_char(p, n))
				fwrite(p, 1, n, f);
			p += n;
			continue;
		}
		switch (*p) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&#39;", f); break;
		default:
			if (*p >= 0x20 && *p != 0x7f)
				fputc(*p, f);
			else if (*p == '\n' || *p == '\t')
				fputc(*p, f);
		}
		p++;
	}
}

int alloclab_html_text_max(FILE *f, const char *s, size_t max)
{
	size_t n = s ? strlen(s) : 0, cut = 0;
	if (n <= max) {
		alloclab_html_text(f, s);
		return 0;
	}
	while (cut < max) {
		size_t k = alloclab_utf8_char((const unsigned char *)s + cut);
		k = k ? k : 1;
		if (cut + k > max)
			break;
		cut += k;
	}
	char *head = strndup(s, cut);
	alloclab_html_text(f, head ? head : "");
	free(head);
	fprintf(f, "\xe2\x80\xa6 %zu more bytes", n - cut);
	return 1;
}

void alloclab_html_printf(FILE *f, const char *fmt, ...)
{
	char *s = NULL;
	va_list ap;
	va_start(ap, fmt);
	int n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n >= 0)
		alloclab_html_text(f, s);
	free(s);
}

void alloclab_html_begin(FILE *f, const char *title, int is_index)
{
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	      "<meta http-equiv=\"Content-Security-Policy\" content=\"" ALLOCLAB_HTML_CSP "\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
	      "<meta name=\"referrer\" content=\"no-referrer\">\n<title>",
	      f);
	alloclab_html_text(f, title);
	fputs("</title>\n<link rel=\"stylesheet\" href=\"assets/style.css\">\n"
	      "<script src=\"assets/site.js\" defer></script>\n</head>\n<body>\n<header class=\"top\"><div class=\"wrap\">",
	      f);
	if (is_index)
		fputs("<span class=\"brand\">alloclab report</span>", f);
	else
		fputs("<a class=\"brand\" href=\"index.html\">alloclab report</a>", f);
	fputs("</div></header>\n<main class=\"wrap\">\n", f);
}

void alloclab_html_end(FILE *f)
{
	fputs("</main>\n<footer class=\"wrap\">Made by <code>alloclab report</code>: a static site; nothing on it is "
	      "fetched from elsewhere.</footer>\n</body>\n</html>\n",
	      f);
}

void alloclab_html_link(FILE *f, const char *href, const char *text)
{
	char name[256];
	const char *hash = strchr(href, '#');
	size_t n = hash ? (size_t)(hash - href) : strlen(href);
	int ok = n < sizeof name;
	if (ok) {
		memcpy(name, href, n);
		name[n] = '\0';
		ok = (n == 0 && hash) || alloclab_output_folder_name_ok(name);
	}
	if (ok && hash)
		ok = hash[1] && alloclab_output_folder_name_ok(hash + 1) && strchr(hash + 1, '/') == NULL;
	if (!ok) {
		alloclab_html_text(f, text);
		return;
	}
	fputs("<a href=\"", f);
	alloclab_html_text(f, href);
	fputs("\">", f);
	alloclab_html_text(f, text);
	fputs("</a>", f);
}

void alloclab_html_number_cell(FILE *f, double v, const char *shown)
{
	if (!isfinite(v)) {
		fputs("<td class=\"num\" data-v=\"\">-</td>", f);
		return;
	}
	fprintf(f, "<td class=\"num\" data-v=\"%.17g\">", v);
	alloclab_html_text(f, shown);
	fputs("</td>", f);
}

void alloclab_html_cell(FILE *f, const char *text)
{
	fputs("<td>", f);
	alloclab_html_text(f, text);
	fputs("</td>", f);
}

void alloclab_html_filter_cell(FILE *f, const char *text)
{
	fputs("<td data-f=\"", f);
	alloclab_html_text(f, text);
	fputs("\">", f);
	alloclab_html_text(f, text);
	fputs("</td>", f);
}
