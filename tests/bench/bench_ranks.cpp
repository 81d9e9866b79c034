// P13 (PERFORMANCE.md): a multi-rank profile, XT_BENCH_RANKS (default 8) generated Kineto-like
// traces of XT_BENCH_MB (default 100) MB each, written to /tmp once (kept for later runs;
// XT_BENCH_CLEAN=1 removes them at the end). Each rank has two streams (compute kernels, and
// NCCL collectives overlapping them), memcpys, launches with correlation ids, flows and
// ProfilerSteps; rank r's collectives are shorter on some steps and one rank is a straggler.
//
//  * BM_ImportRanks: importRanks (parallel, one thread per core) of all ranks.
//  * BM_AnalyzeRanks: analyzeRanks (every per-rank analysis and the cross-rank ones) over the
//    session imported by BM_ImportRanks; its counters give the ratio to the import time and the
//    bytes per event of the stores plus the analysis results.
// Wall times (real_time); the process CPU time of each phase is a counter.
#include "core/timeline/rank_session.h"

#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>

using namespace xt::timeline;

namespace {

using Clock = std::chrono::steady_clock;

std::size_t envSize(const char* name, std::size_t fallback) {
    const char* v = std::getenv(name);
    return v && *v ? std::strtoull(v, nullptr, 10) : fallback;
}

double cpuSeconds() {
    timespec ts{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return double(ts.tv_sec) + double(ts.tv_nsec) * 1e-9;
}

std::uint64_t statusKb(const char* key) {
    std::ifstream f("/proc/self/status");
    std::string line;
    const std::size_t n = std::strlen(key);
    while (std::getline(f, line))
        if (line.compare(0, n, key) == 0) return std::strtoull(line.c_str() + n + 1, nullptr, 10);
    return 0;
}

void resetPeakRss() {
    std::ofstream f("/proc/self/clear_refs");
    f << "5";
}

// One rank's Kineto-like trace of about `mb` MB (pretty-printed like PyTorch's exporter).
std::string writeRank(int rank, int ranks, std::size_t mb) {
    const std::string path =
        "/tmp/xt_bench_ranks_" + std::to_string(mb) + "mb_rank" + std::to_string(rank) + ".json";
    std::error_code ec;
    if (std::filesystem::exists(path, ec) && std::filesystem::file_size(path, ec) >= mb * 1000000)
        return path;
    FILE* f = std::fopen(path.c_str(), "w");
    if (!f) return {};
    std::fprintf(f,
                 "{\n  \"schemaVersion\": 1,\n  \"distributedInfo\": {\"backend\": \"nccl\", "
                 "\"rank\": %d, \"world_size\": %d},\n  \"traceEvents\": [\n",
                 rank, ranks);
    std::mt19937_64 rng(1234 + std::uint64_t(rank));
    static const char* kOps[] = {"aten::linear",     "aten::addmm", "aten::relu",  "aten::conv2d",
                                 "aten::batch_norm", "aten::add_",  "aten::copy_", "aten::mm"};
    static const char* kKernels[] = {
        "volta_sgemm_128x64_nn",
        "void at::native::vectorized_elementwise_kernel<4, "
        "at::native::AddFunctor<float>>(int, at::native::AddFunctor<float>)",
        "cudnn::bn_fw_tr_1C11_kernel_NCHW", "void at::native::reduce_kernel<512, 1>"};
    const char* kNccl = "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)";
    std::int64_t ts = 1700000000000000 + rank * 1000; // clocks a little apart
    std::int64_t gpuFree[2] = {0, 0};                 // per stream: when it is idle again
    std::uint64_t corr = 1;
    std::size_t written = 0;
    int step = 0;
    char buf[2048];
    bool first = true;
    auto emit = [&](int n) {
        if (!first) std::fputs(",\n", f);
        first = false;
        std::fwrite(buf, 1, static_cast<std::size_t>(n), f);
        written += static_cast<std::size_t>(n) + 2;
    };
    constexpr int kPerStep = 2000;
    while (written < mb * 1000000) {
        const int i = int(corr % kPerStep);
        if (i == 1) {
            // The step marker spans its launches; the straggler rank is slower on odd steps.
            std::int64_t len = kPerStep * 40;
            if (rank == ranks / 2 + 1 && step % 2) len += 3000;
            emit(std::snprintf(buf, sizeof buf,
                               "  {\n    \"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": "
                               "\"ProfilerStep#%d\", \"pid\": 100, \"tid\": 100,\n    \"ts\": "
                               "%lld, \"dur\": %lld,\n    \"args\": {\n      \"External id\": "
                               "%llu\n    }\n  }",
                               step, static_cast<long long>(ts), static_cast<long long>(len),
                               static_cast<unsigned long long>(corr)));
            if (rank == ranks / 2 + 1 && step % 2) ts += 3000;
            ++step;
        }
        const bool collective = i % 25 == 0;
        const char* op = collective ? "record_param_comms" : kOps[rng() % 8];
        const int opDur = 20 + static_cast<int>(rng() % 20);
        emit(std::snprintf(
            buf, sizeof buf,
            "  {\n    \"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"%s\", \"pid\": "
            "100, \"tid\": 100,\n    \"ts\": %lld, \"dur\": %d,\n    \"args\": {\n"
            "      \"External id\": %llu, \"Sequence number\": %llu, \"Fwd thread "
            "id\": 0, \"Record function id\": 0, \"Ev Idx\": %llu\n    }\n  }",
            op, static_cast<long long>(ts), opDur, static_cast<unsigned long long>(corr),
            static_cast<unsigned long long>(corr * 3), static_cast<unsigned long long>(corr)));
        const std::int64_t launch = ts + 5;
        emit(std::snprintf(buf, sizeof buf,
                           "  {\n    \"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": "
                           "\"cudaLaunchKernel\", \"pid\": 100, \"tid\": 100,\n    \"ts\": "
                           "%lld, \"dur\": 6,\n    \"args\": {\n      \"cbid\": 211, "
                           "\"correlation\": %llu, \"external id\": %llu\n    }\n  }",
                           static_cast<long long>(launch), static_cast<unsigned long long>(corr),
                           static_cast<unsigned long long>(corr)));
        emit(std::snprintf(buf, sizeof buf,
                           "  {\n    \"ph\": \"s\", \"id\": %llu, \"pid\": 100, \"tid\": 100, "
                           "\"ts\": %lld,\n    \"cat\": \"ac2g\", \"name\": \"launch\"\n  }",
                           static_cast<unsigned long long>(corr), static_cast<long long>(launch)));
        const int s = collective ? 1 : 0;
        const int stream = collective ? 13 : 7;
        const std::int64_t start = std::max(launch + 8, gpuFree[s]) + std::int64_t(rng() % 3);
        // Collectives: the ranks that arrive early wait, so their kernels run longer.
        const int dur = collective ? 150 + static_cast<int>((rng() + rank * 7919) % 120)
                                   : 15 + static_cast<int>(rng() % 30);
        const char* name = collective    ? kNccl
                           : i % 97 == 0 ? "Memcpy DtoD (Device -> Device)"
                                         : kKernels[rng() % 4];
        const char* cat = i % 97 == 0 && !collective ? "gpu_memcpy" : "kernel";
        gpuFree[s] = start + dur;
        emit(std::snprintf(buf, sizeof buf,
                           "  {\n    \"ph\": \"X\", \"cat\": \"%s\", \"name\": \"%s\", \"pid\": "
                           "0, \"tid\": %d,\n    \"ts\": %lld, \"dur\": %d,\n    "
                           "\"args\": {\n      \"queued\": 0, \"device\": 0, \"context\": 1, "
                           "\"stream\": %d, \"correlation\": %llu, \"registers per thread\": 32, "
                           "\"shared memory\": 0, \"grid\": [64, 1, 1], \"block\": [128, 1, 1], "
                           "\"est. achieved occupancy %%\": 25\n    }\n  }",
                           cat, name, stream, static_cast<long long>(start), dur, stream,
                           static_cast<unsigned long long>(corr)));
        emit(std::snprintf(buf, sizeof buf,
                           "  {\n    \"ph\": \"f\", \"id\": %llu, \"pid\": 0, \"tid\": %d, \"ts\": "
                           "%lld,\n    \"cat\": \"ac2g\", \"name\": \"launch\", \"bp\": \"e\"\n  }",
                           static_cast<unsigned long long>(corr), stream,
                           static_cast<long long>(start)));
        ts += 40;
        ++corr;
    }
    std::fputs("\n  ],\n  \"traceName\": \"bench\"\n}\n", f);
    std::fclose(f);
    return path;
}

const std::vector<std::string>& rankFiles() {
    static const std::vector<std::string> files = [] {
        const int ranks = int(envSize("XT_BENCH_RANKS", 8));
        const std::size_t mb = envSize("XT_BENCH_MB", 100);
        std::vector<std::string> out;
        for (int r = 0; r < ranks; ++r)
            out.push_back(writeRank(r, ranks, mb));
        return out;
    }();
    return files;
}

// Bytes held by the analysis results (not counting the stores they were computed from).
std::size_t analysisBytes(const SessionAnalysis& a) {
    std::size_t n = sizeof(SessionAnalysis);
    for (const RankAnalysis& r : a.perRank) {
        n += sizeof(RankAnalysis) + r.idle.capacity() * sizeof(StreamIdle) +
             r.kernels.capacity() * sizeof(KernelStats) + r.steps.capacity() * sizeof(RankStep) +
             r.collectives.capacity() * sizeof(Collective);
        for (const auto& k : r.kernels)
            n += k.name.capacity();
        for (const auto& s : r.steps)
            n += s.name.capacity();
        for (const auto& c : r.collectiveNames)
            n += sizeof(std::string) + c.capacity();
    }
    for (const StepStraggler& s : a.steps)
        n += sizeof(StepStraggler) + s.durByRank.capacity() * 16 + s.name.capacity();
    for (const TopKernel& t : a.topKernels)
        n += sizeof(TopKernel) + t.ranks.capacity() * sizeof(std::pair<int, KernelStats>);
    return n;
}

struct Imported {
    RankSession session;
    double wallS = 0, cpuS = 0;
    std::uint64_t events = 0, storeBytes = 0, jsonBytes = 0;
};
std::unique_ptr<Imported> g_imported;

void BM_ImportRanks(benchmark::State& state) {
    const auto& files = rankFiles();
    for (const auto& f : files)
        if (f.empty()) {
            state.SkipWithError("cannot write the traces under /tmp");
            return;
        }
    double peakExtraMb = 0;
    for (auto _ : state) {
        g_imported.reset();
        resetPeakRss();
        const std::uint64_t rss0 = statusKb("VmRSS:");
        const double c0 = cpuSeconds();
        const auto t0 = Clock::now();
        auto session = importRanks(files);
        const double wall = std::chrono::duration<double>(Clock::now() - t0).count();
        if (!session) {
            state.SkipWithError(session.status().toString().c_str());
            return;
        }
        auto imp = std::make_unique<Imported>();
        imp->wallS = wall;
        imp->cpuS = cpuSeconds() - c0;
        for (const RankTrace& r : session->ranks) {
            imp->events += r.store->report().events;
            imp->storeBytes += r.store->residentBytes();
            imp->jsonBytes += r.store->report().jsonBytes;
        }
        imp->session = std::move(session.value());
        peakExtraMb = double(statusKb("VmHWM:") - rss0) / 1024.0;
        g_imported = std::move(imp);
        state.SetIterationTime(wall);
    }
    state.counters["ranks"] = double(files.size());
    state.counters["json_MB"] = double(g_imported->jsonBytes) / 1e6;
    state.counters["events"] = double(g_imported->events);
    state.counters["import_cpu_s"] = g_imported->cpuS;
    state.counters["import_MBps"] = double(g_imported->jsonBytes) / 1e6 / g_imported->wallS;
    state.counters["store_B_per_event"] =
        double(g_imported->storeBytes) / double(g_imported->events);
    state.counters["peak_extra_rss_MB"] = peakExtraMb;
}

void BM_AnalyzeRanks(benchmark::State& state) {
    if (!g_imported) {
        state.SkipWithError("run BM_ImportRanks first");
        return;
    }
    double wall = 0, cpu = 0, peakExtraMb = 0;
    std::size_t resultBytes = 0;
    std::size_t stragglers = 0;
    for (auto _ : state) {
        resetPeakRss();
        const std::uint64_t rss0 = statusKb("VmRSS:");
        const double c0 = cpuSeconds();
        const auto t0 = Clock::now();
        SessionAnalysis a = analyzeRanks(g_imported->session);
        wall = std::chrono::duration<double>(Clock::now() - t0).count();
        cpu = cpuSeconds() - c0;
        peakExtraMb = double(statusKb("VmHWM:") - rss0) / 1024.0;
        resultBytes = analysisBytes(a);
        stragglers = 0;
        for (const StepStraggler& s : a.steps)
            stragglers += s.skewNs > 0;
        benchmark::DoNotOptimize(a.perRank.data());
        state.SetIterationTime(wall);
    }
    const double events = double(g_imported->events);
    state.counters["analysis_cpu_s"] = cpu;
    state.counters["analysis_over_import_wall"] = wall / g_imported->wallS;
    state.counters["analysis_over_import_cpu"] = cpu / g_imported->cpuS;
    state.counters["import_plus_analysis_over_import"] =
        (g_imported->wallS + wall) / g_imported->wallS;
    state.counters["analysis_B_per_event"] = double(resultBytes) / events;
    state.counters["total_B_per_event"] = double(g_imported->storeBytes + resultBytes) / events;
    state.counters["peak_extra_rss_MB"] = peakExtraMb;
    state.counters["steps_with_skew"] = double(stragglers);
    if (std::getenv("XT_BENCH_CLEAN"))
        for (const auto& f : rankFiles())
            std::remove(f.c_str());
}

} // namespace

BENCHMARK(BM_ImportRanks)->Unit(benchmark::kMillisecond)->UseManualTime()->Iterations(1);
BENCHMARK(BM_AnalyzeRanks)->Unit(benchmark::kMillisecond)->UseManualTime()->Iterations(1);
BENCHMARK_MAIN();
