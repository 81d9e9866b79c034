#pragma once
// The embeddable XDL recorder, modelled on the upstream TraceHook. A training job traces
// tensors by key and calls commitStep(gstep) once per step; each traced step becomes one record,
// serialized on the caller's thread and written by one background writer thread through a
// bounded queue into the upstream file series (FileSeriesWriter), with each part's summary
// beside it. Depends on core/base, core/xdl and core/summary (+ its CPU kernels) only: no Qt,
// no TBB, no protobuf runtime.
//
// Threading: a Recorder is used from one thread at a time (the step thread). Its only hidden
// thread is the writer, started by the first commitStep and joined by close().
//
// Element types: the eight XDL dtypes only. Unsigned integers wider than 8 bits, float16 and
// other types are refused at compile time (C++ templates) or with InvalidArgument (TensorRef,
// C API, Python); strings are traced as Int8 arrays (traceOnceText), as upstream does.

#include "core/base/status.h"
#include "core/recorder/output_sink.h"
#include "core/xdl/dtype.h"

#include <chrono>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace xt::recorder {

// A borrowed tensor: element type, C-order shape (empty = 0-d scalar) and contiguous data.
struct TensorRef {
    xdl::Dtype dtype = xdl::Dtype::Float;
    std::span<const std::int64_t> shape;
    const void* data = nullptr;
};

// An owned tensor, as returned by summary functions.
struct OwnedTensor {
    xdl::Dtype dtype = xdl::Dtype::Float;
    std::vector<std::int64_t> shape;
    std::vector<std::uint8_t> data;

    TensorRef ref() const { return {dtype, shape, data.data()}; }
    template <class T>
    static OwnedTensor of(std::span<const T> values, std::vector<std::int64_t> shape);
};

// The XDL dtype of a C++ element type; unsupported types do not compile.
template <class T> constexpr xdl::Dtype dtypeOf() {
    if constexpr (std::is_same_v<T, std::int8_t>)
        return xdl::Dtype::Int8;
    else if constexpr (std::is_same_v<T, std::int16_t>)
        return xdl::Dtype::Int16;
    else if constexpr (std::is_same_v<T, std::int32_t>)
        return xdl::Dtype::Int32;
    else if constexpr (std::is_same_v<T, std::int64_t>)
        return xdl::Dtype::Int64;
    else if constexpr (std::is_same_v<T, float>)
        return xdl::Dtype::Float;
    else if constexpr (std::is_same_v<T, double>)
        return xdl::Dtype::Double;
    else if constexpr (std::is_same_v<T, bool>)
        return xdl::Dtype::Bool;
    else if constexpr (std::is_same_v<T, std::uint8_t>)
        return xdl::Dtype::Byte;
    else
        static_assert(sizeof(T) == 0, "XDL cannot store this element type");
}

enum class QueueFullPolicy {
    Block, // commitStep waits for room (nothing is lost)
    Drop,  // commitStep skips the record and counts it in RecorderStats::dropped
};

struct RecorderConfig {
    std::string outputDir = ".";
    std::string outputFileName = "trace"; // may contain dots
    double maxFileMB = 300;               // decimal megabytes per part file
    int rank = 0;
    bool training = true;          // file prefix "train", else "test"
    int everyNSteps = 1;           // step filter: records steps 1, 1+N, 1+2N, ... (local steps)
    std::size_t queueCapacity = 8; // records waiting for the writer
    QueueFullPolicy queueFull = QueueFullPolicy::Block;
    // Writer calls fdatasync when this long has passed since the last one; 0 = only at close().
    std::chrono::milliseconds fsyncInterval{0};
    // Timestamps (ms since the epoch); the system clock when empty.
    std::function<std::int64_t()> clock;
    // Where records go; empty: local files in outputDir (openLocalFileSink).
    OutputSinkFactory sink;
    // Local files: write each part's summary ({part}.xts) as records are written, so viewers
    // open the run without reading it all. The statistics are computed on the writer thread.
    bool writeSummaries = true;
};

struct RecorderStats {
    std::uint64_t committed = 0;    // records handed to the writer
    std::uint64_t written = 0;      // records in the files
    std::uint64_t dropped = 0;      // records skipped because the queue was full (Drop policy)
    std::uint64_t skippedSteps = 0; // steps left out by everyNSteps
    std::uint64_t bytesWritten = 0; // file bytes, headers included
    std::uint64_t queueHighWater = 0;
    std::chrono::nanoseconds blockedTime{0}; // time commitStep waited for room (Block policy)
    std::int64_t partIndex = 0;              // index of the part file being written
};

// Returns the value to record for a key each step; the data must stay valid until commitStep
// returns.
using TensorCallback = std::function<Result<TensorRef>()>;
// Transforms a key's value before it is written (e.g. a mean over axis 0).
using SummaryFunction = std::function<Result<OwnedTensor>(const TensorRef&)>;

class Recorder {
public:
    // Checks the configuration and that the output directory can be created and written.
    static Result<std::unique_ptr<Recorder>> create(RecorderConfig config);
    ~Recorder(); // close(); never waits on anything but the writer draining its queue
    Recorder(const Recorder&) = delete;
    Recorder& operator=(const Recorder&) = delete;

    // The value of `key` for the coming step. The data (not the shape) is borrowed until
    // commitStep returns.
    // The first record fixes the key set: a key it lacks is refused later, and every tensor key
    // must be traced again on every recorded step. A key keeps its dtype; its shape may change.
    Status trace(std::string_view key, const TensorRef& tensor);
    template <class T>
    Status trace(std::string_view key, const T* data, std::span<const std::int64_t> shape) {
        return trace(key, TensorRef{dtypeOf<T>(), shape, data});
    }
    // Recorded in the first record only (copied now); later records hold an empty float32 [0].
    Status traceOnce(std::string_view key, const TensorRef& tensor);
    Status traceOnceText(std::string_view key, std::string_view text); // as Int8
    // fn is called on each recorded step, inside commitStep.
    Status traceCallback(std::string_view key, TensorCallback fn);
    // Applies fn to the key's value before writing (tensor, callback and once keys alike).
    Status setSummary(std::string_view key, SummaryFunction fn);

    // RecorderConfig::writeSummaries, before the first record (for the C API).
    Status setWriteSummaries(bool on);

    // Whether the next commitStep records (see everyNSteps); lets the caller skip work.
    bool isRecordedStep() const;
    // Ends a local step (lstep counts calls from 1). On a recorded step, serializes one record
    // {gstep, lstep, columns, timestamp} and queues it. Returns the first error of the writer
    // thread once it has failed (sticky), and misuse errors of this step.
    Status commitStep(std::int64_t gstep);
    // Waits until every queued record is in the files.
    Status flush();
    // Drains the queue, finalises the current meta and stops the writer. Safe to call again
    // (returns the same status).
    Status close();

    RecorderStats stats() const;
    const std::vector<std::string>& keys() const; // empty until the first record

private:
    struct Impl;
    explicit Recorder(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> m_impl;
};

template <class T>
OwnedTensor OwnedTensor::of(std::span<const T> values, std::vector<std::int64_t> shape) {
    OwnedTensor t{dtypeOf<T>(), std::move(shape), {}};
    t.data.resize(values.size_bytes());
    if (!values.empty()) std::memcpy(t.data.data(), values.data(), values.size_bytes());
    return t;
}

} // namespace xt::recorder
