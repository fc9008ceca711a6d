/*
 * alloclab plugin ABI: the contract between the alloclab host and an allocator
 * plugin built as a shared object.
 *
 * A plugin exports one function, alloclab_plugin_entry(), which returns a
 * pointer to a static, read-only descriptor (struct alloclab_plugin). The
 * descriptor names the plugin, states its capabilities and carries its
 * operations. Build one out of tree with:
 *
 *     cc -shared -fPIC $(pkg-config --cflags alloclab-plugin) my.c -o my.so
 *     alloclab run --plugin ./my.so
 *
 * Versioning. ALLOCLAB_PLUGIN_ABI_VERSION changes only when an existing field
 * or op changes meaning; the host loads plugins of every version from
 * ALLOCLAB_PLUGIN_ABI_OLDEST to its own and keeps each version's promises,
 * and refuses any other. New ops are only ever appended: the host copies the
 * first `struct_size` bytes of the descriptor into a zeroed struct of its own
 * size, so a plugin built against an older header simply has the newer ops
 * NULL.
 *
 * Versions
 *   1  workload threads are threads of their own; the thread hooks are never
 *      called on the main thread.
 *   2  workload thread 0 is the process's main thread, as in the programs
 *      being modelled (glibc, for one, serves its main thread from a
 *      different arena); the thread hooks are called on it too, after
 *      create and before destroy. A version 1 plugin keeps version 1's
 *      promise.
 *
 * Glossary
 *   host      the alloclab process that loaded the plugin (one worker process
 *             per measurement; the plugin is never loaded into the parent).
 *   instance  what create() returns: the allocator's state. The host creates
 *             at most one instance per loaded file at a time, so a plugin
 *             that wraps a process-global allocator (jemalloc, glibc) may
 *             keep a trivial instance. Paired mode (run --paired) loads
 *             several plugins into one process, and for a plugin paired with
 *             itself a private copy of its file beside it: each file still
 *             has one instance, but two copies of a plugin that wraps a
 *             process-global allocator share that allocator (see
 *             ALLOCLAB_CAP_OWN_STATE).
 *   block     memory returned by malloc/calloc/realloc/aligned_alloc.
 *
 * Threading. Unless the plugin declares ALLOCLAB_CAP_THREAD_SAFE the host
 * calls every op from one thread at a time (it then runs workloads with one
 * thread only). With THREAD_SAFE, the block ops may be called concurrently
 * from any thread that has been attached (thread_attach), and a block may be
 * freed only by the thread that allocated it unless
 * ALLOCLAB_CAP_CROSS_THREAD_FREE is also declared.
 *
 * Errors. Ops that can fail return NULL (block ops) or a negative errno
 * (create, thread_attach, stats). A plugin never prints: create() writes its
 * reason into the buffer it is given and the host shows it.
 *
 * This header is C99, freestanding apart from <stddef.h>/<stdint.h>, and
 * compiles as C++.
 */
#ifndef ALLOCLAB_PLUGIN_H
#define ALLOCLAB_PLUGIN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Bumped only when an existing field or op changes meaning (see above). */
#define ALLOCLAB_PLUGIN_ABI_VERSION 2u
/* The oldest version this host still loads, with that version's promises. */
#define ALLOCLAB_PLUGIN_ABI_OLDEST 1u

/* The one symbol the host looks up in a plugin. */
#define ALLOCLAB_PLUGIN_ENTRY_SYMBOL "alloclab_plugin_entry"

/* Alignment the host assumes when a plugin leaves min_align at 0: the
 * alignment of max_align_t on x86-64 and what malloc() promises there. */
#define ALLOCLAB_DEFAULT_MIN_ALIGN 16u

/*
 * Capability bits (struct alloclab_plugin.caps). Each bit is a promise the
 * host relies on; `alloclab check` exercises exactly the declared ones.
 * A bit that names an optional op must be set if and only if that op is
 * non-NULL: the loader refuses a plugin where the two disagree.
 */
enum alloclab_cap {
	/* All block ops may run concurrently from any attached thread. Without
	 * it the host runs this plugin with one thread only. */
	ALLOCLAB_CAP_THREAD_SAFE = 1u << 0,
	/* A block may be freed (or realloc'd) by a thread other than the one
	 * that allocated it. Implies THREAD_SAFE. Workloads that pass blocks
	 * between threads are reported "not applicable" without it. */
	ALLOCLAB_CAP_CROSS_THREAD_FREE = 1u << 1,
	/* free_sized is offered. */
	ALLOCLAB_CAP_SIZED_FREE = 1u << 2,
	/* aligned_alloc is offered. */
	ALLOCLAB_CAP_ALIGNED_ALLOC = 1u << 3,
	/* usable_size is offered. */
	ALLOCLAB_CAP_USABLE_SIZE = 1u << 4,
	/* stats is offered. */
	ALLOCLAB_CAP_STATS = 1u << 5,
	/* calloc is offered (otherwise the host uses malloc + memset). */
	ALLOCLAB_CAP_CALLOC = 1u << 6,
	/* realloc is offered (otherwise realloc is "unsupported"). */
	ALLOCLAB_CAP_REALLOC = 1u << 7,
	/* thread_attach and thread_detach are offered (both, or neither). */
	ALLOCLAB_CAP_THREAD_HOOKS = 1u << 8,
	/* All of the allocator's state lives in this file's own memory (its
	 * statics, what it maps itself), none in a shared library it links or
	 * in the process's malloc: a copy of the file loaded beside it is a
	 * second, independent allocator. Paired mode then measures two
	 * settings of the plugin side by side in one process; without it,
	 * only identical ones (an A/A on the one allocator both copies
	 * share), and two settings each in processes of their own. Names no
	 * op; `alloclab check` does not exercise it. */
	ALLOCLAB_CAP_OWN_STATE = 1u << 9,
};

/* Receives one statistic from the stats op. `name` is a short dotted
 * identifier ("bytes.allocated", "arenas.current"); the host copies it. */
typedef void (*alloclab_stat_fn)(void *arg, const char *name, uint64_t value);

/*
 * Standard statistic names, in bytes, for the stats op:
 *   IN_USE    held by the program: blocks handed out and not freed, as the
 *             allocator counts them (rounded up to its size classes)
 *   FREE      held by the allocator, free, ready for new blocks: its free
 *             lists, caches and free pages it has not given back
 *   METADATA  the allocator's own bookkeeping
 *   RESIDENT  what the allocator has mapped and holds as memory (its own
 *             count; the process's resident set is the memory timeline's)
 *   RELEASED  given back to the operating system, its address space kept
 *   HUGE      in huge pages
 */
#define ALLOCLAB_STAT_IN_USE "std.in_use_bytes"
#define ALLOCLAB_STAT_FREE "std.free_bytes"
#define ALLOCLAB_STAT_METADATA "std.metadata_bytes"
#define ALLOCLAB_STAT_RESIDENT "std.resident_bytes"
#define ALLOCLAB_STAT_RELEASED "std.released_bytes"
#define ALLOCLAB_STAT_HUGE "std.huge_bytes"

/*
 * A region of the allocator's memory, for pictures of the heap (`alloclab
 * heapmap`; the regions op below). `size` is the struct's size as the
 * plugin was built, so that fields appended later stay unseen by an older
 * host; a host reads only the fields that fit.
 */
enum alloclab_region_kind {
	ALLOCLAB_REGION_ARENA = 1, /* a large mapping the allocator cuts up */
	ALLOCLAB_REGION_POOL,      /* a part of one size class (obmalloc's pools) */
	ALLOCLAB_REGION_PAGE,      /* a page of one size class (mimalloc's pages, a size-class allocator's) */
	ALLOCLAB_REGION_SPAN,      /* a run of memory of no single class (a bump region, a free list's heap) */
};

struct alloclab_region {
	uint32_t size;          /* sizeof(struct alloclab_region) as built */
	uint32_t kind;          /* enum alloclab_region_kind */
	uint64_t address, bytes;   /* where it is and how large */
	uint64_t block_size;       /* its size class's block size; 0: none (an arena, a span, an empty pool) */
	uint64_t bytes_in_use;     /* bytes of blocks handed out and not freed */
	uint64_t blocks_in_use;    /* blocks handed out and not freed */
	uint64_t blocks;           /* blocks it holds in all, handed out or not; 0: not counted */
};

typedef void (*alloclab_region_fn)(void *arg, const struct alloclab_region *region);

/* The allocator's own C API (the program_api op below). */
struct alloclab_program_api {
	size_t size; /* set by the host: sizeof(struct alloclab_program_api) as it was built */
	void *(*malloc)(size_t size);
	void (*free)(void *block);
	void *(*calloc)(size_t nmemb, size_t size);
	void *(*realloc)(void *block, size_t size);
	void *(*aligned_alloc)(size_t alignment, size_t size);
	size_t (*usable_size)(void *block);
};

struct alloclab_plugin {
	/* ALLOCLAB_PLUGIN_ABI_VERSION as the plugin was built. Must be first. */
	uint32_t abi_version;
	/* sizeof(struct alloclab_plugin) as the plugin was built; lets the host
	 * accept plugins built against an older header (see "Versioning"). */
	uint32_t struct_size;

	/* Short name used on the command line and in results: [a-z0-9_-]+. */
	const char *name;
	/* The plugin's own version, and that of the allocator it wraps
	 * ("1.0 (jemalloc 5.3.0)"). Recorded in every result. */
	const char *version;
	/* One line, no trailing period. */
	const char *description;
	/* Options create() accepts, one "key=value: meaning" per line, or NULL
	 * when it accepts none. Shown by `alloclab list`. */
	const char *options_help;

	/* Bitwise OR of enum alloclab_cap. */
	uint64_t caps;
	/* Smallest alignment of every block malloc/calloc/realloc return,
	 * whatever its size, a power of two; 0 means
	 * ALLOCLAB_DEFAULT_MIN_ALIGN. (jemalloc and mimalloc declare 8: their
	 * 8-byte size class is 8-aligned, as C allows for objects that small.) */
	uint32_t min_align;
	uint32_t reserved0; /* must be 0 */

	/*
	 * Required. Called once per worker process, from its main thread,
	 * before any other op. `options` is never NULL: "" or a
	 * "key=value,key=value" list (see plugin_options.h for a parser). An
	 * unknown key or a bad value must be refused. On success store the
	 * instance in *instance (may be NULL if the plugin needs none) and
	 * return 0. On failure write one line (no newline) saying what was
	 * wrong into err[0..err_len) and return a negative errno (-EINVAL for a
	 * bad option).
	 */
	int (*create)(const char *options, void **instance, char *err, size_t err_len);

	/*
	 * Required. Called once, from the main thread, after every thread has
	 * been detached; blocks may still be live and the plugin may release
	 * them wholesale. No op is called on the instance afterwards.
	 */
	void (*destroy)(void *instance);

	/*
	 * Required. Returns a block of at least `size` bytes aligned to
	 * min_align, or NULL when memory is exhausted or `size` cannot be
	 * satisfied (never abort, never crash: SIZE_MAX must give NULL).
	 * malloc(0) returns a unique non-NULL block that may be freed, as
	 * glibc does (NULL only when memory is exhausted).
	 */
	void *(*malloc)(void *instance, size_t size);

	/*
	 * Required. Releases a block from any allocation op of this instance.
	 * free(NULL) does nothing. Called from the allocating thread, or from
	 * any attached thread with ALLOCLAB_CAP_CROSS_THREAD_FREE.
	 */
	void (*free)(void *instance, void *block);

	/*
	 * Optional (ALLOCLAB_CAP_CALLOC). Like malloc for nmemb * size bytes,
	 * all zero; NULL when the product overflows. When NULL the host uses
	 * malloc + memset with its own overflow check.
	 */
	void *(*calloc)(void *instance, size_t nmemb, size_t size);

	/*
	 * Optional (ALLOCLAB_CAP_REALLOC). C semantics: realloc(NULL, n) is
	 * malloc(n); the first min(old, new) bytes are kept; on failure NULL is
	 * returned and the old block stays valid. The host never calls it with
	 * size 0. When NULL, workloads that need realloc are "not applicable".
	 */
	void *(*realloc)(void *instance, void *block, size_t size);

	/*
	 * Optional (ALLOCLAB_CAP_ALIGNED_ALLOC). `alignment` is a power of two
	 * >= sizeof(void *); `size` need not be a multiple of it. The block is
	 * released with free.
	 */
	void *(*aligned_alloc)(void *instance, size_t alignment, size_t size);

	/*
	 * Optional (ALLOCLAB_CAP_USABLE_SIZE). Bytes usable in a live block,
	 * at least the size requested.
	 */
	size_t (*usable_size)(void *instance, void *block);

	/*
	 * Optional (ALLOCLAB_CAP_SIZED_FREE). free() given the size the block
	 * was requested with (for aligned_alloc blocks the host uses free).
	 */
	void (*free_sized)(void *instance, void *block, size_t size);

	/*
	 * Optional (ALLOCLAB_CAP_THREAD_HOOKS), both or neither. Called on each
	 * workload thread before its first op and after its last one. Workload
	 * thread 0 is the main thread (ABI version 2; a version 1 plugin's
	 * workload threads are all threads of their own, and these hooks are
	 * never called on its main thread). attach returns 0 or a negative
	 * errno, which fails the measurement.
	 */
	int (*thread_attach)(void *instance);
	void (*thread_detach)(void *instance);

	/*
	 * Optional (ALLOCLAB_CAP_STATS). Reports the allocator's statistics by
	 * calling emit once per value. Called from the main thread while no
	 * other op runs. Returns 0 or a negative errno. Beside its own names,
	 * a plugin reports the standard ones (ALLOCLAB_STAT_* below) that its
	 * allocator's own interface gives, and only those: a standard name
	 * means the same in every plugin, so that allocators compare.
	 */
	int (*stats)(void *instance, alloclab_stat_fn emit, void *emit_arg);

	/*
	 * Optional, no capability bit. For plugins whose options change what
	 * they can do (obmalloc's mode=per-thread cannot free across threads):
	 * returns the capabilities of this instance. Called from the main
	 * thread right after create(). The host keeps only bits that are also
	 * in `caps`, and treats the ops of dropped bits as absent.
	 */
	uint64_t (*instance_caps)(void *instance);

	/*
	 * Optional, no capability bit (appended in ABI version 2). For a plugin
	 * whose malloc and free only pass the request on to a process-global
	 * allocator (glibc, jemalloc's standard API, mimalloc, tcmalloc): the
	 * allocator's own entry points, which must behave exactly as this
	 * instance's malloc and free (a block from one may be freed by the
	 * other). Called from the main thread right after create(); returns 0
	 * with both filled in, or a negative errno (-ENOTSUP) when this
	 * instance's options put work of the plugin's own on those ops. The
	 * host calls them in place of malloc and free on the hot loops that
	 * know them (churn), with no wrapper (gil=1, --cache-align) between,
	 * so that an op costs there what it costs a program calling the
	 * allocator. `alloclab check` frees blocks of each through the other.
	 */
	int (*entry_points)(void *instance, void *(**malloc_fn)(size_t size), void (**free_fn)(void *block));

	/*
	 * Optional, no capability bit (appended in ABI version 2, after
	 * entry_points). For a plugin that wraps a process-global allocator:
	 * the allocator's whole C API as a program calls it, so that the
	 * preload library (`alloclab exec`) can hand a program's every call
	 * straight to it and a call costs what it costs the allocator
	 * preloaded natively. Fill the fields of *api that fit in api->size
	 * (the host's sizeof, so that fields appended later stay unseen by an
	 * older plugin) and return 0, or return -ENOTSUP when this instance's
	 * options put work of the plugin's own on its ops. malloc and free are
	 * required; the others may stay NULL. Each must behave as this
	 * instance's op of that name does (a block from one may be released by
	 * the other), and all of them must work on a thread that was never
	 * attached and must clean up after a thread that just ends, as the
	 * allocator's own API does for a program: the host then calls no
	 * thread hook. aligned_alloc takes (alignment, size), any power of two
	 * alignment of at least sizeof(void *) and any size. Called from the
	 * main thread right after create(). `alloclab check` exercises each
	 * function given against the ops, from an unattached thread too.
	 */
	int (*program_api)(void *instance, struct alloclab_program_api *api);

	/*
	 * Optional, no capability bit (appended in ABI version 2, after
	 * program_api). Gives back to the operating system what the allocator
	 * holds free and can return at once (its own purge, trim or collect:
	 * glibc's malloc_trim, jemalloc's arena purge, mimalloc's collect), as
	 * a program asks after a phase. Blocks still live stay valid. Called
	 * from the main thread while no other op runs, after a workload has
	 * freed what it had (the host then reads the resident set: docs/
	 * memory.md). Returns 0 or a negative errno. An allocator that returns
	 * memory as it goes, with nothing more to give, leaves it NULL.
	 */
	int (*trim)(void *instance);

	/*
	 * Optional, no capability bit (appended in ABI version 2, after trim).
	 * Reports the allocator's regions, one emit each, innermost last
	 * (an arena before its pools): address, size, kind, size class and
	 * occupancy. `alloclab heapmap` calls it while no other op runs (it
	 * serialises every call), with the working sets live: from the main
	 * thread at the end of each value, and from the thread making the
	 * k-th call with --every k. Returns 0 or a negative errno. The counts
	 * must agree with the plugin's statistics (std.in_use_bytes is the sum
	 * of the innermost regions' bytes_in_use where both are given) and
	 * with the blocks handed out (a region's blocks_in_use is the number
	 * of live blocks that start in it).
	 */
	int (*regions)(void *instance, alloclab_region_fn emit, void *emit_arg);
};

/*
 * The entry point every plugin exports. `host_abi_version` is the host's
 * ALLOCLAB_PLUGIN_ABI_VERSION, so a plugin that supports several versions can
 * choose; most return their one descriptor. Returns NULL to refuse.
 */
typedef const struct alloclab_plugin *(*alloclab_plugin_entry_fn)(uint32_t host_abi_version);

#if defined(__GNUC__) || defined(__clang__)
#define ALLOCLAB_PLUGIN_EXPORT __attribute__((visibility("default")))
#else
#define ALLOCLAB_PLUGIN_EXPORT
#endif

/* Defines the entry point returning `descriptor` (a struct alloclab_plugin). */
#define ALLOCLAB_PLUGIN_DEFINE(descriptor)                                         \
	ALLOCLAB_PLUGIN_EXPORT const struct alloclab_plugin *alloclab_plugin_entry(     \
		uint32_t host_abi_version);                                             \
	ALLOCLAB_PLUGIN_EXPORT const struct alloclab_plugin *alloclab_plugin_entry(     \
		uint32_t host_abi_version)                                              \
	{                                                                               \
		(void)host_abi_version;                                                 \
		return &(descriptor);                                                   \
	}

#ifdef __cplusplus
}
#endif

#endif /* ALLOCLAB_PLUGIN_H */
