/* `alloclab report`'s sites. See report_site.h. */
#include "report_site.h"
#include "history_pages.h"
#include "run_page.h"
#include "site.h"

#include "plot.h"

int alloclab_report_run(const struct alloclab_results *r, const char *source, const struct alloclab_report_options *o,
			char *err, size_t err_len)
{
	struct alloclab_site s;
	if (alloclab_site_begin(&s, o->dir, err, err_len) != 0)
		return -1;
	s.gnuplot = alloclab_plot_available();
	struct alloclab_run_page p = {.file = "index.html", .stem = "run", .source = source, .baseline = o->baseline};
	if (alloclab_run_page_write(&s, r, &p, err, err_len) != 0) {
		alloclab_site_abandon(&s);
		return -1;
	}
	return alloclab_site_finish(&s, err, err_len);
}

int alloclab_report_store(struct alloclab_store *store, const char *db, const struct alloclab_report_options *o,
			  char *err, size_t err_len)
{
	struct alloclab_site s;
	if (alloclab_site_begin(&s, o->dir, err, err_len) != 0)
		return -1;
	s.gnuplot = alloclab_plot_available();
	if (alloclab_history_site(&s, store, db, o, err, err_len) != 0) {
		alloclab_site_abandon(&s);
		return -1;
	}
	return alloclab_site_finish(&s, err, err_len);
}
