// The C API over xt::recorder::Recorder. No exception leaves these functions.
#include "core/recorder/xt_recorder.h"

#include "core/recorder/recorder.h"

#include <new>
#include <string>

struct xt_recorder {
    std::unique_ptr<xt::recorder::Recorder> recorder;
    std::string lastError;
};

namespace {

thread_local std::string tOpenError;

xt_status toC(xt::ErrorCode code) {
    return static_cast<xt_status>(static_cast<int>(code));
}

xt_status report(xt_recorder* rec, const xt::Status& st) {
    if (st) return XT_OK;
    rec->lastError = st.toString();
    return toC(st.code());
}

xt::Result<xt::recorder::TensorRef> fromC(const xt_tensor* t) {
    using xt::ErrorCode;
    using xt::Status;
    if (!t) return Status(ErrorCode::InvalidArgument, "tensor is null");
    if (!xt::xdl::isKnownDtype(t->dtype))
        return Status(ErrorCode::InvalidArgument,
                      "dtype " + std::to_string(t->dtype) +
                          " is not an XDL type (int8/16/32/64, float32/64, bool, uint8)");
    if (t->ndim < 0 || (t->ndim > 0 && !t->shape))
        return Status(ErrorCode::InvalidArgument, "tensor shape is invalid");
    return xt::recorder::TensorRef{static_cast<xt::xdl::Dtype>(t->dtype),
                                   {t->shape, static_cast<std::size_t>(t->ndim)},
                                   t->data};
}

template <class F> xt_status guarded(xt_recorder* rec, F&& f) {
    if (!rec) return XT_INVALID_ARGUMENT;
    try {
        return report(rec, f());
    } catch (const std::bad_alloc&) {
        rec->lastError = "out of memory";
        return XT_INTERNAL;
    } catch (const std::exception& e) {
        rec->lastError = e.what();
        return XT_INTERNAL;
    }
}

} // namespace

extern "C" {

void xt_recorder_config_init(xt_recorder_config* c) {
    if (!c) return;
    *c = xt_recorder_config{};
    c->output_dir = ".";
    c->output_file_name = "trace";
    c->max_file_mb = 300;
    c->training = 1;
    c->every_n_steps = 1;
    c->queue_capacity = 8;
}

xt_status xt_recorder_open(const xt_recorder_config* c, xt_recorder** out) {
    if (!c || !out) {
        tOpenError = "config or out is null";
        return XT_INVALID_ARGUMENT;
    }
    *out = nullptr;
    try {
        xt::recorder::RecorderConfig config;
        if (c->output_dir) config.outputDir = c->output_dir;
        if (c->output_file_name) config.outputFileName = c->output_file_name;
        config.maxFileMB = c->max_file_mb;
        config.rank = c->rank;
        config.training = c->training != 0;
        config.everyNSteps = c->every_n_steps;
        if (c->queue_capacity < 1) {
            tOpenError = "queue_capacity must be >= 1";
            return XT_INVALID_ARGUMENT;
        }
        config.queueCapacity = static_cast<std::size_t>(c->queue_capacity);
        config.queueFull = c->drop_when_full ? xt::recorder::QueueFullPolicy::Drop
                                             : xt::recorder::QueueFullPolicy::Block;
        config.fsyncInterval = std::chrono::milliseconds(c->fsync_interval_ms);
        if (c->clock) {
            auto fn = c->clock;
            void* user = c->clock_user;
            config.clock = [fn, user] { return fn(user); };
        }
        auto r = xt::recorder::Recorder::create(std::move(config));
        if (!r) {
            tOpenError = r.status().toString();
            return toC(r.status().code());
        }
        auto* rec = new xt_recorder;
        rec->recorder = std::move(*r);
        *out = rec;
        tOpenError.clear();
        return XT_OK;
    } catch (const std::exception& e) {
        tOpenError = e.what();
        return XT_INTERNAL;
    }
}

void xt_recorder_free(xt_recorder* rec) {
    if (!rec) return;
    try {
        (void)rec->recorder->close();
    } catch (...) {
    }
    delete rec;
}

xt_status xt_recorder_trace(xt_recorder* rec, const char* key, const xt_tensor* tensor) {
    return guarded(rec, [&]() -> xt::Status {
        if (!key) return {xt::ErrorCode::InvalidArgument, "key is null"};
        XT_ASSIGN_OR_RETURN(const auto t, fromC(tensor));
        return rec->recorder->trace(key, t);
    });
}

xt_status xt_recorder_trace_once(xt_recorder* rec, const char* key, const xt_tensor* tensor) {
    return guarded(rec, [&]() -> xt::Status {
        if (!key) return {xt::ErrorCode::InvalidArgument, "key is null"};
        XT_ASSIGN_OR_RETURN(const auto t, fromC(tensor));
        return rec->recorder->traceOnce(key, t);
    });
}

xt_status xt_recorder_trace_once_text(xt_recorder* rec, const char* key, const char* text,
                                      size_t length) {
    return guarded(rec, [&]() -> xt::Status {
        if (!key || (!text && length))
            return {xt::ErrorCode::InvalidArgument, "key or text is null"};
        return rec->recorder->traceOnceText(key, std::string_view(text ? text : "", length));
    });
}

xt_status xt_recorder_trace_callback(xt_recorder* rec, const char* key, xt_tensor_callback fn,
                                     void* user) {
    return guarded(rec, [&]() -> xt::Status {
        if (!key || !fn) return {xt::ErrorCode::InvalidArgument, "key or callback is null"};
        std::string name = key;
        return rec->recorder->traceCallback(
            key, [fn, user, name]() -> xt::Result<xt::recorder::TensorRef> {
                xt_tensor out{};
                int rc = fn(user, &out);
                if (rc != 0)
                    return xt::Status(xt::ErrorCode::InvalidArgument,
                                      "callback returned " + std::to_string(rc));
                return fromC(&out);
            });
    });
}

xt_status xt_recorder_set_summary(xt_recorder* rec, const char* key, xt_summary_callback fn,
                                  void* user) {
    return guarded(rec, [&]() -> xt::Status {
        if (!key || !fn) return {xt::ErrorCode::InvalidArgument, "key or summary is null"};
        return rec->recorder->setSummary(
            key,
            [fn, user](const xt::recorder::TensorRef& in) -> xt::Result<xt::recorder::OwnedTensor> {
                xt_tensor cin{static_cast<int>(in.dtype), static_cast<int>(in.shape.size()),
                              in.shape.data(), in.data};
                xt_tensor out{};
                int rc = fn(user, &cin, &out);
                if (rc != 0)
                    return xt::Status(xt::ErrorCode::InvalidArgument,
                                      "summary returned " + std::to_string(rc));
                XT_ASSIGN_OR_RETURN(const auto ref, fromC(&out));
                xt::recorder::OwnedTensor owned{
                    ref.dtype, {ref.shape.begin(), ref.shape.end()}, {}};
                std::size_t n = xt::xdl::elementSize(ref.dtype);
                for (std::int64_t d : ref.shape) {
                    if (d < 0) return xt::Status(xt::ErrorCode::InvalidArgument, "negative dim");
                    n *= static_cast<std::size_t>(d);
                }
                if (n && !ref.data)
                    return xt::Status(xt::ErrorCode::InvalidArgument, "summary data is null");
                const auto* p = static_cast<const std::uint8_t*>(ref.data);
                owned.data.assign(p, p + n);
                return owned;
            });
    });
}

xt_status xt_recorder_set_summaries(xt_recorder* rec, int on) {
    return guarded(rec, [&] { return rec->recorder->setWriteSummaries(on != 0); });
}

int xt_recorder_is_recorded_step(const xt_recorder* rec) {
    return rec && rec->recorder->isRecordedStep() ? 1 : 0;
}

xt_status xt_recorder_commit_step(xt_recorder* rec, int64_t gstep) {
    return guarded(rec, [&] { return rec->recorder->commitStep(gstep); });
}

xt_status xt_recorder_flush(xt_recorder* rec) {
    return guarded(rec, [&] { return rec->recorder->flush(); });
}

xt_status xt_recorder_close(xt_recorder* rec) {
    return guarded(rec, [&] { return rec->recorder->close(); });
}

xt_status xt_recorder_get_stats(const xt_recorder* rec, xt_recorder_stats* out) {
    if (!rec || !out) return XT_INVALID_ARGUMENT;
    auto s = rec->recorder->stats();
    out->committed = s.committed;
    out->written = s.written;
    out->dropped = s.dropped;
    out->skipped_steps = s.skippedSteps;
    out->bytes_written = s.bytesWritten;
    out->queue_high_water = s.queueHighWater;
    out->blocked_ns = s.blockedTime.count();
    out->part_index = s.partIndex;
    return XT_OK;
}

const char* xt_recorder_last_error(const xt_recorder* rec) {
    return rec ? rec->lastError.c_str() : "recorder handle is null";
}

const char* xt_last_error(void) {
    return tOpenError.c_str();
}

const char* xt_status_name(xt_status status) {
    return xt::errorCodeName(static_cast<xt::ErrorCode>(status));
}

} // extern "C"
