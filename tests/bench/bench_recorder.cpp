// P7/P8 (docs/BENCHMARKS.md): the recorder's cost on the step thread, its writer throughput and
// the delay until a live follower sees a record, each against a reference run in the same
// invocation.
//
//   bench_recorder [--benchmark_filter=...]   files go under $XT_BENCH_DIR (/tmp), removed after
//
// BM_Step/traced:0|1    one synthetic training step over 1 MB of float32 weights (20 or 100
//                       SGD-like passes), without and with tracing those 1 MB (trace + commit);
//                       summaries:0|1 without and with the parts' summaries (RecorderConfig).
// BM_TraceCommit1MB     trace + commitStep alone: the absolute step-thread cost per 1 MB.
// BM_RecorderWrite      1 MB records through the recorder until close(): bytes/s of the files
//                       (queue capacity 2 and 8 records; summaries off and on).
// BM_SummarizeRecord1MB the writer thread's extra work per 1 MB record with summaries on
//                       (statistics and sketch of its column, SummaryBuilder::add).
// BM_PlainWrite         the same bytes with a plain write() loop into one file.
// BM_CopyThenWrite      a copy on the caller's thread, the write on another (8 buffers).
// BM_FollowLatency      a record every 20 ms; counters p50_ms/p95_ms/max_ms from commitStep to
//                       the follower's update that includes it.
#include "core/recorder/recorder.h"
#include "core/summary/summary_builder.h"
#include "core/xdl/run_follower.h"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <mutex>
#include <thread>
#include <unistd.h>

using namespace xt;

namespace {

constexpr std::size_t kFloats = 1 << 18; // 1 MiB of float32
const std::int64_t kShape[] = {512, 512};

std::string benchDir(const std::string& name) {
    const char* d = std::getenv("XT_BENCH_DIR");
    std::string dir = std::string(d ? d : "/tmp") + "/xt_bench_recorder_" + name;
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    return dir;
}

std::unique_ptr<recorder::Recorder> makeRecorder(const std::string& dir, double maxMB = 300,
                                                 std::size_t queue = 8, bool summaries = true) {
    recorder::RecorderConfig c;
    c.outputDir = dir;
    c.maxFileMB = maxMB;
    c.queueCapacity = queue;
    c.writeSummaries = summaries;
    auto r = recorder::Recorder::create(c);
    if (!r) {
        std::fprintf(stderr, "%s\n", r.status().toString().c_str());
        std::exit(1);
    }
    return std::move(*r);
}

// A stand-in for a training step's compute: a few passes of an SGD-like update over 1 MB.
void computeStep(std::vector<float>& w, std::vector<float>& g, int passes) {
    for (int p = 0; p < passes; ++p)
        for (std::size_t i = 0; i < w.size(); ++i) {
            g[i] = 0.999f * g[i] + 0.001f * w[i];
            w[i] -= 0.01f * g[i];
        }
    benchmark::DoNotOptimize(w.data());
}

void BM_Step(benchmark::State& state) {
    const bool traced = state.range(0) != 0;
    const int passes = static_cast<int>(state.range(1));
    const bool summaries = state.range(2) != 0;
    std::vector<float> w(kFloats, 0.5f), g(kFloats, 0.0f);
    std::string dir = benchDir("step");
    auto rec = traced ? makeRecorder(dir, 100, 8, summaries) : nullptr;
    std::int64_t step = 0;
    for (auto _ : state) {
        computeStep(w, g, passes);
        if (traced) {
            if (!rec->trace("layer/weight", w.data(), kShape) || !rec->commitStep(step))
                state.SkipWithError("recorder failed");
        }
        ++step;
    }
    if (rec) {
        auto st = rec->stats();
        state.counters["dropped"] = static_cast<double>(st.dropped);
        state.counters["blocked_ms"] =
            std::chrono::duration<double, std::milli>(st.blockedTime).count();
        (void)rec->close();
    }
    std::filesystem::remove_all(dir);
}
BENCHMARK(BM_Step)
    ->Args({0, 20, 0})
    ->Args({1, 20, 0})
    ->Args({1, 20, 1})
    ->Args({0, 100, 0})
    ->Args({1, 100, 0})
    ->Args({1, 100, 1})
    ->ArgNames({"traced", "passes", "summaries"})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->MinTime(3.0);

void BM_TraceCommit1MB(benchmark::State& state) {
    std::vector<float> w(kFloats, 0.25f);
    std::string dir = benchDir("commit");
    auto rec = makeRecorder(dir, 100, 8, state.range(0) != 0);
    std::int64_t step = 0;
    for (auto _ : state) {
        if (!rec->trace("layer/weight", w.data(), kShape) || !rec->commitStep(step++))
            state.SkipWithError("recorder failed");
    }
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * kFloats * 4));
    auto st = rec->stats();
    state.counters["blocked_ms"] =
        std::chrono::duration<double, std::milli>(st.blockedTime).count();
    (void)rec->close();
    std::filesystem::remove_all(dir);
}
BENCHMARK(BM_TraceCommit1MB)
    ->Arg(0)
    ->Arg(1)
    ->ArgName("summaries")
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();

constexpr int kRecords = 512; // 512 MiB per iteration

void BM_RecorderWrite(benchmark::State& state) {
    std::vector<float> w(kFloats, 1.0f);
    for (auto _ : state) {
        state.PauseTiming();
        std::string dir = benchDir("write");
        state.ResumeTiming();
        auto rec =
            makeRecorder(dir, 300, static_cast<std::size_t>(state.range(0)), state.range(1) != 0);
        for (int s = 0; s < kRecords; ++s)
            if (!rec->trace("layer/weight", w.data(), kShape) || !rec->commitStep(s))
                state.SkipWithError("recorder failed");
        if (!rec->close()) state.SkipWithError("close failed");
        state.PauseTiming();
        std::filesystem::remove_all(dir);
        state.ResumeTiming();
    }
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * kRecords *
                            static_cast<std::int64_t>(kFloats * 4));
}
BENCHMARK(BM_RecorderWrite)
    ->ArgsProduct({{2, 8}, {0, 1}})
    ->ArgNames({"queue", "summaries"})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->MinTime(3.0);

void BM_SummarizeRecord1MB(benchmark::State& state) {
    std::vector<float> w(kFloats);
    for (std::size_t i = 0; i < w.size(); ++i)
        w[i] = float(i % 977) * 0.01f - 3.0f;
    xdl::RecordEncoder enc;
    enc.begin(1, 1);
    enc.addColumn(xdl::Dtype::Float, kShape,
                  {reinterpret_cast<const std::uint8_t*>(w.data()), w.size() * 4});
    if (!enc.finish(0)) state.SkipWithError("encode failed");
    const xdl::Bytes message = enc.framed().subspan(4);
    summary::PartSummary s;
    summary::SummaryBuilder builder(s);
    Diagnostics diag;
    for (auto _ : state) {
        s.records.built().assign(1, xdl::RecordEntry{4, std::uint32_t(message.size()), 1, 1, 1, 0});
        s.columns.built().clear();
        s.sketches.clear();
        builder.add(0, message, diag, "bench");
    }
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * kFloats * 4));
}
BENCHMARK(BM_SummarizeRecord1MB)->Unit(benchmark::kMicrosecond);

void BM_PlainWrite(benchmark::State& state) {
    std::vector<char> buf(kFloats * 4 + 40, 1);
    for (auto _ : state) {
        state.PauseTiming();
        std::string dir = benchDir("plain");
        state.ResumeTiming();
        int fd = ::open((dir + "/plain").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        for (int s = 0; s < kRecords; ++s)
            if (::write(fd, buf.data(), buf.size()) != static_cast<ssize_t>(buf.size()))
                state.SkipWithError("write failed");
        ::close(fd);
        state.PauseTiming();
        std::filesystem::remove_all(dir);
        state.ResumeTiming();
    }
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * kRecords *
                            static_cast<std::int64_t>(kFloats * 4));
}
BENCHMARK(BM_PlainWrite)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(3.0);

// The least an asynchronous recorder can do: the caller copies each record into one of 8
// recycled buffers (its tensor may change once trace() returns) and a second thread writes them.
// No encoding, no parts, no metas: the reference for how close BM_RecorderWrite comes.
void BM_CopyThenWrite(benchmark::State& state) {
    constexpr std::size_t kBuffers = 8;
    const std::vector<char> src(kFloats * 4 + 40, 1);
    std::vector<std::vector<char>> bufs(kBuffers, std::vector<char>(src.size()));
    for (auto _ : state) {
        state.PauseTiming();
        std::string dir = benchDir("copy");
        state.ResumeTiming();
        int fd = ::open((dir + "/plain").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        std::mutex m;
        std::condition_variable cv;
        int filled = 0, written = 0; // records copied, records written
        bool failed = false;
        std::thread writer([&] {
            for (int s = 0; s < kRecords; ++s) {
                {
                    std::unique_lock lock(m);
                    cv.wait(lock, [&] { return filled > s; });
                }
                const auto& b = bufs[std::size_t(s) % kBuffers];
                if (::write(fd, b.data(), b.size()) != static_cast<ssize_t>(b.size()))
                    failed = true;
                std::lock_guard lock(m);
                ++written;
                cv.notify_all();
            }
        });
        for (int s = 0; s < kRecords; ++s) {
            {
                std::unique_lock lock(m);
                cv.wait(lock, [&] { return s - written < int(kBuffers); });
            }
            std::memcpy(bufs[std::size_t(s) % kBuffers].data(), src.data(), src.size());
            std::lock_guard lock(m);
            ++filled;
            cv.notify_all();
        }
        writer.join();
        ::close(fd);
        if (failed) state.SkipWithError("write failed");
        state.PauseTiming();
        std::filesystem::remove_all(dir);
        state.ResumeTiming();
    }
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * kRecords *
                            static_cast<std::int64_t>(kFloats * 4));
}
BENCHMARK(BM_CopyThenWrite)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(3.0);

void BM_FollowLatency(benchmark::State& state) {
    using Clock = std::chrono::steady_clock;
    const bool inotify = state.range(0) != 0;
    constexpr int kN = 100;
    std::vector<double> latencies;
    for (auto _ : state) {
        std::string dir = benchDir("follow");
        std::mutex m;
        std::condition_variable cv;
        std::vector<Clock::time_point> committed(kN), seen(kN);
        std::size_t seenCount = 0;
        xdl::FollowOptions options;
        options.useInotify = inotify;
        auto follower = xdl::RunFollower::start(
            dir, "train", "trace",
            [&](const xdl::FollowUpdate& u) {
                auto now = Clock::now();
                std::lock_guard lock(m);
                while (seenCount < u.totalRecords && seenCount < kN)
                    seen[seenCount++] = now;
                cv.notify_all();
            },
            options);
        if (!follower) {
            state.SkipWithError("follower failed");
            break;
        }
        auto rec = makeRecorder(dir);
        std::vector<float> v(1 << 14, 1.0f); // 64 kB records
        const std::int64_t shape[] = {1 << 14};
        for (int s = 0; s < kN; ++s) {
            (void)rec->trace("v", v.data(), shape);
            committed[static_cast<std::size_t>(s)] = Clock::now();
            (void)rec->commitStep(s);
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
        }
        {
            std::unique_lock lock(m);
            cv.wait_for(lock, std::chrono::seconds(5), [&] { return seenCount == kN; });
        }
        (*follower)->stop();
        (void)rec->close();
        for (std::size_t i = 0; i < seenCount; ++i)
            latencies.push_back(
                std::chrono::duration<double, std::milli>(seen[i] - committed[i]).count());
        std::filesystem::remove_all(dir);
    }
    std::sort(latencies.begin(), latencies.end());
    auto pct = [&](double p) {
        return latencies.empty()
                   ? -1.0
                   : latencies[std::min(latencies.size() - 1,
                                        static_cast<std::size_t>(p * latencies.size()))];
    };
    state.counters["p50_ms"] = pct(0.50);
    state.counters["p95_ms"] = pct(0.95);
    state.counters["max_ms"] = latencies.empty() ? -1.0 : latencies.back();
    state.counters["seen"] = static_cast<double>(latencies.size());
}
BENCHMARK(BM_FollowLatency)
    ->Arg(1)
    ->Arg(0)
    ->ArgName("inotify")
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

} // namespace

BENCHMARK_MAIN();
