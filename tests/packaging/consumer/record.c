/* record OUT_DIR: writes 5 steps of "w" (float32 [2, 3]) and "loss" (float32 scalar) plus a
 * config string through the installed recorder SDK; exits nonzero on any error. */
#include <xtrecorder/xt_recorder.h>

#include <stdio.h>

static int check(xt_status s, xt_recorder* rec, const char* what) {
    if (s == XT_OK) return 0;
    fprintf(stderr, "%s: %s: %s\n", what, xt_status_name(s),
            rec ? xt_recorder_last_error(rec) : xt_last_error());
    return 1;
}

int main(int argc, char** argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: record OUT_DIR\n");
        return 2;
    }
    xt_recorder_config config;
    xt_recorder_config_init(&config);
    config.output_dir = argv[1];
    xt_recorder* rec = NULL;
    if (check(xt_recorder_open(&config, &rec), NULL, "open")) return 1;
    const char* text = "consumer";
    if (check(xt_recorder_trace_once_text(rec, "config", text, 8), rec, "trace_once_text"))
        return 1;
    for (int step = 0; step < 5; ++step) {
        float w[6];
        for (int i = 0; i < 6; ++i)
            w[i] = (float)(step * 10 + i);
        float loss = 1.0f / (float)(step + 1);
        const int64_t shape[2] = {2, 3};
        xt_tensor tw = {XT_FLOAT32, 2, shape, w};
        xt_tensor tl = {XT_FLOAT32, 0, NULL, &loss};
        if (check(xt_recorder_trace(rec, "w", &tw), rec, "trace w") ||
            check(xt_recorder_trace(rec, "loss", &tl), rec, "trace loss") ||
            check(xt_recorder_commit_step(rec, 100 + step), rec, "commit"))
            return 1;
    }
    if (check(xt_recorder_close(rec), rec, "close")) return 1;
    xt_recorder_free(rec);
    printf("recorded 5 steps into %s\n", argv[1]);
    return 0;
}
