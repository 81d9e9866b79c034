/* The C API from plain C: records a run into argv[1], checks error codes and messages, and walks
 * the written file's length prefixes to count the header and the records. */
#include "core/recorder/xt_recorder.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);               \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

static int64_t g_clock = 1700000000000;
static int64_t fake_clock(void* user) {
    (void)user;
    return g_clock += 250;
}

static int32_t g_counter[3];
static const int64_t g_counter_shape[1] = {3};
static int counter_callback(void* user, xt_tensor* out) {
    int* calls = (int*)user;
    ++*calls;
    for (int i = 0; i < 3; ++i)
        g_counter[i] = *calls * 10 + i;
    out->dtype = XT_INT32;
    out->ndim = 1;
    out->shape = g_counter_shape;
    out->data = g_counter;
    return 0;
}

static float g_sum;
static int sum_summary(void* user, const xt_tensor* in, xt_tensor* out) {
    (void)user;
    int64_t n = 1;
    for (int i = 0; i < in->ndim; ++i)
        n *= in->shape[i];
    g_sum = 0;
    for (int64_t i = 0; i < n; ++i)
        g_sum += ((const float*)in->data)[i];
    out->dtype = XT_FLOAT32;
    out->ndim = 0;
    out->shape = NULL;
    out->data = &g_sum;
    return 0;
}

static unsigned read_u32(const unsigned char* p) {
    return (unsigned)p[0] | (unsigned)p[1] << 8 | (unsigned)p[2] << 16 | (unsigned)p[3] << 24;
}

int main(int argc, char** argv) {
    CHECK(argc == 2);
    const char* dir = argv[1];
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    CHECK(system(cmd) == 0);

    /* Opening under a regular file fails with a message. */
    xt_recorder_config config;
    xt_recorder_config_init(&config);
    config.output_dir = "/proc/version/sub";
    xt_recorder* rec = NULL;
    CHECK(xt_recorder_open(&config, &rec) != XT_OK);
    CHECK(rec == NULL);
    CHECK(strlen(xt_last_error()) > 0);

    config.output_dir = dir;
    config.clock = fake_clock;
    config.queue_capacity = 2;
    CHECK(xt_recorder_open(&config, &rec) == XT_OK);

    int calls = 0;
    CHECK(xt_recorder_trace_callback(rec, "counter", counter_callback, &calls) == XT_OK);
    CHECK(xt_recorder_trace_once_text(rec, "config", "lr=0.5", 6) == XT_OK);
    CHECK(xt_recorder_set_summary(rec, "grad_sum", sum_summary, NULL) == XT_OK);

    float w[6];
    int64_t wshape[2] = {2, 3};
    xt_tensor bad = {42, 0, NULL, w};
    CHECK(xt_recorder_trace(rec, "bad", &bad) == XT_INVALID_ARGUMENT);
    CHECK(strstr(xt_recorder_last_error(rec), "not an XDL type") != NULL);

    const int steps = 12;
    for (int s = 0; s < steps; ++s) {
        for (int i = 0; i < 6; ++i)
            w[i] = (float)(s + i);
        xt_tensor wt = {XT_FLOAT32, 2, wshape, w};
        double loss = 1.0 / (s + 1);
        xt_tensor lt = {XT_FLOAT64, 0, NULL, &loss};
        CHECK(xt_recorder_trace(rec, "w", &wt) == XT_OK);
        CHECK(xt_recorder_trace(rec, "loss", &lt) == XT_OK);
        CHECK(xt_recorder_trace(rec, "grad_sum", &wt) == XT_OK);
        CHECK(xt_recorder_is_recorded_step(rec) == 1);
        CHECK(xt_recorder_commit_step(rec, 1000 + s) == XT_OK);
    }
    CHECK(calls == steps);
    /* A new key after the first record is refused. */
    xt_tensor lt = {XT_FLOAT64, 0, NULL, w};
    CHECK(xt_recorder_trace(rec, "new_key", &lt) == XT_INVALID_ARGUMENT);
    CHECK(strstr(xt_recorder_last_error(rec), "new_key") != NULL);

    CHECK(xt_recorder_close(rec) == XT_OK);
    CHECK(xt_recorder_close(rec) == XT_OK);
    xt_recorder_stats stats;
    CHECK(xt_recorder_get_stats(rec, &stats) == XT_OK);
    CHECK(stats.written == (uint64_t)steps);
    CHECK(stats.dropped == 0);
    CHECK(xt_recorder_commit_step(rec, 0) == XT_INVALID_ARGUMENT);
    xt_recorder_free(rec);
    xt_recorder_free(NULL);

    /* One part file: a header then `steps` records, ending exactly on the last one. */
    char path[4096];
    snprintf(path, sizeof path, "%s/train.trace.0.1", dir);
    FILE* f = fopen(path, "rb");
    CHECK(f != NULL);
    static unsigned char buf[1 << 20];
    size_t size = fread(buf, 1, sizeof buf, f);
    fclose(f);
    size_t pos = 0;
    int messages = 0;
    while (pos + 4 <= size) {
        unsigned len = read_u32(buf + pos);
        CHECK(pos + 4 + len <= size);
        if (messages == 0) CHECK(buf[pos + 4] == 0x0a); /* header: field 1, key */
        pos += 4 + len;
        ++messages;
    }
    CHECK(pos == size);
    CHECK(messages == steps + 1);
    snprintf(path, sizeof path, "%s/train.trace.0.1.meta", dir);
    struct stat st;
    CHECK(stat(path, &st) == 0 && st.st_size > 0);
    snprintf(path, sizeof path, "%s/train.trace.0.1.xts", dir); /* its summary, by default */
    CHECK(stat(path, &st) == 0 && st.st_size > 0);

    /* Summaries off: none is written; switching after the first record is refused. */
    char plain[4096];
    snprintf(plain, sizeof plain, "%s/plain", dir);
    config.output_dir = plain;
    CHECK(xt_recorder_open(&config, &rec) == XT_OK);
    CHECK(xt_recorder_set_summaries(rec, 0) == XT_OK);
    CHECK(xt_recorder_trace(rec, "loss", &lt) == XT_OK);
    CHECK(xt_recorder_commit_step(rec, 0) == XT_OK);
    CHECK(xt_recorder_set_summaries(rec, 1) == XT_INVALID_ARGUMENT);
    CHECK(xt_recorder_close(rec) == XT_OK);
    xt_recorder_free(rec);
    snprintf(path, sizeof path, "%s/train.trace.0.1", plain);
    CHECK(stat(path, &st) == 0);
    snprintf(path, sizeof path, "%s/train.trace.0.1.xts", plain);
    CHECK(stat(path, &st) != 0);
    printf("c api: %d records, %zu bytes\n", steps, size);
    return 0;
}
