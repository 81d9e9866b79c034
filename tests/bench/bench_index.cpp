// P1 (docs/BENCHMARKS.md): indexing an XDL data file from the page cache, as a ratio to reading
// the same file with read() (what `cat FILE > /dev/null` does), measured in the same run.
//
//   bench_index [--benchmark_filter=...]     files are generated once under $XT_BENCH_DIR (/tmp)
//
// Counters: bytes_per_second, and index_B_per_record (resident index memory per record).
// Times are wall-clock (UseRealTime): the index of small records scans on two threads, and the
// read() reference on one. BM_Index_200B_OneThread is the same scan on one thread.
// BM_MapTouchReference_200B maps the file afresh as the index does and reads a byte of each page
// on two threads, each half populated first (the index's way): what any scan of a fresh
// mapping pays before its own work.
// Each file is dropped from the page cache and read back once before the first case that reads
// it: its pages are then cached as a read from disk leaves them (in large folios where the kernel
// has them), not as however they were written or last faulted in, which changes both the
// mapping's and read()'s speed (docs/BENCHMARKS.md, P1, session 34).
#include "bench_data.h"
#include "core/base/mapped_file.h"
#include "core/xdl/record_index.h"

#include <benchmark/benchmark.h>
#include <fcntl.h>
#include <thread>
#include <unistd.h>
#include <vector>

using namespace xt;
using namespace xt::xdl;

namespace {

const std::string& smallRecordsFile() {
    static std::string p = bench::cachedAsReadFromDisk( // 45 floats: ~200 B records
        bench::ensureFloatRun("1g_200b", 1000000000ull, INT64_MAX, 45, 1) + "/train.trace.0.1");
    return p;
}
const std::string& largeRecordsFile() {
    static std::string p = bench::cachedAsReadFromDisk( // 1 MiB records
        bench::ensureFloatRun("4g_1mb", 4000000000ull, INT64_MAX, 262144, 1) + "/train.trace.0.1");
    return p;
}

void readWholeFile(benchmark::State& state, const std::string& path) {
    std::vector<char> buf(1 << 20);
    std::uint64_t total = 0;
    for (auto _ : state) {
        int fd = ::open(path.c_str(), O_RDONLY);
        ssize_t n;
        total = 0;
        while ((n = ::read(fd, buf.data(), buf.size())) > 0)
            total += static_cast<std::uint64_t>(n);
        ::close(fd);
        benchmark::DoNotOptimize(total);
    }
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * total));
}

// Maps the file afresh each time (page faults included), placed as the reader places it.
void indexFile(benchmark::State& state, const std::string& path, MapPlacement placement,
               IndexOptions options = {}) {
    std::uint64_t size = 0, records = 0, capacity = 0;
    for (auto _ : state) {
        auto f = MappedFile::open(path, placement);
        RecordIndex idx(path, options);
        Diagnostics diag;
        if (!f || !idx.extend(f->bytes(), diag)) {
            state.SkipWithError("index failed");
            break;
        }
        size = f->size();
        records = idx.records().size();
        benchmark::DoNotOptimize(idx.records().data());
        capacity = idx.takeState().records.capacity();
    }
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * size));
    state.counters["records"] = static_cast<double>(records);
    state.counters["index_B_per_record"] =
        static_cast<double>(capacity * sizeof(RecordEntry)) / static_cast<double>(records);
}

void BM_MapTouchReference_200B(benchmark::State& state) {
    std::uint64_t size = 0;
    for (auto _ : state) {
        auto f = MappedFile::open(smallRecordsFile(), MapPlacement::Scans);
        if (!f) {
            state.SkipWithError("cannot map");
            break;
        }
        size = f->size();
        const std::uint8_t* bytes = f->bytes().data();
        auto touch = [&](std::uint64_t from, std::uint64_t to) {
            populateMappedPages(bytes, size, from, to - from);
            unsigned sum = 0;
            for (std::uint64_t i = from; i < to; i += 4096)
                sum += bytes[i];
            benchmark::DoNotOptimize(sum);
        };
        std::thread second(touch, size / 2, size);
        touch(0, size / 2);
        second.join();
    }
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * size));
}
void BM_CatReference_200B(benchmark::State& s) {
    readWholeFile(s, smallRecordsFile());
}
void BM_Index_200B(benchmark::State& s) {
    indexFile(s, smallRecordsFile(), MapPlacement::Scans);
}
void BM_Index_200B_OneThread(benchmark::State& s) {
    IndexOptions oneThread;
    oneThread.splitBytes = 0;
    indexFile(s, smallRecordsFile(), MapPlacement::Scans, oneThread);
}
void BM_CatReference_1MB(benchmark::State& s) {
    readWholeFile(s, largeRecordsFile());
}
void BM_Index_1MB(benchmark::State& s) {
    indexFile(s, largeRecordsFile(), MapPlacement::Lookups);
}

} // namespace

BENCHMARK(BM_CatReference_200B)->Unit(benchmark::kMillisecond)->MinTime(2)->UseRealTime();
BENCHMARK(BM_MapTouchReference_200B)->Unit(benchmark::kMillisecond)->MinTime(2)->UseRealTime();
BENCHMARK(BM_Index_200B)->Unit(benchmark::kMillisecond)->MinTime(2)->UseRealTime();
BENCHMARK(BM_Index_200B_OneThread)->Unit(benchmark::kMillisecond)->MinTime(2)->UseRealTime();
BENCHMARK(BM_CatReference_1MB)->Unit(benchmark::kMillisecond)->MinTime(2)->UseRealTime();
BENCHMARK(BM_Index_1MB)->Unit(benchmark::kMillisecond)->MinTime(2)->UseRealTime();
BENCHMARK_MAIN();
