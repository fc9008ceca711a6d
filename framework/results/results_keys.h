/*
 * The key names of a results document, in one place. Only the results
 * room (framework/results/) includes this: it is the one writer and the
 * one reader (see results.h); everything downstream reads the typed model
 * (struct alloclab_run_facts and the rest of results.h).
 */
#ifndef ALLOCLAB_RESULTS_KEYS_H
#define ALLOCLAB_RESULTS_KEYS_H

/* document */
#define K_FORMAT "format"
#define K_FORMAT_VERSION "format_version"
#define K_METADATA "metadata"
#define K_CONFIG "config"
#define K_PLUGINS "plugins"
#define K_CELLS "cells"
#define K_INTERRUPTED "interrupted"
#define K_COMPLETE "complete"

/* metadata: the keys other modules read back (through alloclab_run_facts) */
#define K_ALLOCLAB_VERSION "alloclab_version"
#define K_CPU_MODEL "cpu_model"
#define K_CPU_COUNT "cpu_count"
#define K_CPUS_ALLOWED "cpus_allowed"
#define K_CACHE_LINE_SIZE "cache_line_size"
#define K_LOAD_AVERAGE_START "load_average_start"
#define K_LOAD_AVERAGE_END "load_average_end"
#define K_KERNEL "kernel"
#define K_LIBC "libc"
#define K_COMPILER "compiler"
#define K_BUILD_FLAGS "build_flags"
#define K_DATE "date"
#define K_COMMAND "command"
#define K_CACHE_SIMULATED "cache_simulated"
#define K_RUNNER_CPU_S "runner_cpu_s"
#define K_WORKERS "workers"
#define K_HOST "host"
#define K_THP "transparent_hugepages"
#define K_SHARD "shard"
#define K_SHARD_INDEX "index"
#define K_SHARD_COUNT "count"
#define K_SHARD_PLAN "plan"
#define K_SHARD_CELL_PROCESSES "cell_processes"
#define K_SHARDS "shards"
#define K_HOST_NAME "name"

/* config */
/* K_PROCESSES, K_VALUES, K_WARMUPS as below */
#define K_TIMEOUT_S "timeout_s"
#define K_MEMORY_LIMIT "memory_limit_bytes"
#define K_LATENCY_EVERY "latency_every"
#define K_SAMPLE_MS "sample_ms"
#define K_PIN "pin"
#define K_CACHE_ALIGN "cache_align"
#define K_MEASURE "measure"
#define K_ORDER "order"
#define K_ORDER_SEED "order_seed"
#define K_PROCESSES_AUTO "processes_auto"
#define K_MIN "min"
#define K_MAX "max"
#define K_CI_PERCENT "ci_percent"

/* plugins[] */
#define K_LABEL "label"
#define K_SPEC "spec"
#define K_OPTIONS "options"
#define K_NAME "name"
#define K_VERSION "version"
#define K_DESCRIPTION "description"
#define K_PATH "path"
#define K_CAPS "caps"
#define K_MIN_ALIGN "min_align"
#define K_CHECK "check"
#define K_SHA256 "sha256"
#define K_SOURCE "source"
#define K_COMMIT "commit"
#define K_DIRTY "dirty"
#define K_CASE "case"
#define K_WHY "why"

/* cells[] */
#define K_PLUGIN "plugin"
#define K_PLUGIN_INDEX "plugin_index"
#define K_PLUGIN_OPTIONS "plugin_options"
#define K_WORKLOAD "workload"
#define K_PARAMS "params"
#define K_THREADS "threads"
#define K_CACHE_ALIGNED "cache_aligned"
#define K_STATUS "status"
#define K_ERROR "error"
#define K_REASON "reason"
#define K_METRIC "metric"
#define K_UNIT_OP "unit_op"
#define K_PROCESSES "processes"
#define K_RUNS "runs"

/* cells[].runs[]: one worker process */
#define K_PROCESS "process"
#define K_PEAK_RSS_KIB "peak_rss_kib"
#define K_ELAPSED_S "elapsed_s"
#define K_STARTED "started_unix_s"
#define K_WARMUPS "warmups"
#define K_VALUES "values"
#define K_STATS "stats"
#define K_STATS_AFTER_FINISH "stats_after_finish"
#define K_REPORT "report"
#define K_PLUGIN_OUTPUT "plugin_output"

/* values[] */
#define K_WALL_NS "wall_ns"
#define K_THREAD_NS "thread_ns"
#define K_THREAD_OPS "thread_ops"
#define K_NS_PER_OP "ns_per_op"
#define K_INSTRUCTIONS_PER_OP "instructions_per_op"
#define K_D1_MISSES_PER_OP "d1_misses_per_op"
#define K_LL_MISSES_PER_OP "ll_misses_per_op"
#define K_LATENCY "latency"
#define K_MINOR_FAULTS "minor_faults"
#define K_MAJOR_FAULTS "major_faults"
#define K_MEMORY "memory"
#define K_RSS_AFTER_FINISH "rss_after_finish_kib"
#define K_RSS_END_OF_RUN "rss_end_of_run_kib"
#define K_ANON_END_OF_RUN "anon_end_of_run_kib"
#define K_GIVEN_BACK "resident_kib"
#define K_LAYOUT_PAD "layout_pad_pages"
#define K_SLICES "slices"
#define K_SLICES_DROPPED "slices_dropped"
#define K_LIVE_END "live_end_bytes"
#define K_LIVE_PEAK "live_peak_bytes"
#define K_OWN "own_bytes"
#define K_FAILED_MEMORY "failed_memory"
/* Paired comparisons. */
#define K_PAIRED "paired"
#define K_PAIR_PLUGINS "plugins"
#define K_SLICE_OPS "slice_ops"
#define K_SLICE_WARM "slice_warm"
#define K_PAIR_DESIGN "pair_design"
#define K_PAIR_WHY "pair_why"
#define K_PAIR_RATIO "pair_ratio"
/* The journal's line for a paired worker's processes. */
#define K_GROUP "group"
/* A memory timeline. */
#define K_REQUESTED_MS "requested_ms"
#define K_INTERVAL_MS "interval_ms"
#define K_PHASES "phases"
#define K_SAMPLES "samples"
#define K_WORKLOAD_ANON_PEAK "workload_anon_peak_kib"
#define K_PROGRAM_PEAK_RSS "program_peak_rss_kib"
#define K_THREAD_REPORTS "thread_reports"

/* journal lines */
#define K_CELL "cell"

/* status values */
#define S_OK "ok"
#define S_ERROR "error"
#define S_NOT_APPLICABLE "not applicable"
#define S_PENDING "pending"

#endif
