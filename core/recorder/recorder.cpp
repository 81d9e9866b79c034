#include "core/recorder/recorder.h"

#include "core/xdl/file_series_writer.h"
#include "core/xdl/wire.h"

#include <algorithm>
#include <cerrno>
#include <condition_variable>
#include <deque>
#include <filesystem>
#include <limits>
#include <mutex>
#include <optional>
#include <thread>
#include <unistd.h>

namespace xt::recorder {

namespace {

using Clock = std::chrono::steady_clock;

std::int64_t systemClockMs() {
    return std::chrono::duration_cast<std::chrono::milliseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
}

// Element count of a shape, or an error for negative dims, dims beyond int32 (the wire type)
// and overflow.
Result<std::size_t> elementCount(std::span<const std::int64_t> shape) {
    if (shape.size() > static_cast<std::size_t>(xdl::kMaxRank))
        return Status(ErrorCode::InvalidArgument,
                      "shape has " + std::to_string(shape.size()) + " dimensions; at most " +
                          std::to_string(xdl::kMaxRank) + " are supported");
    std::size_t n = 1;
    for (std::int64_t d : shape) {
        if (d < 0 || d > std::numeric_limits<std::int32_t>::max())
            return Status(ErrorCode::InvalidArgument,
                          "shape dimension " + std::to_string(d) + " is not in [0, 2^31)");
        if (d != 0 && n > std::numeric_limits<std::size_t>::max() / static_cast<std::size_t>(d))
            return Status(ErrorCode::InvalidArgument, "shape element count overflows");
        n *= static_cast<std::size_t>(d);
    }
    return n;
}

// Byte size of a tensor after checking dtype, shape and data pointer.
Result<std::size_t> checkTensor(std::string_view key, const TensorRef& t) {
    if (!xdl::isKnownDtype(static_cast<std::int64_t>(t.dtype)))
        return Status(ErrorCode::InvalidArgument,
                      "key '" + std::string(key) + "': dtype " +
                          std::to_string(static_cast<int>(t.dtype)) +
                          " is not an XDL type (int8/16/32/64, float32/64, bool, uint8)");
    auto n = elementCount(t.shape);
    if (!n)
        return Status(n.status().code(), "key '" + std::string(key) + "': " + n.status().message());
    if (*n > 0 && t.data == nullptr)
        return Status(ErrorCode::InvalidArgument, "key '" + std::string(key) +
                                                      "': data is null for " + std::to_string(*n) +
                                                      " elements");
    return *n * xdl::elementSize(t.dtype);
}

struct Item {
    std::string bytes; // framed record
    std::int64_t gstep = 0, lstep = 0, timestamp = 0;
};

enum class KeyKind { Tensor, Callback, Once };

} // namespace

struct Recorder::Impl {
    RecorderConfig config;

    // Step thread state.
    std::vector<std::string> tensorKeys; // column order of tensor keys
    std::vector<TensorRef> tensorValues; // this step's values, parallel to tensorKeys
    std::vector<std::vector<std::int64_t>> tensorShapes; // copies: only the data is borrowed
    std::vector<bool> tensorSet;
    std::vector<std::string> callbackKeys;
    std::vector<TensorCallback> callbacks;
    std::vector<std::string> onceKeys;
    std::vector<OwnedTensor> onceValues;
    std::vector<std::pair<std::string, SummaryFunction>> summaries;
    std::vector<std::optional<xdl::Dtype>> dtypes; // per column, fixed by the first value
    std::vector<std::string> keys;                 // header, fixed by the first record
    bool started = false;
    bool onceWritten = false;
    bool closed = false;
    Status closeStatus;
    std::int64_t lstep = 0;
    std::uint64_t skippedSteps = 0;
    xdl::RecordEncoder encoder;

    // Shared with the writer thread (guarded by mutex).
    std::unique_ptr<OutputSink> writer; // used by the writer thread once started
    std::thread thread;
    mutable std::mutex mutex;
    std::condition_variable wakeWriter;
    std::condition_variable wakeCaller;
    std::deque<Item> queue;
    std::vector<std::string> freeBuffers;
    bool stopping = false;
    bool writing = false; // the writer holds an item outside the queue
    Status writerError;   // sticky
    std::uint64_t committed = 0, written = 0, dropped = 0, bytesWritten = 0, highWater = 0;
    std::int64_t partIndex = 0;
    std::chrono::nanoseconds blocked{0};

    std::int64_t now() const { return config.clock ? config.clock() : systemClockMs(); }

    std::optional<KeyKind> kindOf(std::string_view key, std::size_t* index) const {
        auto find = [&](const std::vector<std::string>& v) -> std::optional<std::size_t> {
            auto it = std::find(v.begin(), v.end(), key);
            if (it == v.end()) return std::nullopt;
            return static_cast<std::size_t>(it - v.begin());
        };
        if (auto i = find(tensorKeys)) return *index = *i, KeyKind::Tensor;
        if (auto i = find(callbackKeys)) return *index = *i, KeyKind::Callback;
        if (auto i = find(onceKeys)) return *index = *i, KeyKind::Once;
        return std::nullopt;
    }

    Status usable() const {
        if (closed) return Status(ErrorCode::InvalidArgument, "recorder is closed");
        return Status::ok();
    }

    Status refuseNewKey(std::string_view key) const {
        return Status(ErrorCode::InvalidArgument,
                      "key '" + std::string(key) +
                          "' was not in the first record; the key set is fixed once recording "
                          "has started");
    }

    Status checkDtype(std::size_t column, xdl::Dtype dtype) {
        auto& slot = dtypes[column];
        if (!slot) {
            slot = dtype;
            return Status::ok();
        }
        if (*slot == dtype) return Status::ok();
        return Status(ErrorCode::InvalidArgument, "key '" + keys[column] + "' changed dtype from " +
                                                      std::string(xdl::dtypeName(*slot)) + " to " +
                                                      std::string(xdl::dtypeName(dtype)));
    }

    const SummaryFunction* summaryOf(std::string_view key) const {
        for (const auto& [k, fn] : summaries)
            if (k == key) return &fn;
        return nullptr;
    }

    Status addColumn(std::size_t column, std::string_view key, const TensorRef& value) {
        TensorRef v = value;
        OwnedTensor summarized;
        if (const SummaryFunction* fn = summaryOf(key)) {
            auto s = (*fn)(value);
            if (!s)
                return Status(s.status().code(),
                              "summary of '" + std::string(key) + "': " + s.status().message());
            summarized = std::move(*s);
            v = summarized.ref();
        }
        XT_ASSIGN_OR_RETURN(const std::size_t bytes, checkTensor(key, v));
        XT_RETURN_IF_ERROR(checkDtype(column, v.dtype));
        encoder.addColumn(v.dtype, v.shape,
                          xdl::Bytes(static_cast<const std::uint8_t*>(v.data), bytes));
        return Status::ok();
    }

    Status encodeRecord(std::int64_t gstep, std::int64_t timestamp) {
        encoder.begin(gstep, lstep);
        std::size_t column = 0;
        for (std::size_t i = 0; i < tensorKeys.size(); ++i, ++column) {
            if (!tensorSet[i])
                return Status(ErrorCode::InvalidArgument,
                              "key '" + tensorKeys[i] + "' was not traced at local step " +
                                  std::to_string(lstep) +
                                  "; every tensor key must be traced on every recorded step");
            XT_RETURN_IF_ERROR(addColumn(column, tensorKeys[i], tensorValues[i]));
        }
        for (std::size_t i = 0; i < callbackKeys.size(); ++i, ++column) {
            auto value = callbacks[i]();
            if (!value)
                return Status(value.status().code(),
                              "callback of '" + callbackKeys[i] + "': " + value.status().message());
            XT_RETURN_IF_ERROR(addColumn(column, callbackKeys[i], *value));
        }
        for (std::size_t i = 0; i < onceKeys.size(); ++i, ++column) {
            if (onceWritten) {
                static constexpr std::int64_t kEmpty[] = {0};
                encoder.addColumn(xdl::Dtype::Float, kEmpty, {});
            } else {
                XT_RETURN_IF_ERROR(addColumn(column, onceKeys[i], onceValues[i].ref()));
            }
        }
        return encoder.finish(timestamp);
    }

    Status start() {
        keys.clear();
        keys.insert(keys.end(), tensorKeys.begin(), tensorKeys.end());
        keys.insert(keys.end(), callbackKeys.begin(), callbackKeys.end());
        keys.insert(keys.end(), onceKeys.begin(), onceKeys.end());
        xdl::WriterOptions options;
        options.outputDir = config.outputDir;
        options.fileName = config.outputFileName;
        options.maxFileMB = config.maxFileMB;
        options.rank = config.rank;
        options.training = config.training;
        auto w = config.sink ? config.sink(options, keys)
                             : openLocalFileSink(options, keys, config.writeSummaries);
        if (!w) {
            keys.clear();
            return w.status();
        }
        writer = std::move(*w);
        dtypes.assign(keys.size(), std::nullopt);
        partIndex = writer->partIndex();
        bytesWritten = writer->totalBytes();
        started = true;
        thread = std::thread([this] { writerLoop(); });
        return Status::ok();
    }

    void writerLoop() {
        auto lastSync = Clock::now();
        std::unique_lock lock(mutex);
        for (;;) {
            wakeWriter.wait(lock, [&] { return stopping || !queue.empty(); });
            if (queue.empty()) break; // stopping and drained
            Item item = std::move(queue.front());
            queue.pop_front();
            writing = true;
            bool failed = !writerError.isOk();
            lock.unlock();
            Status st = Status::ok();
            if (!failed) {
                st = writer->write(
                    xdl::Bytes(reinterpret_cast<const std::uint8_t*>(item.bytes.data()),
                               item.bytes.size()),
                    item.gstep, item.lstep, item.timestamp);
                if (st && config.fsyncInterval.count() > 0 &&
                    Clock::now() - lastSync >= config.fsyncInterval) {
                    st = writer->sync();
                    lastSync = Clock::now();
                }
            }
            lock.lock();
            writing = false;
            if (!failed) {
                if (st)
                    ++written;
                else
                    writerError = st;
                bytesWritten = writer->totalBytes();
                partIndex = writer->partIndex();
            }
            item.bytes.clear();
            freeBuffers.push_back(std::move(item.bytes));
            wakeCaller.notify_all();
        }
    }

    // Hands the encoded record to the writer.
    void enqueue(std::int64_t gstep, std::int64_t timestamp) {
        std::unique_lock lock(mutex);
        Item item;
        if (!freeBuffers.empty()) {
            item.bytes = std::move(freeBuffers.back());
            freeBuffers.pop_back();
        }
        item.bytes.swap(encoder.buffer()); // the encoder keeps the emptied buffer for reuse
        item.gstep = gstep;
        item.lstep = lstep;
        item.timestamp = timestamp;
        queue.push_back(std::move(item));
        ++committed;
        highWater = std::max<std::uint64_t>(highWater, queue.size());
        wakeWriter.notify_one();
    }

    // Waits for room in the queue (Block) or reports that there is none (Drop).
    bool waitForRoom() {
        std::unique_lock lock(mutex);
        std::size_t capacity = std::max<std::size_t>(config.queueCapacity, 1);
        if (queue.size() < capacity) return true;
        if (config.queueFull == QueueFullPolicy::Drop) {
            ++dropped;
            return false;
        }
        auto t0 = Clock::now();
        wakeCaller.wait(lock, [&] { return queue.size() < capacity; });
        blocked += Clock::now() - t0;
        return true;
    }

    void clearStep() {
        std::fill(tensorSet.begin(), tensorSet.end(), false);
        for (auto& v : tensorValues)
            v = TensorRef{};
    }

    Status stickyError() const {
        std::lock_guard lock(mutex);
        if (writerError.isOk()) return Status::ok();
        return Status(writerError.code(), "recorder writer failed: " + writerError.message());
    }

    Status stopWriter() {
        if (thread.joinable()) {
            {
                std::lock_guard lock(mutex);
                stopping = true;
            }
            wakeWriter.notify_all();
            thread.join();
        }
        Status st = stickyError();
        if (writer) {
            Status sync = config.fsyncInterval.count() > 0 && st ? writer->sync() : Status::ok();
            Status closing = writer->close();
            if (st) st = sync;
            if (st) st = closing;
        }
        return st;
    }
};

Recorder::Recorder(std::unique_ptr<Impl> impl) : m_impl(std::move(impl)) {}

Recorder::~Recorder() {
    (void)close();
}

Result<std::unique_ptr<Recorder>> Recorder::create(RecorderConfig config) {
    if (config.outputFileName.empty())
        return Status(ErrorCode::InvalidArgument, "output file name is empty");
    if (config.outputFileName.find('/') != std::string::npos)
        return Status(ErrorCode::InvalidArgument,
                      "output file name '" + config.outputFileName + "' contains '/'");
    if (config.rank < 0) return Status(ErrorCode::InvalidArgument, "rank must be >= 0");
    if (!(config.maxFileMB > 0))
        return Status(ErrorCode::InvalidArgument, "max_file_m_size must be > 0");
    if (config.everyNSteps < 1)
        return Status(ErrorCode::InvalidArgument, "everyNSteps must be >= 1");
    if (config.queueCapacity < 1)
        return Status(ErrorCode::InvalidArgument, "queue capacity must be >= 1");
    std::error_code ec;
    std::filesystem::create_directories(config.outputDir, ec);
    if (ec) // EACCES, EROFS -> PermissionDenied; ENOSPC -> NoSpace (errnoStatus)
        return errnoStatus("cannot create output directory " + config.outputDir, ec.value());
    if (::access(config.outputDir.c_str(), W_OK | X_OK) != 0)
        return errnoStatus("output directory " + config.outputDir + " is not writable", errno);
    auto impl = std::make_unique<Impl>();
    impl->config = std::move(config);
    return std::unique_ptr<Recorder>(new Recorder(std::move(impl)));
}

Status Recorder::trace(std::string_view key, const TensorRef& tensor) {
    Impl& d = *m_impl;
    XT_RETURN_IF_ERROR(d.usable());
    XT_RETURN_IF_ERROR(checkTensor(key, tensor).status());
    std::size_t i = 0;
    auto kind = d.kindOf(key, &i);
    if (kind && *kind != KeyKind::Tensor)
        return Status(ErrorCode::InvalidArgument,
                      "key '" + std::string(key) + "' is already traced once or by callback");
    if (!kind) {
        if (d.started) return d.refuseNewKey(key);
        d.tensorKeys.emplace_back(key);
        d.tensorValues.emplace_back();
        d.tensorShapes.emplace_back();
        d.tensorSet.push_back(false);
        i = d.tensorKeys.size() - 1;
    }
    d.tensorShapes[i].assign(tensor.shape.begin(), tensor.shape.end());
    d.tensorValues[i] = TensorRef{tensor.dtype, d.tensorShapes[i], tensor.data};
    d.tensorSet[i] = true;
    return Status::ok();
}

Status Recorder::traceOnce(std::string_view key, const TensorRef& tensor) {
    Impl& d = *m_impl;
    XT_RETURN_IF_ERROR(d.usable());
    XT_ASSIGN_OR_RETURN(const std::size_t bytes, checkTensor(key, tensor));
    std::size_t i = 0;
    if (d.kindOf(key, &i))
        return Status(ErrorCode::InvalidArgument,
                      "key '" + std::string(key) + "' is already traced");
    if (d.started) return d.refuseNewKey(key);
    OwnedTensor copy{tensor.dtype, {tensor.shape.begin(), tensor.shape.end()}, {}};
    copy.data.resize(bytes);
    if (bytes) std::memcpy(copy.data.data(), tensor.data, bytes);
    d.onceKeys.emplace_back(key);
    d.onceValues.push_back(std::move(copy));
    return Status::ok();
}

Status Recorder::traceOnceText(std::string_view key, std::string_view text) {
    const std::int64_t shape[] = {static_cast<std::int64_t>(text.size())};
    return traceOnce(key, TensorRef{xdl::Dtype::Int8, shape, text.data()});
}

Status Recorder::traceCallback(std::string_view key, TensorCallback fn) {
    Impl& d = *m_impl;
    XT_RETURN_IF_ERROR(d.usable());
    if (!fn)
        return Status(ErrorCode::InvalidArgument,
                      "callback for '" + std::string(key) + "' is empty");
    std::size_t i = 0;
    if (d.kindOf(key, &i))
        return Status(ErrorCode::InvalidArgument,
                      "key '" + std::string(key) + "' is already traced");
    if (d.started) return d.refuseNewKey(key);
    d.callbackKeys.emplace_back(key);
    d.callbacks.push_back(std::move(fn));
    return Status::ok();
}

Status Recorder::setSummary(std::string_view key, SummaryFunction fn) {
    Impl& d = *m_impl;
    XT_RETURN_IF_ERROR(d.usable());
    if (d.started)
        return Status(ErrorCode::InvalidArgument,
                      "summary for '" + std::string(key) + "' set after recording started");
    for (auto& [k, f] : d.summaries)
        if (k == key) {
            f = std::move(fn);
            return Status::ok();
        }
    d.summaries.emplace_back(std::string(key), std::move(fn));
    return Status::ok();
}

Status Recorder::setWriteSummaries(bool on) {
    Impl& d = *m_impl;
    XT_RETURN_IF_ERROR(d.usable());
    if (d.started)
        return Status(ErrorCode::InvalidArgument, "summaries switched after recording started");
    d.config.writeSummaries = on;
    return Status::ok();
}

bool Recorder::isRecordedStep() const {
    return m_impl->lstep % m_impl->config.everyNSteps == 0;
}

Status Recorder::commitStep(std::int64_t gstep) {
    Impl& d = *m_impl;
    XT_RETURN_IF_ERROR(d.usable());
    XT_RETURN_IF_ERROR(d.stickyError());
    bool recorded = isRecordedStep();
    ++d.lstep;
    if (!recorded) {
        ++d.skippedSteps;
        d.clearStep();
        return Status::ok();
    }
    if (!d.started) {
        if (d.tensorKeys.empty() && d.callbackKeys.empty() && d.onceKeys.empty()) {
            d.clearStep();
            return Status(ErrorCode::InvalidArgument, "nothing traced before the first commitStep");
        }
        Status st = d.start();
        if (!st) {
            d.clearStep();
            return st;
        }
    }
    if (!d.waitForRoom()) {
        d.clearStep();
        return Status::ok();
    }
    std::int64_t timestamp = d.now();
    Status st = d.encodeRecord(gstep, timestamp);
    d.clearStep();
    if (!st) return st;
    d.enqueue(gstep, timestamp);
    if (!d.onceValues.empty()) {
        d.onceWritten = true;
        d.onceValues.clear(); // free the copies: empty columns from now on
        d.onceValues.shrink_to_fit();
    }
    return Status::ok();
}

Status Recorder::flush() {
    Impl& d = *m_impl;
    if (d.closed) return d.closeStatus;
    {
        std::unique_lock lock(d.mutex);
        d.wakeCaller.wait(lock, [&] { return d.queue.empty() && !d.writing; });
    }
    return d.stickyError();
}

Status Recorder::close() {
    Impl& d = *m_impl;
    if (d.closed) return d.closeStatus;
    d.closed = true;
    d.closeStatus = d.stopWriter();
    return d.closeStatus;
}

RecorderStats Recorder::stats() const {
    const Impl& d = *m_impl;
    std::lock_guard lock(d.mutex);
    RecorderStats s;
    s.committed = d.committed;
    s.written = d.written;
    s.dropped = d.dropped;
    s.skippedSteps = d.skippedSteps;
    s.bytesWritten = d.bytesWritten;
    s.queueHighWater = d.highWater;
    s.blockedTime = d.blocked;
    s.partIndex = d.partIndex;
    return s;
}

const std::vector<std::string>& Recorder::keys() const {
    return m_impl->keys;
}

} // namespace xt::recorder
