/* A page's pictures. See page_figures.h. */
#include "page_figures.h"
#include "html.h"
#include "plot.h"

#include <string.h>

void alloclab_page_figures_init(struct alloclab_page_figures *pf, const char *stem)
{
	memset(pf, 0, sizeof *pf);
	snprintf(pf->folder, sizeof pf->folder, "figures/%.100s", stem);
}

/* The file a figure is drawn to: folder/NAME.svg (the plot code's name). */
static void figure_file(const struct alloclab_page_figures *pf, const struct alloclab_figure *fig, char *out, size_t len)
{
	char name[128];
	alloclab_safe_file_name(fig->name, name, sizeof name);
	snprintf(out, len, "%s/%s.svg", pf->folder, name);
}

int alloclab_page_figures_draw(struct alloclab_site *s, struct alloclab_page_figures *pf, char *err, size_t err_len)
{
	char dir[ALLOCLAB_PATH_PLUS2_LEN];
	if (pf->list.n == 0)
		return 0;
	if (!s->gnuplot) {
		snprintf(pf->why, sizeof pf->why, "gnuplot is not installed here (Debian's gnuplot-nox)");
		return 0;
	}
	if (alloclab_site_folder(s, pf->folder, dir, sizeof dir, err, err_len) != 0 ||
	    alloclab_plot_draw_svg(&pf->list, dir, err, err_len) != 0)
		return -1;
	for (size_t i = 0; i < pf->list.n; i++) {
		char file[300];
		figure_file(pf, &pf->list.items[i], file, sizeof file);
		alloclab_site_add(s, file);
	}
	pf->drawn = 1;
	return 0;
}

void alloclab_page_figures_write(FILE *f, const struct alloclab_site *s, const struct alloclab_page_figures *pf,
				 size_t from, size_t to)
{
	if (from >= to)
		return;
	if (!pf->drawn) {
		fputs("<p class=\"note\">Pictures not drawn: ", f);
		alloclab_html_text(f, pf->why);
		fputs(".</p>\n", f);
		return;
	}
	fputs("<div class=\"figures\">\n", f);
	for (size_t i = from; i < to && i < pf->list.n; i++) {
		const struct alloclab_figure *fig = &pf->list.items[i];
		char file[300];
		figure_file(pf, fig, file, sizeof file);
		if (!alloclab_site_has(s, file)) {
			fputs("<figure><figcaption>", f);
			alloclab_html_text(f, fig->title);
			fputs(": no value to draw.</figcaption></figure>\n", f);
			continue;
		}
		fputs("<figure><a href=\"", f);
		alloclab_html_text(f, file);
		fputs("\"><img src=\"", f);
		alloclab_html_text(f, file);
		fputs("\" width=\"1100\" height=\"650\" loading=\"lazy\" alt=\"", f);
		alloclab_html_text(f, fig->title);
		fputs("\"></a><figcaption>", f);
		alloclab_html_text(f, fig->title);
		fputs("</figcaption></figure>\n", f);
	}
	fputs("</div>\n", f);
}

void alloclab_page_figures_free(struct alloclab_page_figures *pf)
{
	alloclab_figure_list_free(&pf->list);
}
