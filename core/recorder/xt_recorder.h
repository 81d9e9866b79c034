/* The XDL recorder as a plain C API (libxtrecorder.so), for training jobs in any language.
 * Handles are opaque; every call returns an xt_status (0 = success) and the message of the last
 * failure is kept per handle (xt_recorder_last_error) or per thread for xt_recorder_open
 * (xt_last_error). A handle is used by one thread at a time. Element types are the eight XDL
 * dtypes; anything else (unsigned > 8 bit, float16, strings) is refused with
 * XT_INVALID_ARGUMENT - strings go through xt_recorder_trace_once_text as int8. */
#ifndef XT_RECORDER_H
#define XT_RECORDER_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define XT_RECORDER_API __attribute__((visibility("default")))
#else
#define XT_RECORDER_API
#endif

typedef enum xt_status {
    XT_OK = 0,
    XT_INVALID_ARGUMENT = 1,
    XT_NOT_FOUND = 2,
    XT_IO_ERROR = 3,
    XT_CORRUPT = 4,
    XT_UNSUPPORTED = 5,
    XT_CANCELLED = 6,
    XT_PERMISSION_DENIED = 7,
    XT_NO_SPACE = 8,
    XT_INTERNAL = 9
} xt_status;

/* Wire values of the XDL element types. */
typedef enum xt_dtype {
    XT_INT8 = 0,
    XT_INT16 = 1,
    XT_INT32 = 2,
    XT_INT64 = 3,
    XT_FLOAT32 = 4,
    XT_FLOAT64 = 5,
    XT_BOOL = 6,
    XT_UINT8 = 7
} xt_dtype;

/* A borrowed tensor: C-order, contiguous; ndim 0 is a scalar. */
typedef struct xt_tensor {
    int dtype; /* xt_dtype */
    int ndim;
    const int64_t* shape;
    const void* data;
} xt_tensor;

typedef struct xt_recorder_config {
    const char* output_dir;       /* default "." */
    const char* output_file_name; /* default "trace" */
    double max_file_mb;           /* default 300 (decimal MB) */
    int rank;                     /* default 0 */
    int training;                 /* 1: prefix "train" (default), 0: "test" */
    int every_n_steps;            /* default 1 */
    int queue_capacity;           /* records; default 8 */
    int drop_when_full;           /* 0: block (default), 1: drop and count */
    int fsync_interval_ms;        /* 0: sync only at close (default) */
    /* Timestamps in ms since the epoch; NULL = system clock. */
    int64_t (*clock)(void* user);
    void* clock_user;
} xt_recorder_config;

typedef struct xt_recorder_stats {
    uint64_t committed, written, dropped, skipped_steps, bytes_written, queue_high_water;
    int64_t blocked_ns;
    int64_t part_index;
} xt_recorder_stats;

typedef struct xt_recorder xt_recorder;

/* Fills *out with the recorded value of a key for this step; out->shape and out->data must stay
 * valid until
 * xt_recorder_commit_step returns. Returns 0, or nonzero to fail the step. */
typedef int (*xt_tensor_callback)(void* user, xt_tensor* out);
/* Writes the summary of *in into *out (same lifetime rule as xt_tensor_callback). */
typedef int (*xt_summary_callback)(void* user, const xt_tensor* in, xt_tensor* out);

XT_RECORDER_API void xt_recorder_config_init(xt_recorder_config* config);
XT_RECORDER_API xt_status xt_recorder_open(const xt_recorder_config* config, xt_recorder** out);
/* Closes (if needed) and frees; NULL is accepted. */
XT_RECORDER_API void xt_recorder_free(xt_recorder* rec);

XT_RECORDER_API xt_status xt_recorder_trace(xt_recorder* rec, const char* key,
                                            const xt_tensor* tensor);
XT_RECORDER_API xt_status xt_recorder_trace_once(xt_recorder* rec, const char* key,
                                                 const xt_tensor* tensor);
XT_RECORDER_API xt_status xt_recorder_trace_once_text(xt_recorder* rec, const char* key,
                                                      const char* text, size_t length);
XT_RECORDER_API xt_status xt_recorder_trace_callback(xt_recorder* rec, const char* key,
                                                     xt_tensor_callback fn, void* user);
XT_RECORDER_API xt_status xt_recorder_set_summary(xt_recorder* rec, const char* key,
                                                  xt_summary_callback fn, void* user);
/* Whether each part's summary ({part}.xts) is written beside it as records are written (1, the
 * default) or not (0); only before the first commit_step. */
XT_RECORDER_API xt_status xt_recorder_set_summaries(xt_recorder* rec, int on);
/* 1 when the next commit records a step (every_n_steps), else 0. */
XT_RECORDER_API int xt_recorder_is_recorded_step(const xt_recorder* rec);
XT_RECORDER_API xt_status xt_recorder_commit_step(xt_recorder* rec, int64_t gstep);
XT_RECORDER_API xt_status xt_recorder_flush(xt_recorder* rec);
/* Safe to call more than once; returns the same status each time. */
XT_RECORDER_API xt_status xt_recorder_close(xt_recorder* rec);
XT_RECORDER_API xt_status xt_recorder_get_stats(const xt_recorder* rec, xt_recorder_stats* out);

/* The message of the handle's last failure ("" when none); valid until the next call. */
XT_RECORDER_API const char* xt_recorder_last_error(const xt_recorder* rec);
/* The message of this thread's last failed xt_recorder_open. */
XT_RECORDER_API const char* xt_last_error(void);
XT_RECORDER_API const char* xt_status_name(xt_status status);

#ifdef __cplusplus
}
#endif

#endif /* XT_RECORDER_H */
