// P4 / P5 benchmarks (docs/BENCHMARKS.md).
//  * Import of a generated Kineto-like trace (XT_BENCH_MB, default 1024 MB, written to /tmp at
//    run time and removed afterwards) and of the largest corpus files. Each import is paired
//    with two references over the same bytes in the same run: memcpy, and a raw simdjson
//    On-Demand pass that touches every event's "ph" (valid JSON only). Counters: MB/s of JSON
//    text, ratios to the references, peak extra RSS, store bytes per event.
//  * LOD: 10M slices on 16 tracks, one full-screen query (2000 px, every track) at several zooms.
#include "core/timeline/chrome_trace_reader.h"
#include "core/timeline/lod_index.h"

#include <benchmark/benchmark.h>
#include <simdjson.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>
#include <string>

using namespace xt::timeline;

namespace {

using Clock = std::chrono::steady_clock;

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

// Writes a Kineto-like trace (pretty-printed like PyTorch's exporter) of about `mb` MB.
std::string generateKinetoTrace(std::size_t mb) {
    const std::string path = "/tmp/xt_bench_kineto_" + std::to_string(mb) + "mb.json";
    FILE* f = std::fopen(path.c_str(), "w");
    if (!f) return {};
    std::fputs("{\n  \"schemaVersion\": 1,\n  \"deviceProperties\": [],\n  \"traceEvents\": [\n",
               f);
    std::mt19937_64 rng(42);
    static const char* kOps[] = {"aten::linear",     "aten::addmm", "aten::relu",  "aten::conv2d",
                                 "aten::batch_norm", "aten::add_",  "aten::copy_", "aten::mm"};
    static const char* kKernels[] = {
        "volta_sgemm_128x64_nn",
        "void at::native::vectorized_elementwise_kernel<4, "
        "at::native::AddFunctor<float>>(int, at::native::AddFunctor<float>)",
        "ncclKernel_AllReduce_RING_LL_Sum_float", "cudnn::bn_fw_tr_1C11_kernel_NCHW"};
    std::int64_t ts = 1623143093553182;
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
    while (written < mb * 1000000) {
        if (corr % 2000 == 1)
            emit(std::snprintf(
                buf, sizeof buf,
                "  {\n    \"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": "
                "\"ProfilerStep#%d\", \"pid\": 25738, \"tid\": 25738,\n    \"ts\": "
                "%lld, \"dur\": %d,\n    \"args\": {\n      \"External id\": %llu\n    }\n  }",
                step++, static_cast<long long>(ts), 2000 * 40,
                static_cast<unsigned long long>(corr)));
        const char* op = kOps[rng() % 8];
        const int opDur = 20 + static_cast<int>(rng() % 20);
        emit(std::snprintf(
            buf, sizeof buf,
            "  {\n    \"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"%s\", \"pid\": "
            "25738, \"tid\": 25738,\n    \"ts\": %lld, \"dur\": %d,\n    \"args\": {\n"
            "      \"External id\": %llu, \"Sequence number\": %llu, \"Fwd thread "
            "id\": 0, \"Record function id\": 0, \"Ev Idx\": %llu\n    }\n  }",
            op, static_cast<long long>(ts), opDur, static_cast<unsigned long long>(corr),
            static_cast<unsigned long long>(corr * 3), static_cast<unsigned long long>(corr)));
        emit(std::snprintf(buf, sizeof buf,
                           "  {\n    \"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": "
                           "\"cudaLaunchKernel\", \"pid\": 25738, \"tid\": 25738,\n    \"ts\": "
                           "%lld, \"dur\": 6,\n    \"args\": {\n      \"cbid\": 211, "
                           "\"correlation\": %llu, \"external id\": %llu\n    }\n  }",
                           static_cast<long long>(ts + 5), static_cast<unsigned long long>(corr),
                           static_cast<unsigned long long>(corr)));
        emit(std::snprintf(buf, sizeof buf,
                           "  {\n    \"ph\": \"s\", \"id\": %llu, \"pid\": 25738, \"tid\": 25738, "
                           "\"ts\": %lld,\n    \"cat\": \"ac2g\", \"name\": \"launch\"\n  }",
                           static_cast<unsigned long long>(corr), static_cast<long long>(ts + 5)));
        const int stream = 7 + static_cast<int>(rng() % 2);
        emit(std::snprintf(
            buf, sizeof buf,
            "  {\n    \"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"%s\", \"pid\": "
            "0, \"tid\": \"stream %d\",\n    \"ts\": %lld, \"dur\": %d,\n    "
            "\"args\": {\n      \"queued\": 0, \"device\": 0, \"context\": 1, "
            "\"stream\": %d, \"correlation\": %llu, \"registers per thread\": 32, "
            "\"shared memory\": 0, \"grid\": [64, 1, 1], \"block\": [128, 1, 1], "
            "\"est. achieved occupancy %%\": 25\n    }\n  }",
            kKernels[rng() % 4], stream, static_cast<long long>(ts + 12),
            15 + static_cast<int>(rng() % 30), stream, static_cast<unsigned long long>(corr)));
        emit(std::snprintf(buf, sizeof buf,
                           "  {\n    \"ph\": \"f\", \"id\": %llu, \"pid\": 0, \"tid\": \"stream "
                           "%d\", \"ts\": %lld,\n    \"cat\": \"ac2g\", \"name\": \"launch\", "
                           "\"bp\": \"e\"\n  }",
                           static_cast<unsigned long long>(corr), stream,
                           static_cast<long long>(ts + 12)));
        ts += 40;
        ++corr;
    }
    std::fputs("\n  ],\n  \"traceName\": \"bench\"\n}\n", f);
    std::fclose(f);
    return path;
}

// Reference: simdjson On-Demand over the whole document, reading every event's "ph".
std::uint64_t rawSimdjsonPass(const simdjson::padded_string& json, bool& ok) {
    simdjson::ondemand::parser parser;
    simdjson::ondemand::document doc;
    std::uint64_t n = 0;
    ok = false;
    if (parser.iterate(json).get(doc)) return 0;
    simdjson::ondemand::array events;
    simdjson::ondemand::value root;
    if (doc.get_value().get(root)) return 0;
    simdjson::ondemand::json_type t;
    if (root.type().get(t)) return 0;
    if (t == simdjson::ondemand::json_type::array) {
        if (root.get_array().get(events)) return 0;
    } else if (root.find_field_unordered("traceEvents").get_array().get(events)) {
        return 0;
    }
    for (auto ev : events) {
        std::string_view ph;
        if (ev.find_field_unordered("ph").get_string().get(ph)) return n;
        n += ph.size();
    }
    ok = true;
    return n;
}

void importBenchmark(benchmark::State& state, const std::string& path,
                     const ImportOptions& options = {}) {
    // References over the same bytes, taken once per run next to the import timing.
    auto bytes = TraceBytes::load(path);
    if (!bytes) {
        state.SkipWithError(bytes.status().toString().c_str());
        return;
    }
    const std::string_view text = bytes->text();
    const double mb = static_cast<double>(text.size()) / 1e6;
    std::string copy(text.size(), '\0');
    auto t0 = Clock::now();
    std::memcpy(copy.data(), text.data(), text.size());
    benchmark::DoNotOptimize(copy.data());
    const double memcpyS = std::chrono::duration<double>(Clock::now() - t0).count();
    copy = {};
    simdjson::padded_string padded(text);
    bool rawOk = false;
    t0 = Clock::now();
    benchmark::DoNotOptimize(rawSimdjsonPass(padded, rawOk));
    const double rawS = std::chrono::duration<double>(Clock::now() - t0).count();
    padded = simdjson::padded_string();
    bytes = xt::Result<TraceBytes>(TraceBytes{});

    double importS = 0, peakExtraMb = 0, anonMb = 0, bytesPerEvent = 0, events = 0;
    for (auto _ : state) {
        resetPeakRss();
        const std::uint64_t rss0 = statusKb("VmRSS:");
        t0 = Clock::now();
        auto store = importChromeTrace(path, options);
        importS = std::chrono::duration<double>(Clock::now() - t0).count();
        if (!store) {
            state.SkipWithError(store.status().toString().c_str());
            return;
        }
        peakExtraMb = static_cast<double>(statusKb("VmHWM:") - rss0) / 1024.0;
        anonMb = static_cast<double>(statusKb("RssAnon:")) / 1024.0;
        events = static_cast<double>(store->report().events);
        bytesPerEvent = static_cast<double>(store->residentBytes()) / events;
        state.SetIterationTime(importS);
    }
    state.counters["json_MB"] = mb;
    state.counters["import_MBps"] = mb / importS;
    state.counters["memcpy_MBps"] = mb / memcpyS;
    state.counters["ratio_vs_memcpy"] = memcpyS / importS;
    if (rawOk) {
        state.counters["raw_simdjson_MBps"] = mb / rawS;
        state.counters["ratio_vs_raw_simdjson"] = rawS / importS;
    }
    state.counters["events"] = events;
    state.counters["peak_extra_rss_MB"] = peakExtraMb;
    state.counters["rss_anon_after_MB"] = anonMb;
    state.counters["store_B_per_event"] = bytesPerEvent;
}

// 10M slices on 16 thread tracks, three nesting levels, built through the importer.
const TraceStore& lodStore() {
    static TraceStore store = [] {
        std::string json = "[";
        json.reserve(10'000'000 * 64);
        char buf[512];
        const int tracks = 16;
        const int perTrack = 10'000'000 / tracks;
        for (int t = 0; t < tracks; ++t) {
            std::int64_t ts = 0;
            for (int i = 0; i < perTrack; i += 5) {
                // A parent with two children and a grandchild, then a sibling: 5 slices.
                int n = std::snprintf(
                    buf, sizeof buf,
                    "{\"ph\":\"X\",\"name\":\"p%d\",\"pid\":1,\"tid\":%d,\"ts\":%lld,\"dur\":40},"
                    "{\"ph\":\"X\",\"name\":\"c\",\"pid\":1,\"tid\":%d,\"ts\":%lld,\"dur\":10},",
                    i % 7, t, static_cast<long long>(ts), t, static_cast<long long>(ts + 1));
                json.append(buf, n);
                n = std::snprintf(
                    buf, sizeof buf,
                    "{\"ph\":\"X\",\"name\":\"g\",\"pid\":1,\"tid\":%d,\"ts\":%lld,\"dur\":3},"
                    "{\"ph\":\"X\",\"name\":\"c\",\"pid\":1,\"tid\":%d,\"ts\":%lld,\"dur\":20},"
                    "{\"ph\":\"X\",\"name\":\"s\",\"pid\":1,\"tid\":%d,\"ts\":%lld,\"dur\":%d},",
                    t, static_cast<long long>(ts + 2), t, static_cast<long long>(ts + 15), t,
                    static_cast<long long>(ts + 41), (i % 50000 == 0) ? 5000 : 4);
                json.append(buf, n);
                ts += (i % 50000 == 0) ? 5050 : 50;
            }
        }
        json.back() = ']';
        auto r = importChromeTraceBytes(std::move(json));
        if (!r) std::abort();
        return std::move(r.value());
    }();
    return store;
}

void BM_LodBuild(benchmark::State& state) {
    const TraceStore& st = lodStore();
    for (auto _ : state)
        benchmark::DoNotOptimize(LodIndex::build(st));
    state.counters["slices"] = static_cast<double>(st.sliceCount());
}

void BM_LodQuery(benchmark::State& state) {
    const TraceStore& st = lodStore();
    static const LodIndex idx = LodIndex::build(st);
    const std::int64_t span = st.endTime() - st.beginTime();
    const std::int64_t width = std::max<std::int64_t>(1, span / state.range(0));
    std::vector<LodItem> out;
    std::mt19937_64 rng(1);
    std::size_t items = 0, queries = 0;
    for (auto _ : state) {
        const std::int64_t t0 =
            st.beginTime() +
            static_cast<std::int64_t>(
                rng() % static_cast<std::uint64_t>(std::max<std::int64_t>(1, span - width)));
        out.clear();
        for (std::uint32_t t = 0; t < st.tracks().size(); ++t)
            idx.query(st, t, LodQuery{t0, t0 + width, 2000, 1.0}, out);
        items += out.size();
        ++queries;
        benchmark::DoNotOptimize(out.data());
    }
    state.counters["zoom"] = static_cast<double>(state.range(0));
    state.counters["items_per_frame"] = static_cast<double>(items) / static_cast<double>(queries);
}

} // namespace

int main(int argc, char** argv) {
    benchmark::Initialize(&argc, argv);
    const char* mbEnv = std::getenv("XT_BENCH_MB");
    const std::size_t mb = mbEnv ? std::strtoull(mbEnv, nullptr, 10) : 1024;
    std::string generated;
    if (mb > 0) {
        generated = generateKinetoTrace(mb);
        benchmark::RegisterBenchmark(
            ("BM_Import/generated_kineto_" + std::to_string(mb) + "MB").c_str(),
            [generated](benchmark::State& s) { importBenchmark(s, generated); })
            ->UseManualTime()
            ->Iterations(2)
            ->Unit(benchmark::kMillisecond);
        // The same text read as one document (no windows): the reference for the windows.
        benchmark::RegisterBenchmark(
            ("BM_Import/generated_kineto_" + std::to_string(mb) + "MB/whole_document").c_str(),
            [generated](benchmark::State& s) {
                ImportOptions whole;
                whole.parseWindowBytes = 0;
                importBenchmark(s, generated, whole);
            })
            ->UseManualTime()
            ->Iterations(2)
            ->Unit(benchmark::kMillisecond);
    }
    const std::string corpus = std::string(XT_SHARED_DIR) + "/corpus/chrome/";
    for (const char* rel :
         {"viztracer/gradient_descent.json", "tf-timeline/KittiBox__timeline_01.json",
          "kineto/samples__resnet50_num_workers_0__worker0.1623143566756.pt.trace.json.gz"}) {
        const std::string path = corpus + rel;
        benchmark::RegisterBenchmark((std::string("BM_Import/") + rel).c_str(),
                                     [path](benchmark::State& s) { importBenchmark(s, path); })
            ->UseManualTime()
            ->Iterations(5)
            ->Unit(benchmark::kMillisecond);
    }
    benchmark::RegisterBenchmark("BM_LodBuild/10M", BM_LodBuild)
        ->Unit(benchmark::kMillisecond)
        ->Iterations(3);
    for (int zoom : {1, 10, 100, 1000, 10000, 100000})
        benchmark::RegisterBenchmark("BM_LodQuery/16tracks_2000px", BM_LodQuery)
            ->Arg(zoom)
            ->Unit(benchmark::kMicrosecond);
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    if (!generated.empty()) std::remove(generated.c_str());
    return 0;
}
