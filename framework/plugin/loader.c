/*
 * Plugin loader. See loader.h. Validation is strict because a plugin is
 * written outside the project: a descriptor that breaks the ABI is refused
 * at load time with the reason, never discovered by a crash mid-run.
 */
#define _GNU_SOURCE 1
#include "plugin/loader.h"
#include "files/self_exe.h"
#include "base/lengths.h"
#include "base/json_text.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The smallest descriptor the host accepts: everything up to and including
 * the last required op. Ops after it may be absent from older plugins. */
#define DESC_MIN_SIZE (offsetof(struct alloclab_plugin, free) + sizeof(void (*)(void)))

void alloclab_plugin_search_dirs(void (*visit)(const char *dir, void *arg), void *arg)
{
	const char *env = getenv("ALLOCLAB_PLUGIN_PATH");

	if (env != NULL) {
		char *copy = strdup(env), *save = NULL;
		for (char *dir = strtok_r(copy, ":", &save); dir; dir = strtok_r(NULL, ":", &save))
			visit(dir, arg);
		free(copy);
	}
	/* An installed alloclab takes the installed plugins, never a build
	 * tree's; one run from its build tree takes the build's first. */
	if (alloclab_running_from_build_tree())
		visit(ALLOCLAB_BUILD_PLUGIN_DIR, arg);
	visit(ALLOCLAB_INSTALL_PLUGIN_DIR, arg);
}

struct find_state {
	const char *name;
	char *path;
	size_t path_len;
	int found;
	char searched[1024];
};

static void find_in_dir(const char *dir, void *arg)
{
	struct find_state *st = arg;
	char candidate[ALLOCLAB_PATH_LEN];
	size_t used = strlen(st->searched);

	if (st->found)
		return;
	snprintf(st->searched + used, sizeof st->searched - used, "%s%s", used ? ", " : "", dir);
	snprintf(candidate, sizeof candidate, "%s/%s.so", dir, st->name);
	if (access(candidate, F_OK) == 0) {
		snprintf(st->path, st->path_len, "%s", candidate);
		st->found = 1;
	}
}

static int valid_name(const char *name)
{
	if (name == NULL || *name == '\0')
		return 0;
	for (const char *c = name; *c; c++)
		if (!((*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || *c == '-' || *c == '_'))
			return 0;
	return 1;
}

int alloclab_plugin_find(const char *spec, char *path, size_t path_len, char *err, size_t err_len)
{
	struct find_state st = {.name = spec, .path = path, .path_len = path_len};

	if (strchr(spec, '/') != NULL) {
		if (access(spec, F_OK) != 0) {
			snprintf(err, err_len, "plugin file %s: %s", spec, strerror(errno));
			return -1;
		}
		snprintf(path, path_len, "%s", spec);
		return 0;
	}
	if (!valid_name(spec)) {
		snprintf(err, err_len, "'%s' is not a plugin name ([a-z0-9_-]) nor a path (use ./%s for a file)",
			 spec, spec);
		return -1;
	}
	alloclab_plugin_search_dirs(find_in_dir, &st);
	if (!st.found) {
		snprintf(err, err_len,
			 "plugin '%s' not found (searched %s); give a path or add its folder to ALLOCLAB_PLUGIN_PATH",
			 spec, st.searched);
		return -1;
	}
	return 0;
}

int alloclab_plugin_same_file(const char *a, const char *b)
{
	char pa[ALLOCLAB_PATH_LEN], pb[ALLOCLAB_PATH_LEN], err[ALLOCLAB_ERR_LEN];
	struct stat sa, sb;

	if (alloclab_plugin_find(a, pa, sizeof pa, err, sizeof err) != 0 ||
	    alloclab_plugin_find(b, pb, sizeof pb, err, sizeof err) != 0)
		return 0;
	/* stat follows every link, as the loader's open does. */
	if (stat(pa, &sa) != 0 || stat(pb, &sb) != 0)
		return 0;
	return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/* dlopen's message for a file that is not ELF is cryptic ("invalid ELF
 * header", "file too short"); check the magic ourselves to say it plainly. */
static int is_elf(const char *path)
{
	unsigned char magic[4];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t got;

	if (fd < 0)
		return 0;
	got = read(fd, magic, sizeof magic);
	close(fd);
	return got == 4 && magic[0] == 0x7f && magic[1] == 'E' && magic[2] == 'L' && magic[3] == 'F';
}

struct cap_op {
	unsigned long long cap;
	const char *name;
	size_t offset;
};

#define CAP_OP(bit, field) {bit, #field, offsetof(struct alloclab_plugin, field)}
static const struct cap_op cap_ops[] = {
	CAP_OP(ALLOCLAB_CAP_SIZED_FREE, free_sized),
	CAP_OP(ALLOCLAB_CAP_ALIGNED_ALLOC, aligned_alloc),
	CAP_OP(ALLOCLAB_CAP_USABLE_SIZE, usable_size),
	CAP_OP(ALLOCLAB_CAP_STATS, stats),
	CAP_OP(ALLOCLAB_CAP_CALLOC, calloc),
	CAP_OP(ALLOCLAB_CAP_REALLOC, realloc),
	CAP_OP(ALLOCLAB_CAP_THREAD_HOOKS, thread_attach),
	CAP_OP(ALLOCLAB_CAP_THREAD_HOOKS, thread_detach),
};

static const struct {
	unsigned long long cap;
	const char *name;
} cap_names[] = {
	{ALLOCLAB_CAP_THREAD_SAFE, "thread-safe"},
	{ALLOCLAB_CAP_CROSS_THREAD_FREE, "cross-thread-free"},
	{ALLOCLAB_CAP_SIZED_FREE, "sized-free"},
	{ALLOCLAB_CAP_ALIGNED_ALLOC, "aligned-alloc"},
	{ALLOCLAB_CAP_USABLE_SIZE, "usable-size"},
	{ALLOCLAB_CAP_STATS, "stats"},
	{ALLOCLAB_CAP_CALLOC, "calloc"},
	{ALLOCLAB_CAP_REALLOC, "realloc"},
	{ALLOCLAB_CAP_THREAD_HOOKS, "thread-hooks"},
	{ALLOCLAB_CAP_OWN_STATE, "own-state"},
};

#define ALL_CAPS ((ALLOCLAB_CAP_OWN_STATE << 1) - 1)

void alloclab_caps_format(unsigned long long caps, char *out, size_t out_len)
{
	size_t used = 0;

	out[0] = '\0';
	for (size_t i = 0; i < sizeof cap_names / sizeof cap_names[0]; i++)
		if ((caps & cap_names[i].cap) && used < out_len)
			used += (size_t)snprintf(out + used, out_len - used, "%s%s", used ? "," : "",
						 cap_names[i].name);
}

static int op_present(const struct alloclab_plugin *desc, size_t offset)
{
	void (*op)(void);
	memcpy(&op, (const char *)desc + offset, sizeof op);
	return op != NULL;
}

/* NULL when s is text a table can show: valid UTF-8, no control characters
 * (newlines allowed where the field is multi-line), at most 4 KiB. */
static const char *text_problem(const char *s, int multiline)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = 0;

	while (*p) {
		size_t len = alloclab_utf8_char(p);
		if (len == 0)
			return "is not UTF-8";
		if (len == 1 && (*p < 0x20 || *p == 0x7f) && !(multiline && *p == '\n'))
			return "contains a control character";
		p += len;
		n += len;
		if (n > 4096)
			return "is longer than 4096 bytes";
	}
	return NULL;
}

static int validate(const struct alloclab_plugin *d, const char *path, char *err, size_t err_len)
{
	if (d->create == NULL || d->destroy == NULL || d->malloc == NULL || d->free == NULL) {
		snprintf(err, err_len, "%s: required op '%s' is NULL", path,
			 !d->create ? "create" : !d->destroy ? "destroy" : !d->malloc ? "malloc" : "free");
		return -1;
	}
	if (!valid_name(d->name)) {
		snprintf(err, err_len, "%s: plugin name '%s' is not [a-z0-9_-]+", path, d->name ? d->name : "(null)");
		return -1;
	}
	if (d->version == NULL || d->description == NULL) {
		snprintf(err, err_len, "%s: descriptor has no %s string", path, d->version ? "description" : "version");
		return -1;
	}
	{
		static const char *const names[] = {"version", "description", "options_help"};
		const char *strings[] = {d->version, d->description, d->options_help};
		for (size_t i = 0; i < 3; i++) {
			const char *why = strings[i] ? text_problem(strings[i], i == 2) : NULL;
			if (why) {
				snprintf(err, err_len, "%s: descriptor's %s string %s", path, names[i], why);
				return -1;
			}
		}
	}
	if (d->caps & ~(unsigned long long)ALL_CAPS) {
		snprintf(err, err_len, "%s: unknown capability bits 0x%llx for ABI version %u", path,
			 (unsigned long long)(d->caps & ~(unsigned long long)ALL_CAPS), ALLOCLAB_PLUGIN_ABI_VERSION);
		return -1;
	}
	if ((d->caps & ALLOCLAB_CAP_CROSS_THREAD_FREE) && !(d->caps & ALLOCLAB_CAP_THREAD_SAFE)) {
		snprintf(err, err_len, "%s: declares cross-thread-free without thread-safe", path);
		return -1;
	}
	for (size_t i = 0; i < sizeof cap_ops / sizeof cap_ops[0]; i++) {
		int declared = (d->caps & cap_ops[i].cap) != 0;
		if (declared != op_present(d, cap_ops[i].offset)) {
			char cap[64];
			alloclab_caps_format(cap_ops[i].cap, cap, sizeof cap);
			snprintf(err, err_len,
				 declared ? "%s: declares capability '%s' but its %s op is NULL"
					  : "%s: has a %s op but does not declare capability '%s'",
				 path, declared ? cap : cap_ops[i].name, declared ? cap_ops[i].name : cap);
			return -1;
		}
	}
	/* A reserved field is a promise to the future: a plugin that sets one
	 * means something this host cannot know. */
	if (d->reserved0 != 0) {
		snprintf(err, err_len, "%s: reserved0 is %u; it must be 0 (a plugin built for a newer ABI?)", path,
			 d->reserved0);
		return -1;
	}
	if (d->min_align != 0 && (d->min_align & (d->min_align - 1)) != 0) {
		snprintf(err, err_len, "%s: min_align %u is not a power of two", path, d->min_align);
		return -1;
	}
	return 0;
}

static void (*mark_step)(const char *step);

void alloclab_plugin_mark_steps(void (*mark)(const char *step))
{
	mark_step = mark;
}

int alloclab_plugin_load(const char *spec, struct alloclab_loaded_plugin *out, char *err, size_t err_len)
{
	return alloclab_plugin_load_flags(spec, 0, out, err, err_len);
}

int alloclab_plugin_load_flags(const char *spec, int dlopen_flags, struct alloclab_loaded_plugin *out, char *err,
			       size_t err_len)
{
	char path[ALLOCLAB_PATH_LEN];
	alloclab_plugin_entry_fn entry;
	const struct alloclab_plugin *theirs;
	void *handle;

	memset(out, 0, sizeof *out);
	if (alloclab_plugin_find(spec, path, sizeof path, err, err_len) != 0)
		return -1;
	if (!is_elf(path)) {
		snprintf(err, err_len, "%s: not a shared object (no ELF header)", path);
		return -1;
	}
	handle = dlopen(path, RTLD_NOW | RTLD_LOCAL | dlopen_flags);
	if (handle == NULL) {
		const char *why = dlerror();
		if (why && strstr(why, "static TLS"))
			snprintf(err, err_len,
				 "%s: cannot load: %s (start the process with "
				 "GLIBC_TUNABLES=glibc.rtld.optional_static_tls=16384; the alloclab command does this itself)",
				 path, why);
		else
			snprintf(err, err_len, "%s: cannot load: %s", path, why ? why : "unknown dlopen error");
		return -1;
	}
	*(void **)&entry = dlsym(handle, ALLOCLAB_PLUGIN_ENTRY_SYMBOL);
	if (entry == NULL) {
		snprintf(err, err_len, "%s: no %s symbol: not an alloclab plugin", path, ALLOCLAB_PLUGIN_ENTRY_SYMBOL);
		dlclose(handle);
		return -1;
	}
	if (mark_step)
		mark_step("entry");
	theirs = entry(ALLOCLAB_PLUGIN_ABI_VERSION);
	if (mark_step)
		mark_step("load");
	if (theirs == NULL) {
		snprintf(err, err_len, "%s: %s returned NULL (the plugin refuses ABI version %u)", path,
			 ALLOCLAB_PLUGIN_ENTRY_SYMBOL, ALLOCLAB_PLUGIN_ABI_VERSION);
		dlclose(handle);
		return -1;
	}
	if (theirs->abi_version < ALLOCLAB_PLUGIN_ABI_OLDEST || theirs->abi_version > ALLOCLAB_PLUGIN_ABI_VERSION) {
		snprintf(err, err_len,
			 "%s: plugin ABI version %u, this alloclab speaks versions %u to %u: rebuild the plugin against this alloclab's plugin.h",
			 path, theirs->abi_version, ALLOCLAB_PLUGIN_ABI_OLDEST, ALLOCLAB_PLUGIN_ABI_VERSION);
		dlclose(handle);
		return -1;
	}
	if (theirs->struct_size < DESC_MIN_SIZE) {
		snprintf(err, err_len, "%s: descriptor struct_size %u is smaller than the ABI minimum %zu", path,
			 theirs->struct_size, (size_t)DESC_MIN_SIZE);
		dlclose(handle);
		return -1;
	}
	/* Every member from create on is a pointer: a size that ends inside
	 * one would copy half of it, a pointer into nowhere. */
	if (theirs->struct_size % sizeof(void *) != 0) {
		snprintf(err, err_len, "%s: descriptor struct_size %u ends inside a member (not a multiple of %zu)", path,
			 theirs->struct_size, sizeof(void *));
		dlclose(handle);
		return -1;
	}
	/* A newer plugin's extra ops are ignored; an older one's missing ops
	 * stay NULL. */
	memcpy(&out->desc, theirs,
	       theirs->struct_size < sizeof out->desc ? theirs->struct_size : sizeof out->desc);
	if (validate(&out->desc, path, err, err_len) != 0) {
		dlclose(handle);
		memset(out, 0, sizeof *out);
		return -1;
	}
	out->handle = handle;
	out->path = strdup(path);
	return 0;
}

void alloclab_plugin_unload(struct alloclab_loaded_plugin *plugin)
{
	if (plugin->handle)
		dlclose(plugin->handle);
	free(plugin->path);
	memset(plugin, 0, sizeof *plugin);
}
