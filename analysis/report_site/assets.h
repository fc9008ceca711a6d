/*
 * The report's stylesheet and script, as text built into alloclab from
 * site.css and site.js beside this header (analysis/meson.build embeds
 * them), so that a site needs nothing installed beside the command.
 */
#ifndef ALLOCLAB_ASSETS_H
#define ALLOCLAB_ASSETS_H

extern const char alloclab_site_style[];
extern const char alloclab_site_script[];

#endif
