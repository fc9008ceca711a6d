/*
 * `alloclab new plugin NAME [--template bump|freelist|segregated] [DIR]`:
 * a plugin folder to start from, made from one of the course's templates
 * (templates/plugin/: a C source with the ABI's ops to fill in, a meson
 * build file using pkg-config alloclab-plugin, a README with the steps).
 * Nothing is replaced: DIR (default ./NAME) must not exist.
 */
#include "cli.h"
#include "base/shell_word.h"
#include "files/self_exe.h"
#include "plugin/loader.h"

#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char usage[] =
	"usage: alloclab new plugin NAME [--template bump|freelist|segregated] [DIR]\n"
	"\n"
	"Writes a buildable plugin folder (DIR, default ./NAME) from a template of the\n"
	"course (docs/course/): NAME.c with the ABI's ops to fill in, meson.build using\n"
	"pkg-config alloclab-plugin, and README.md with the steps. NAME is [a-z0-9_-]+.\n"
	"\n"
	"templates:\n"
	"  bump        exercise 1: a bump allocator (check --level 1)\n"
	"  freelist    exercise 2: a free list, first fit, splitting and coalescing (--level 2)\n"
	"  segregated  exercise 3: segregated size classes (--level 3)\n";

static const struct {
	const char *name, *what, *level, *fails, *measure, *course;
} templates[] = {
	{"bump", "a bump allocator, the course's first exercise.", "1",
	 "the cases alignment, no-overlap, contents and edge-sizes fail with \"malloc(...) returned NULL\"",
	 "`alloclab run -p ./build/@NAME@.so -p system -w churn:ops=100000 -t 1`: its ns/op against glibc's, "
	 "and its peak RSS, which grows with every op", "docs/course/01-bump.md"},
	{"freelist", "a free-list allocator with first fit, splitting and coalescing, the course's second exercise.",
	 "2", "the case footprint fails: \"freed memory is not reused\"",
	 "`alloclab run -p ./build/@NAME@.so -p system -w churn -w fragment -t 1`: time per op, and the memory "
	 "section's fragmentation (resident over requested-live)", "docs/course/02-free-list.md"},
	{"segregated", "segregated size classes, the course's third exercise.", "3",
	 "the cases alignment, no-overlap, contents, guards, footprint and edge-sizes fail with \"malloc(...) returned NULL\"",
	 "`alloclab run -p ./build/@NAME@.so -p system -w churn -t 1 -n 5`, then `alloclab compare` on the "
	 "run: how much faster than the free list, and at what cost in memory", "docs/course/03-size-classes.md"},
};

static const char *template_dir(void)
{
	struct stat st;
	if (stat(ALLOCLAB_TEMPLATE_SOURCE_DIR "/bump.c", &st) == 0 && access(ALLOCLAB_BUILD_ROOT, F_OK) == 0)
		return ALLOCLAB_TEMPLATE_SOURCE_DIR;
	return ALLOCLAB_TEMPLATE_INSTALL_DIR;
}

/* in with every @KEY@ of subs (pairs, NULL-terminated) replaced. */
static char *substitute(const char *in, const char *const *subs)
{
	size_t cap = strlen(in) * 2 + 4096, n = 0;
	char *out = malloc(cap);
	while (out && *in) {
		const char *rep = NULL;
		size_t klen = 0;
		if (*in == '@')
			for (const char *const *s = subs; *s; s += 2) {
				klen = strlen(s[0]);
				if (strncmp(in + 1, s[0], klen) == 0 && in[1 + klen] == '@') {
					rep = s[1];
					break;
				}
			}
		const char *piece = rep ? rep : in;
		size_t plen = rep ? strlen(rep) : 1;
		if (n + plen + 1 > cap) {
			cap = (n + plen + 1) * 2;
			char *grown = realloc(out, cap);
			if (grown == NULL) {
				free(out);
				return NULL;
			}
			out = grown;
		}
		memcpy(out + n, piece, plen);
		n += plen;
		in += rep ? klen + 2 : 1;
	}
	if (out)
		out[n] = '\0';
	return out;
}

static char *read_all(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t len = 0;
	if (f == NULL)
		return NULL;
	FILE *m = open_memstream(&buf, &len);
	int c;
	while ((c = fgetc(f)) != EOF)
		fputc(c, m);
	fclose(f);
	fclose(m);
	return buf;
}

/* A new file (never one that exists). 0, or -1 with err. */
static int write_new(const char *path, const char *text, char *err, size_t err_len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
	size_t n = strlen(text);
	if (fd < 0 || write(fd, text, n) != (ssize_t)n || close(fd) != 0) {
		snprintf(err, err_len, "cannot write %s: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return 0;
}

/* text as a meson string literal: quoted, its backslashes and quotes
 * escaped. -1 for a control character (no line of a meson file may hold
 * one) or no room. */
static int meson_string(const char *text, char *out, size_t len)
{
	size_t n = 0;
	if (len < 3)
		return -1;
	out[n++] = '\'';
	for (const char *p = text; *p; p++) {
		if ((unsigned char)*p < 0x20 || *p == 0x7f || n + 4 > len)
			return -1;
		if (*p == '\\' || *p == '\'')
			out[n++] = '\\';
		out[n++] = *p;
	}
	out[n++] = '\'';
	out[n] = '\0';
	return 0;
}

int alloclab_cmd_new(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"template", required_argument, NULL, 't'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const char *tname = "bump";
	char err[ALLOCLAB_ERR_LEN + 4400];
	int opt;

	opterr = 0;
	while ((opt = getopt_long(argc, argv, "+:t:h", longopts, NULL)) != -1) {
		switch (opt) {
		case 't': tname = optarg; break;
		case 'h': fputs(usage, stdout); return 0;
		case ':': return alloclab_usage_error("new", "option '%s' needs a value", argv[optind - 1]);
		default: return alloclab_usage_error("new", "unknown option '%s'", argv[optind - 1]);
		}
	}
	/* Options may also follow the name: alloclab new plugin x --template y. */
	int nargs = 0;
	const char *args[3] = {0};
	for (int i = optind; i < argc; i++) {
		if (strcmp(argv[i], "--template") == 0 || strcmp(argv[i], "-t") == 0) {
			if (i + 1 >= argc)
				return alloclab_usage_error("new", "option '%s' needs a value", argv[i]);
			tname = argv[++i];
		} else if (strncmp(argv[i], "--template=", 11) == 0) {
			tname = argv[i] + 11;
		} else if (argv[i][0] == '-') {
			return alloclab_usage_error("new", "unknown option '%s'", argv[i]);
		} else if (nargs < 3) {
			args[nargs++] = argv[i];
		} else {
			return alloclab_usage_error("new", "unexpected argument '%s'", argv[i]);
		}
	}
	if (nargs < 2 || strcmp(args[0], "plugin") != 0)
		return alloclab_usage_error("new", "say what to make: alloclab new plugin NAME [DIR]");
	const char *name = args[1];
	if (name[0] == '\0' || strlen(name) > 64 || strspn(name, "abcdefghijklmnopqrstuvwxyz0123456789_-") != strlen(name))
		return alloclab_usage_error("new", "the name '%s' is not [a-z0-9_-]+ (at most 64)", name);
	size_t t = 0;
	while (t < sizeof templates / sizeof *templates && strcmp(templates[t].name, tname) != 0)
		t++;
	if (t == sizeof templates / sizeof *templates)
		return alloclab_usage_error("new", "no template '%s' (bump, freelist or segregated)", tname);
	const char *dir = nargs == 3 ? args[2] : name;
	if (!alloclab_shell_word_one_line(dir))
		return alloclab_usage_error("new", "the folder's name has a control character (a newline?): give another");
	/* Every file's path must fit before anything is made: a folder left
	 * half-made would refuse the next try. */
	if (strlen(dir) + 1 + strlen(name) + sizeof ".c" > PATH_MAX || strlen(dir) + sizeof "/meson.build" > PATH_MAX)
		return alloclab_usage_error("new", "the folder's name is too long for the files in it (%zu bytes)",
					    strlen(dir));
	if (mkdir(dir, 0777) != 0)
		return alloclab_usage_error("new", "cannot make %s: %s", dir,
					    errno == EEXIST ? "it exists (alloclab new replaces nothing)" : strerror(errno));

	char sdk[2 * PATH_MAX + 3];
	if (meson_string(alloclab_sdk_include_dir(), sdk, sizeof sdk) != 0) {
		rmdir(dir);
		return alloclab_usage_error("new", "the SDK's folder has a control character in its name");
	}
	const char *subs[] = {"NAME", name, "TEMPLATE", templates[t].name, "WHAT", templates[t].what, "LEVEL",
			      templates[t].level, "FAILS", templates[t].fails, "MEASURE", templates[t].measure, "COURSE",
			      templates[t].course, "SDK_INCLUDE", sdk, NULL};
	const char *files[][2] = {{templates[t].name, ".c"}, {"meson.build", ".in"}, {"README.md", ".in"}};
	const char *out_names[] = {NULL, "meson.build", "README.md"};
	char c_name[80];
	snprintf(c_name, sizeof c_name, "%s.c", name);
	out_names[0] = c_name;
	for (int k = 0; k < 3; k++) {
		char src[4200], dst[PATH_MAX + 16];
		snprintf(src, sizeof src, "%s/%s%s", template_dir(), files[k][0], k == 0 ? ".c" : ".in");
		snprintf(dst, sizeof dst, "%s/%s", dir, out_names[k]);
		char *text = read_all(src), *done = text ? substitute(text, subs) : NULL;
		/* The measurement's text names the plugin too. */
		char *again = done ? substitute(done, subs) : NULL;
		free(text);
		free(done);
		if (again == NULL || write_new(dst, again, err, sizeof err) != 0) {
			if (again == NULL)
				alloclab_say("alloclab: cannot read the template %s (is alloclab installed whole?)", src);
			else
				alloclab_say("alloclab: %s", err);
			free(again);
			/* Nothing half-made stays: what this command wrote goes. */
			for (int w = 0; w < k; w++) {
				snprintf(dst, sizeof dst, "%s/%s", dir, out_names[w]);
				unlink(dst);
			}
			rmdir(dir);
			return 2;
		}
		free(again);
	}
	char shown[PATH_MAX];
	alloclab_printable(dir, shown, sizeof shown);
	printf("wrote %s/: %s, meson.build, README.md (template %s)\nnext: cd ", shown, c_name, templates[t].name);
	alloclab_shell_word(stdout, dir);
	printf(" && meson setup build && ninja -C build && alloclab check --level %s ./build/%s.so\n", templates[t].level,
	       name);
	return 0;
}
