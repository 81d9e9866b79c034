// The recorder end to end: what it writes is read back with RunReader, compared byte for byte
// with a reference built from protobuf's generated classes, and checked under misuse, full
// queues, write failures and kill -9.
#include "core/recorder/recorder.h"
#include "core/xdl/file_series_writer.h"
#include "core/xdl/run_discovery.h"
#include "core/xdl/trace_reader.h"
#include "temp_dir.h"
#include "xdl.pb.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <csignal>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <sstream>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

namespace xt::recorder {
namespace {
using xt::test::TempDir;

namespace fs = std::filesystem;
using xdl::Dtype;

std::string readFile(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

xdl::RunReader openRun(const std::string& dir, Diagnostics& diag) {
    auto runs = xdl::discoverRuns({dir}, diag);
    EXPECT_TRUE(runs.isOk()) << runs.status().toString();
    EXPECT_EQ(runs->size(), 1u);
    auto run = xdl::RunReader::open(runs->front(), diag);
    EXPECT_TRUE(run.isOk()) << run.status().toString();
    return std::move(*run);
}

// A deterministic clock: 1700000000000 + 100 ms per call.
std::function<std::int64_t()> fakeClock() {
    auto t = std::make_shared<std::int64_t>(1700000000000);
    return [t] { return *t += 100; };
}

RecorderConfig configFor(const std::string& dir) {
    RecorderConfig c;
    c.outputDir = dir;
    c.clock = fakeClock();
    return c;
}

std::unique_ptr<Recorder> make(RecorderConfig c) {
    auto r = Recorder::create(std::move(c));
    EXPECT_TRUE(r.isOk()) << r.status().toString();
    return std::move(*r);
}

template <class T> std::vector<T> ramp(std::size_t n, int step) {
    std::vector<T> v(n);
    for (std::size_t i = 0; i < n; ++i)
        v[i] = static_cast<T>((static_cast<int>(i) * 3 + step * 7) % 100 - 50);
    return v;
}

TEST(Recorder, RoundTripEveryDtype) {
    TempDir dir;
    auto rec = make(configFor(dir.str()));
    const std::int64_t shape23[] = {2, 3};
    const std::int64_t shape4[] = {4};
    constexpr int kSteps = 5;
    for (int s = 0; s < kSteps; ++s) {
        auto i8 = ramp<std::int8_t>(6, s);
        auto i16 = ramp<std::int16_t>(6, s);
        auto i32 = ramp<std::int32_t>(4, s);
        auto i64 = ramp<std::int64_t>(4, s);
        auto f32 = ramp<float>(6, s);
        auto f64 = ramp<double>(4, s);
        std::uint8_t b[4] = {1, 0, std::uint8_t(s % 2), 1};
        auto u8 = ramp<std::uint8_t>(4, s);
        double scalar = 0.5 * s;
        ASSERT_TRUE(rec->trace("i8", i8.data(), shape23).isOk());
        ASSERT_TRUE(rec->trace("i16", i16.data(), shape23).isOk());
        ASSERT_TRUE(rec->trace("i32", i32.data(), shape4).isOk());
        ASSERT_TRUE(rec->trace("i64", i64.data(), shape4).isOk());
        ASSERT_TRUE(rec->trace("f32", f32.data(), shape23).isOk());
        ASSERT_TRUE(rec->trace("f64", f64.data(), shape4).isOk());
        ASSERT_TRUE(rec->trace("bool", TensorRef{Dtype::Bool, shape4, b}).isOk());
        ASSERT_TRUE(rec->trace("u8", u8.data(), shape4).isOk());
        ASSERT_TRUE(rec->trace<double>("scalar", &scalar, {}).isOk());
        ASSERT_TRUE(rec->commitStep(100 + s).isOk());
    }
    ASSERT_TRUE(rec->close().isOk());
    EXPECT_EQ(rec->stats().written, std::uint64_t(kSteps));

    Diagnostics diag;
    auto run = openRun(dir.str(), diag);
    EXPECT_TRUE(diag.empty()) << diag.items().front().toString();
    ASSERT_EQ(run.ranks().size(), 1u);
    const auto& rank = run.ranks()[0];
    ASSERT_EQ(rank.recordCount(), std::size_t(kSteps));
    EXPECT_EQ(rank.keys(), (std::vector<std::string>{"i8", "i16", "i32", "i64", "f32", "f64",
                                                     "bool", "u8", "scalar"}));
    for (int s = 0; s < kSteps; ++s) {
        const auto& e = rank.entry(s);
        EXPECT_EQ(e.gstep, 100 + s);
        EXPECT_EQ(e.lstep, s + 1);
        EXPECT_EQ(e.timestamp, 1700000000000 + 100 * (s + 1));
        auto check = [&](const char* key, Dtype dtype, auto expected, std::string shape) {
            using T = typename decltype(expected)::value_type;
            auto t = rank.tensor(s, key);
            ASSERT_TRUE(t.isOk()) << t.status().toString();
            EXPECT_EQ(t->dtype(), dtype) << key;
            EXPECT_EQ(t->shape().toString(), shape) << key;
            ASSERT_EQ(t->size(), expected.size()) << key;
            for (std::size_t i = 0; i < expected.size(); ++i)
                EXPECT_EQ(t->template at<T>(i), expected[i]) << key << " " << i;
        };
        check("i8", Dtype::Int8, ramp<std::int8_t>(6, s), "[2, 3]");
        check("i16", Dtype::Int16, ramp<std::int16_t>(6, s), "[2, 3]");
        check("i32", Dtype::Int32, ramp<std::int32_t>(4, s), "[4]");
        check("i64", Dtype::Int64, ramp<std::int64_t>(4, s), "[4]");
        check("f32", Dtype::Float, ramp<float>(6, s), "[2, 3]");
        check("f64", Dtype::Double, ramp<double>(4, s), "[4]");
        check("bool", Dtype::Bool, std::vector<std::uint8_t>{1, 0, std::uint8_t(s % 2), 1}, "[4]");
        check("u8", Dtype::Byte, ramp<std::uint8_t>(4, s), "[4]");
        check("scalar", Dtype::Double, std::vector<double>{0.5 * s}, "[]");
    }
}

// The reference: records serialized by protobuf's generated classes, framed and split by the
// upstream file-series rules (FileSeriesWriter).
TEST(Recorder, BytesEqualProtobufReference) {
    TempDir dir;
    const std::string recDir = dir.str() + "/rec", refDir = dir.str() + "/ref";
    RecorderConfig c = configFor(recDir);
    c.outputFileName = "predict.trace";
    c.rank = 3;
    c.maxFileMB = 0.002; // 2000 bytes: several parts
    auto rec = make(c);
    const std::int64_t wshape[] = {4, 8};
    std::vector<float> weights(32);
    std::int64_t counter = 0;
    const std::int64_t cshape[] = {2};
    std::int64_t cvalue[2];
    ASSERT_TRUE(rec->traceOnceText("config", "lr=0.1").isOk());
    ASSERT_TRUE(rec->traceCallback("counter",
                                   [&]() -> Result<TensorRef> {
                                       cvalue[0] = counter;
                                       cvalue[1] = -counter;
                                       return TensorRef{Dtype::Int64, cshape, cvalue};
                                   })
                    .isOk());
    constexpr int kSteps = 40;
    for (int s = 0; s < kSteps; ++s) {
        for (std::size_t i = 0; i < weights.size(); ++i)
            weights[i] = std::sin(float(i + s));
        float loss = 1.0f / float(s + 1);
        ASSERT_TRUE(rec->trace("layer/weight", weights.data(), wshape).isOk());
        ASSERT_TRUE(rec->trace<float>("loss", &loss, {}).isOk());
        counter = s * 11 - 5;
        ASSERT_TRUE(rec->commitStep(s == 0 ? 0 : -1 + s).isOk()); // gstep 0 and -1 edge cases
    }
    ASSERT_TRUE(rec->close().isOk());

    // Reference.
    xdl::WriterOptions wo;
    wo.outputDir = refDir;
    wo.fileName = "predict.trace";
    wo.rank = 3;
    wo.maxFileMB = 0.002;
    auto ref = xdl::FileSeriesWriter::create(wo, {"layer/weight", "loss", "counter", "config"});
    ASSERT_TRUE(ref.isOk());
    std::int64_t clock = 1700000000000;
    for (int s = 0; s < kSteps; ++s) {
        ::xdl::proto::Record r;
        std::int64_t gstep = s == 0 ? 0 : -1 + s;
        r.set_gstep(gstep);
        r.set_lstep(s + 1);
        for (std::size_t i = 0; i < weights.size(); ++i)
            weights[i] = std::sin(float(i + s));
        auto* w = r.add_column();
        w->set_dtype(::xdl::proto::Float);
        w->add_shape(4);
        w->add_shape(8);
        w->set_data(std::string(reinterpret_cast<const char*>(weights.data()), 32 * 4));
        float loss = 1.0f / float(s + 1);
        auto* l = r.add_column();
        l->set_dtype(::xdl::proto::Float);
        l->set_data(std::string(reinterpret_cast<const char*>(&loss), 4));
        std::int64_t cv[2] = {s * 11 - 5, -(s * 11 - 5)};
        auto* cc = r.add_column();
        cc->set_dtype(::xdl::proto::Int64);
        cc->add_shape(2);
        cc->set_data(std::string(reinterpret_cast<const char*>(cv), 16));
        auto* cfg = r.add_column();
        if (s == 0) {
            cfg->set_dtype(::xdl::proto::Int8);
            cfg->add_shape(6);
            cfg->set_data("lr=0.1");
        } else {
            cfg->set_dtype(::xdl::proto::Float);
            cfg->add_shape(0);
        }
        clock += 100;
        r.set_timestamp(clock);
        std::string body = r.SerializeAsString();
        std::string framed;
        xdl::appendLength(framed, static_cast<std::uint32_t>(body.size()));
        framed += body;
        ASSERT_TRUE((*ref)
                        ->write(xdl::Bytes(reinterpret_cast<const std::uint8_t*>(framed.data()),
                                           framed.size()),
                                gstep, s + 1, clock)
                        .isOk());
    }
    ASSERT_TRUE((*ref)->close().isOk());
    ASSERT_GE((*ref)->partIndex(), 3);

    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(refDir))
        names.push_back(e.path().filename().string());
    std::sort(names.begin(), names.end());
    std::vector<std::string> recNames, summaries; // the recorder adds each part's summary
    for (const auto& e : fs::directory_iterator(recDir))
        (e.path().extension() == ".xts" ? summaries : recNames)
            .push_back(e.path().filename().string());
    std::sort(recNames.begin(), recNames.end());
    EXPECT_EQ(names, recNames);
    EXPECT_EQ(summaries.size(), names.size() / 2);
    for (const auto& n : names)
        EXPECT_EQ(readFile(refDir + "/" + n), readFile(recDir + "/" + n)) << n;
}

TEST(Recorder, RolloverFinalisesEveryMeta) {
    TempDir dir;
    RecorderConfig c = configFor(dir.str());
    c.maxFileMB = 0.01;
    c.fsyncInterval = std::chrono::milliseconds(1); // exercises the writer's periodic sync
    auto rec = make(c);
    std::vector<double> v(200);
    const std::int64_t shape[] = {200};
    for (int s = 0; s < 30; ++s) {
        std::iota(v.begin(), v.end(), double(s));
        ASSERT_TRUE(rec->trace("v", v.data(), shape).isOk());
        ASSERT_TRUE(rec->commitStep(s * 2).isOk());
    }
    ASSERT_TRUE(rec->close().isOk());
    Diagnostics diag;
    auto run = openRun(dir.str(), diag);
    EXPECT_TRUE(diag.empty()) << diag.items().front().toString();
    const auto& rank = run.ranks().at(0);
    ASSERT_GE(rank.parts().size(), 3u);
    EXPECT_EQ(rank.recordCount(), 30u);
    std::int64_t nextLstep = 1;
    for (const auto& p : rank.parts()) {
        ASSERT_EQ(p->part().metaState, xdl::MetaState::Finalised) << p->part().path;
        const auto& recs = p->index().records();
        ASSERT_FALSE(recs.empty());
        EXPECT_EQ(p->part().meta.lstepBegin, nextLstep);
        EXPECT_EQ(p->part().meta.lstepEnd, recs.back().lstep);
        EXPECT_EQ(p->part().meta.gstepEnd, recs.back().gstep);
        EXPECT_EQ(p->part().meta.timestampBegin, recs.front().timestamp);
        EXPECT_EQ(p->index().keys(), std::vector<std::string>{"v"});
        nextLstep = recs.back().lstep + 1;
    }
    for (std::size_t i = 0; i < 30; ++i)
        EXPECT_EQ(rank.tensor(i, "v")->at<double>(7), double(i) + 7);
}

TEST(Recorder, ColumnOrderOnceCallbackAndSummary) {
    TempDir dir;
    auto rec = make(configFor(dir.str()));
    const std::int64_t mshape[] = {3, 2};
    float m[6];
    const std::int32_t seed = 42;
    ASSERT_TRUE(rec->traceOnce("seed", TensorRef{Dtype::Int32, {}, &seed}).isOk());
    int calls = 0;
    std::int32_t cb = 0;
    ASSERT_TRUE(rec->traceCallback("calls",
                                   [&]() -> Result<TensorRef> {
                                       cb = ++calls;
                                       return TensorRef{Dtype::Int32, {}, &cb};
                                   })
                    .isOk());
    // Mean over axis 0: [3, 2] -> [2].
    ASSERT_TRUE(rec->setSummary("m",
                                [](const TensorRef& t) -> Result<OwnedTensor> {
                                    const float* p = static_cast<const float*>(t.data);
                                    std::vector<float> mean(2, 0.0f);
                                    for (int r = 0; r < 3; ++r)
                                        for (int c = 0; c < 2; ++c)
                                            mean[c] += p[r * 2 + c] / 3.0f;
                                    return OwnedTensor::of<float>(mean, {2});
                                })
                    .isOk());
    for (int s = 0; s < 3; ++s) {
        for (int i = 0; i < 6; ++i)
            m[i] = float(i + s);
        ASSERT_TRUE(rec->trace("m", m, mshape).isOk());
        ASSERT_TRUE(rec->commitStep(s).isOk());
    }
    ASSERT_TRUE(rec->close().isOk());
    EXPECT_EQ(calls, 3);
    Diagnostics diag;
    auto run = openRun(dir.str(), diag);
    const auto& rank = run.ranks().at(0);
    EXPECT_EQ(rank.keys(), (std::vector<std::string>{"m", "calls", "seed"}));
    auto seed0 = rank.tensor(0, "seed");
    ASSERT_TRUE(seed0.isOk());
    EXPECT_EQ(seed0->at<std::int32_t>(0), 42);
    for (std::size_t s = 1; s < 3; ++s) {
        xdl::RecordView view;
        ASSERT_TRUE(rank.decode(s, view).isOk());
        const auto& col = view.columns.at(2);
        EXPECT_EQ(col.dtype(), Dtype::Float);
        EXPECT_EQ(col.shape.toString(), "[0]");
        EXPECT_TRUE(col.data.empty());
    }
    for (std::size_t s = 0; s < 3; ++s) {
        auto mean = rank.tensor(s, "m");
        ASSERT_TRUE(mean.isOk());
        EXPECT_EQ(mean->shape().toString(), "[2]");
        EXPECT_FLOAT_EQ(mean->at<float>(0), 2.0f + float(s));
        EXPECT_FLOAT_EQ(mean->at<float>(1), 3.0f + float(s));
        EXPECT_EQ(rank.tensor(s, "calls")->at<std::int32_t>(0), std::int32_t(s + 1));
    }
}

TEST(Recorder, EveryNStepsFilter) {
    TempDir dir;
    RecorderConfig c = configFor(dir.str());
    c.everyNSteps = 3;
    auto rec = make(c);
    int recorded = 0;
    std::int64_t v = 0; // borrowed by trace() until commitStep returns: must outlive both
    for (int s = 0; s < 10; ++s) {
        if (rec->isRecordedStep()) {
            ++recorded;
            v = s;
            ASSERT_TRUE(rec->trace<std::int64_t>("s", &v, {}).isOk());
        }
        ASSERT_TRUE(rec->commitStep(s).isOk());
    }
    ASSERT_TRUE(rec->close().isOk());
    EXPECT_EQ(recorded, 4);
    EXPECT_EQ(rec->stats().skippedSteps, 6u);
    Diagnostics diag;
    auto run = openRun(dir.str(), diag);
    const auto& rank = run.ranks().at(0);
    ASSERT_EQ(rank.recordCount(), 4u);
    for (std::size_t i = 0; i < 4; ++i) {
        EXPECT_EQ(rank.entry(i).lstep, std::int64_t(1 + 3 * i));
        EXPECT_EQ(rank.tensor(i, "s")->at<std::int64_t>(0), std::int64_t(3 * i));
    }
}

// A FIFO in place of the first data file stalls the writer thread deterministically: its write
// blocks until the test reads the other end.
struct StalledWriter {
    std::string dir;
    int readFd = -1;
    explicit StalledWriter(const std::string& d) : dir(d) {
        std::string fifo = dir + "/train.trace.0.1";
        EXPECT_EQ(::mkfifo(fifo.c_str(), 0644), 0);
        readFd = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
        EXPECT_GE(readFd, 0);
    }
    // Reads until the writer closes its end; returns the bytes read.
    std::uint64_t drain() {
        int flags = ::fcntl(readFd, F_GETFL);
        ::fcntl(readFd, F_SETFL, flags & ~O_NONBLOCK);
        std::vector<char> buf(1 << 16);
        std::uint64_t total = 0;
        for (;;) {
            ssize_t n = ::read(readFd, buf.data(), buf.size());
            if (n <= 0) break;
            total += std::uint64_t(n);
        }
        ::close(readFd);
        return total;
    }
};

TEST(Recorder, QueueFullDropCountsRecords) {
    TempDir dir;
    StalledWriter stall(dir.str());
    RecorderConfig c = configFor(dir.str());
    c.queueCapacity = 2;
    c.queueFull = QueueFullPolicy::Drop;
    auto rec = make(c);
    std::vector<float> big(100000); // 400 kB: more than a pipe holds
    const std::int64_t shape[] = {100000};
    constexpr int kSteps = 10;
    for (int s = 0; s < kSteps; ++s) {
        ASSERT_TRUE(rec->trace("big", big.data(), shape).isOk());
        ASSERT_TRUE(rec->commitStep(s).isOk());
    }
    // The writer is stuck inside the first record: at most 1 + capacity were accepted.
    RecorderStats st = rec->stats();
    EXPECT_LE(st.committed, 3u);
    EXPECT_EQ(st.committed + st.dropped, std::uint64_t(kSteps));
    EXPECT_GE(st.dropped, std::uint64_t(kSteps - 3));
    std::thread reader([&] { stall.drain(); });
    ASSERT_TRUE(rec->close().isOk());
    reader.join();
    st = rec->stats();
    EXPECT_EQ(st.written, st.committed);
}

TEST(Recorder, QueueFullBlockLosesNothing) {
    TempDir dir;
    StalledWriter stall(dir.str());
    RecorderConfig c = configFor(dir.str());
    c.queueCapacity = 1;
    auto rec = make(c);
    std::vector<float> big(100000);
    const std::int64_t shape[] = {100000};
    constexpr int kSteps = 6;
    std::atomic<std::uint64_t> drained{0};
    std::thread reader([&] {
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
        drained = stall.drain();
    });
    for (int s = 0; s < kSteps; ++s) {
        ASSERT_TRUE(rec->trace("big", big.data(), shape).isOk());
        ASSERT_TRUE(rec->commitStep(s).isOk());
    }
    ASSERT_TRUE(rec->close().isOk());
    reader.join();
    RecorderStats st = rec->stats();
    EXPECT_EQ(st.dropped, 0u);
    EXPECT_EQ(st.written, std::uint64_t(kSteps));
    EXPECT_GT(st.blockedTime.count(), 0);
    EXPECT_EQ(drained.load(), st.bytesWritten);
}

TEST(Recorder, UnwritableDirectoryIsRefused) {
    TempDir dir;
    std::string file = dir.str() + "/plain_file";
    std::ofstream(file) << "x";
    RecorderConfig c = configFor(file + "/sub");
    auto rec = Recorder::create(c);
    ASSERT_FALSE(rec.isOk());
    EXPECT_NE(rec.status().message().find("cannot create output directory"), std::string::npos)
        << rec.status().toString();
}

TEST(Recorder, MisuseIsReported) {
    TempDir dir;
    auto rec = make(configFor(dir.str()));
    EXPECT_EQ(rec->commitStep(0).code(), ErrorCode::InvalidArgument); // nothing traced
    float x = 1;
    const std::int64_t neg[] = {-1};
    const std::int64_t two[] = {2};
    EXPECT_EQ(rec->trace("x", TensorRef{Dtype::Float, neg, &x}).code(), ErrorCode::InvalidArgument);
    EXPECT_EQ(rec->trace("x", TensorRef{Dtype::Float, two, nullptr}).code(),
              ErrorCode::InvalidArgument);
    EXPECT_EQ(rec->trace("x", TensorRef{static_cast<Dtype>(9), {}, &x}).code(),
              ErrorCode::InvalidArgument);
    ASSERT_TRUE(rec->trace<float>("x", &x, {}).isOk());
    EXPECT_EQ(rec->traceOnce("x", TensorRef{Dtype::Float, {}, &x}).code(),
              ErrorCode::InvalidArgument); // same key twice
    ASSERT_TRUE(rec->commitStep(0).isOk());
    // The key set is fixed now.
    Status added = rec->trace<float>("y", &x, {});
    EXPECT_EQ(added.code(), ErrorCode::InvalidArgument);
    EXPECT_NE(added.message().find("key set is fixed"), std::string::npos) << added.message();
    EXPECT_EQ(rec->traceOnceText("z", "t").code(), ErrorCode::InvalidArgument);
    // A missing tensor key fails that step.
    Status missing = rec->commitStep(1);
    EXPECT_EQ(missing.code(), ErrorCode::InvalidArgument);
    EXPECT_NE(missing.message().find("'x' was not traced"), std::string::npos);
    // A dtype change fails too.
    double dx = 1;
    ASSERT_TRUE(rec->trace<double>("x", &dx, {}).isOk());
    Status dtype = rec->commitStep(2);
    EXPECT_EQ(dtype.code(), ErrorCode::InvalidArgument);
    EXPECT_NE(dtype.message().find("changed dtype"), std::string::npos) << dtype.message();
    // A shape change is fine.
    float xs[2] = {1, 2};
    ASSERT_TRUE(rec->trace("x", xs, two).isOk());
    ASSERT_TRUE(rec->commitStep(3).isOk());
    ASSERT_TRUE(rec->close().isOk());
    ASSERT_TRUE(rec->close().isOk()); // twice is safe
    EXPECT_EQ(rec->trace<float>("x", &x, {}).code(), ErrorCode::InvalidArgument);
    EXPECT_EQ(rec->commitStep(4).code(), ErrorCode::InvalidArgument);
    EXPECT_EQ(rec->stats().written, 2u);
}

// A file size limit makes write() fail with EFBIG in a child process: the error must come back
// from commitStep and close, and the files must end on a complete record.
TEST(Recorder, WriteFailureIsStickyAndFilesStayReadable) {
    TempDir dir;
    pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
        ::signal(SIGXFSZ, SIG_IGN);
        rlimit lim{300000, 300000};
        ::setrlimit(RLIMIT_FSIZE, &lim);
        auto r = Recorder::create(configFor(dir.str()));
        if (!r) ::_exit(10);
        std::vector<float> v(25000, 1.5f); // 100 kB records
        const std::int64_t shape[] = {25000};
        Status failed;
        for (int s = 0; s < 100 && failed.isOk(); ++s) {
            if (Status t = (*r)->trace("v", v.data(), shape); !t) ::_exit(11);
            failed = (*r)->commitStep(s);
            if (failed.isOk()) failed = (*r)->flush();
        }
        if (failed.isOk()) ::_exit(12);
        if (failed.message().find("recorder writer failed") == std::string::npos) ::_exit(13);
        Status closed = (*r)->close();
        if (closed.isOk()) ::_exit(14);
        if ((*r)->close().message() != closed.message()) ::_exit(15);
        ::_exit(0);
    }
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFEXITED(status));
    ASSERT_EQ(WEXITSTATUS(status), 0);
    Diagnostics diag;
    auto run = openRun(dir.str(), diag);
    EXPECT_EQ(diag.errorCount(), 0u);
    const auto& rank = run.ranks().at(0);
    EXPECT_EQ(rank.recordCount(), 2u); // 300 kB holds the header and two 100 kB records
    for (std::size_t i = 0; i < rank.recordCount(); ++i)
        EXPECT_EQ(rank.tensor(i, "v")->at<float>(123), 1.5f);
}

// A small tmpfs mounted for one test (needs root, as in CI containers); unmounted at the end.
class SmallFs {
public:
    explicit SmallFs(const std::string& options) {
        if (::geteuid() != 0 || m_dir.path().empty()) return;
        m_mounted = ::mount("tmpfs", m_dir.str().c_str(), "tmpfs", 0, options.c_str()) == 0;
    }
    ~SmallFs() {
        if (m_mounted) ::umount2(m_dir.str().c_str(), MNT_DETACH);
    }
    bool mounted() const { return m_mounted; }
    std::string str() const { return m_dir.str(); }
    bool remountReadOnly() {
        return ::mount("tmpfs", m_dir.str().c_str(), "tmpfs", MS_REMOUNT | MS_RDONLY, nullptr) == 0;
    }
    // Copies the files out (the tmpfs goes away with the object).
    void copyTo(const std::string& dest) const {
        fs::copy(m_dir.path(), dest, fs::copy_options::recursive);
    }

private:
    TempDir m_dir;
    bool m_mounted = false;
};

// Records 100 kB steps until the writer fails; returns how many commitStep calls succeeded.
int recordUntilFailure(Recorder& r, Status& failed, int maxSteps = 200) {
    std::vector<float> v(25000, 2.5f);
    const std::int64_t shape[] = {25000};
    int ok = 0;
    for (int s = 0; s < maxSteps && failed.isOk(); ++s) {
        if (Status t = r.trace("v", v.data(), shape); !t) {
            failed = t;
            break;
        }
        failed = r.commitStep(s);
        if (failed.isOk()) failed = r.flush();
        if (failed.isOk()) ++ok;
    }
    return ok;
}

// Checks that every record in `dir` is complete and readable and returns their number.
std::size_t readableRecords(const std::string& dir) {
    Diagnostics diag;
    auto run = openRun(dir, diag);
    EXPECT_EQ(diag.errorCount(), 0u);
    std::size_t n = 0;
    for (const auto& rank : run.ranks())
        for (std::size_t i = 0; i < rank.recordCount(); ++i, ++n)
            EXPECT_EQ(rank.tensor(i, "v")->at<float>(24999), 2.5f);
    return n;
}

// ENOSPC on a full filesystem, across a part rollover: NoSpace comes back from commitStep and
// close (sticky), and every record written before stays complete and readable.
TEST(Recorder, DiskFullIsStickyAndLosesNothingWritten) {
    SmallFs small("size=768k");
    if (!small.mounted()) GTEST_SKIP() << "needs root to mount a small tmpfs";
    RecorderConfig c = configFor(small.str());
    c.maxFileMB = 0.35; // a rollover before the disk fills
    auto r = make(c);
    Status failed;
    const int ok = recordUntilFailure(*r, failed);
    ASSERT_FALSE(failed.isOk());
    EXPECT_EQ(failed.code(), ErrorCode::NoSpace) << failed.toString();
    EXPECT_NE(failed.message().find("recorder writer failed"), std::string::npos);
    Status closed = r->close();
    EXPECT_EQ(closed.code(), ErrorCode::NoSpace);
    EXPECT_EQ(r->close().message(), closed.message());
    EXPECT_GE(ok, 4);
    TempDir copy;
    small.copyTo(copy.str());
    EXPECT_GE(readableRecords(copy.str()), std::size_t(ok));
    EXPECT_EQ(r->stats().written, readableRecords(copy.str()));
}

// The output directory stops being writable in the middle of a run (permissions changed under
// the job): the next part file cannot be created, the writer reports PermissionDenied, stays
// failed, and the records written before are intact. Runs in a child process as "nobody" when
// the tests run as root (root ignores mode bits).
TEST(Recorder, DirectoryTurningUnwritableIsStickyAndLosesNothingWritten) {
    TempDir dir;
    ASSERT_EQ(::chmod(dir.str().c_str(), 0777), 0);
    const std::string out = dir.str() + "/run";
    pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
        if (::geteuid() == 0 && (::setgid(65534) != 0 || ::setuid(65534) != 0)) ::_exit(10);
        RecorderConfig c = configFor(out);
        c.maxFileMB = 0.05; // every 100 kB record starts a new part
        auto r = Recorder::create(c);
        if (!r) ::_exit(11);
        Status failed;
        if (recordUntilFailure(**r, failed, 3) != 3) ::_exit(12);
        if (::chmod(out.c_str(), 0555) != 0) ::_exit(13);
        if (recordUntilFailure(**r, failed, 20) != 0) ::_exit(14);
        if (failed.code() != ErrorCode::PermissionDenied) ::_exit(15);
        if ((*r)->close().code() != ErrorCode::PermissionDenied) ::_exit(16);
        if ((*r)->stats().written != 3) ::_exit(17);
        ::_exit(0);
    }
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFEXITED(status));
    ASSERT_EQ(WEXITSTATUS(status), 0);
    ::chmod(out.c_str(), 0755);
    EXPECT_EQ(readableRecords(out), 3u);
}

// A recorder cannot start in a directory it may not write (a read-only mount; root ignores
// mode bits): create() says so.
TEST(Recorder, ReadOnlyDirectoryIsRefusedAtCreate) {
    SmallFs small("size=64k");
    if (!small.mounted()) GTEST_SKIP() << "needs root to mount a small tmpfs";
    ASSERT_TRUE(small.remountReadOnly());
    auto r = Recorder::create(configFor(small.str() + "/run"));
    ASSERT_FALSE(r.isOk());
    EXPECT_EQ(r.status().code(), ErrorCode::PermissionDenied) << r.status().toString();
}

TEST(Recorder, KillNineLeavesEveryCompleteRecordReadable) {
    TempDir dir;
    pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
        RecorderConfig c;
        c.outputDir = dir.str();
        c.maxFileMB = 0.5;
        auto r = Recorder::create(c);
        if (!r) ::_exit(10);
        std::vector<std::int32_t> v(3000);
        const std::int64_t shape[] = {3000};
        for (std::int64_t s = 0;; ++s) {
            for (std::size_t i = 0; i < v.size(); ++i)
                v[i] = std::int32_t(s * 7 + std::int64_t(i));
            if (!(*r)->trace("v", v.data(), shape)) ::_exit(11);
            if (!(*r)->commitStep(s)) ::_exit(12);
        }
    }
    // Let it write a few parts, then kill it mid-flight.
    for (int i = 0; i < 500; ++i) {
        std::error_code ec;
        if (fs::exists(dir.str() + "/train.trace.0.3", ec)) break;
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    ::kill(pid, SIGKILL);
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFSIGNALED(status)) << "child exited with " << WEXITSTATUS(status);
    Diagnostics diag;
    auto run = openRun(dir.str(), diag);
    for (const auto& d : diag.items())
        EXPECT_TRUE(d.code == "truncated-record" || d.severity != Severity::Error) << d.toString();
    const auto& rank = run.ranks().at(0);
    ASSERT_GE(rank.parts().size(), 3u);
    ASSERT_GT(rank.recordCount(), 10u);
    for (std::size_t i = 0; i < rank.recordCount(); ++i) {
        const auto& e = rank.entry(i);
        ASSERT_EQ(e.gstep, std::int64_t(i));
        ASSERT_EQ(e.lstep, std::int64_t(i + 1));
        auto t = rank.tensor(i, "v");
        ASSERT_TRUE(t.isOk()) << t.status().toString();
        ASSERT_EQ(t->size(), 3000u);
        ASSERT_EQ(t->at<std::int32_t>(0), std::int32_t(i * 7));
        ASSERT_EQ(t->at<std::int32_t>(2999), std::int32_t(i * 7 + 2999));
    }
}

} // namespace
} // namespace xt::recorder
