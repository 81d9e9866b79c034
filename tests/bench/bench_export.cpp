// P6 (docs/BENCHMARKS.md): HDF5 export throughput.
//   BM_Hdf5BulkReference   one H5Dwrite of the same tensor bytes into a chunked dataset: the
//                          ceiling the HDF5 C API gives on this machine
//   BM_ExportLargeTensors  xtrace's exporter on a run of 1 MiB float32 tensors (~512 MB)
//   BM_ExportStatsRows     exporter on a run of many tiny tensors: rows per second
//   BM_WriteReferenceRows  writing as many bytes as that export's file holds, 1 MiB per pwrite
//                          into the page cache: the rows per second the output alone allows
// What any export of those rows must do, each on one thread (their sum over two cores, and the
// HDF5 part alone, bound BM_ExportStatsRows from below):
//   BM_DecodeRowsReference  decoding every record once (the columns' places, dtypes, shapes)
//   BM_StatsRowsReference   the statistics of every row, on one thread, in the exporter's batches
//   BM_Hdf5RowsReference    the export's datasets written from memory, one H5Dwrite each
//   BM_ExportStatsRowsPaired  the export and BM_Hdf5RowsReference's writing in turn: their ratio
// Files are generated once under $XT_BENCH_DIR (default /tmp), and cached as read from disk before
// their first case (bench::cachedAsReadFromDisk); outputs are overwritten.
#include "bench_data.h"
#include "core/analysis/cpu_backend.h"
#include "core/export/hdf5_exporter.h"
#include "core/export/hdf5_objects.h"

#include <algorithm>
#include <benchmark/benchmark.h>
#include <chrono>
#include <fcntl.h>
#include <filesystem>
#include <hdf5.h>
#include <set>
#include <unistd.h>
#include <vector>

using namespace xt;
using namespace xt::xdl;

namespace {

// Opened as `xtrace export --hdf5` opens a run (every record will be read whole), its data file
// cached as a read from disk leaves it (bench::cachedAsReadFromDisk), once per process.
RunReader openRun(const std::string& dir) {
    static std::set<std::string> cached;
    if (cached.insert(dir).second) bench::cachedAsReadFromDisk(dir + "/train.trace.0.1");
    Diagnostics diag;
    auto files = discoverRuns({dir}, diag);
    ReaderOptions options;
    options.readsWhole = true;
    return std::move(*RunReader::open(files->at(0), diag, {}, options));
}

// 1 M rows of 16 floats, 50 keys x 20 000 steps: BM_ExportStatsRows's input.
constexpr std::uint64_t kRowSteps = 20000, kRowFloats = 16;
constexpr int kRowKeys = 50;
RunReader openRowsRun() {
    return openRun(
        bench::ensureFloatRun("export_rows", UINT64_MAX, kRowSteps, kRowFloats, kRowKeys));
}

// Every case writes a new file: replacing one makes ext4 write the new file's data out at once
// (auto_da_alloc, in the exporter's rename or at the close of a truncated file), a cost of the
// file system's policy that each case would pay differently (~0.3 s for 512 MB on this VM).
void removeUntimed(benchmark::State& state, const std::string& path) {
    state.PauseTiming();
    std::filesystem::remove(path);
    state.ResumeTiming();
}

void BM_Hdf5BulkReference(benchmark::State& state) {
    const std::size_t rows = 512, floats = 262144;
    std::vector<float> data(rows * floats, 1.5f);
    std::string out = bench::benchDir() + "/xt_bench_ref.h5";
    for (auto _ : state) {
        removeUntimed(state, out);
        hid_t f = H5Fcreate(out.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
        hsize_t dims[2] = {rows, floats}, chunk[2] = {1, floats};
        hid_t space = H5Screate_simple(2, dims, nullptr);
        hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
        H5Pset_chunk(dcpl, 2, chunk);
        hid_t ds = H5Dcreate2(f, "values", H5T_IEEE_F32LE, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
        H5Dwrite(ds, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, data.data());
        H5Dclose(ds), H5Pclose(dcpl), H5Sclose(space), H5Fclose(f);
    }
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * data.size() * 4));
}

// Exports `run` to benchDir()/<name>.h5 once per iteration; returns the last report.
Hdf5ExportReport exportLoop(benchmark::State& state, const RunReader& run,
                            const std::string& name) {
    const std::string out = bench::benchDir() + "/" + name + ".h5";
    Hdf5ExportReport last;
    for (auto _ : state) {
        removeUntimed(state, out);
        Diagnostics diag;
        auto r = exportHdf5(run, out, {}, diag);
        if (!r)
            state.SkipWithError(r.status().toString().c_str());
        else
            last = *r;
    }
    return last;
}

void BM_ExportLargeTensors(benchmark::State& state) {
    RunReader run = openRun(bench::ensureFloatRun("export_large", UINT64_MAX, 512, 262144, 1));
    auto r = exportLoop(state, run, "xt_bench_export_large");
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * r.valueBytes));
}

std::uint64_t g_rowsFileBytes = 0, g_rows = 0; // of BM_ExportStatsRows's output

void BM_ExportStatsRows(benchmark::State& state) {
    RunReader run = openRowsRun();
    auto r = exportLoop(state, run, "xt_bench_export_rows");
    state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * r.rows));
    g_rowsFileBytes = std::filesystem::file_size(bench::benchDir() + "/xt_bench_export_rows.h5");
    g_rows = r.rows;
    state.counters["file_B_per_row"] = double(g_rowsFileBytes) / double(r.rows);
}

void BM_WriteReferenceRows(benchmark::State& state) {
    if (!g_rows) {
        state.SkipWithError("run BM_ExportStatsRows first");
        return;
    }
    const std::string out = bench::benchDir() + "/xt_bench_write_ref.bin";
    std::vector<char> block(1 << 20, 'x');
    for (auto _ : state) {
        removeUntimed(state, out);
        const int fd = ::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        for (std::uint64_t at = 0; at < g_rowsFileBytes; at += block.size())
            if (::pwrite(fd, block.data(),
                         std::min<std::uint64_t>(block.size(), g_rowsFileBytes - at),
                         off_t(at)) < 0)
                state.SkipWithError("pwrite failed");
        ::close(fd);
    }
    std::filesystem::remove(out);
    state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * g_rows));
}

void BM_DecodeRowsReference(benchmark::State& state) {
    RunReader run = openRowsRun();
    const RankReader& rank = run.ranks().at(0);
    RecordView view;
    std::uint64_t rows = 0;
    for (auto _ : state) {
        rows = 0;
        for (std::size_t i = 0; i < rank.recordCount(); ++i) {
            if (!rank.decode(i, view)) state.SkipWithError("decode failed");
            for (const auto& c : view.columns)
                rows += c.check() == ColumnProblem::None && !c.isEmpty();
        }
        benchmark::DoNotOptimize(rows);
    }
    state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * rows));
}

void BM_StatsRowsReference(benchmark::State& state) {
    RunReader run = openRowsRun();
    const RankReader& rank = run.ranks().at(0);
    std::vector<TensorView> views;
    RecordView view;
    for (std::size_t i = 0; i < rank.recordCount(); ++i) {
        if (!rank.decode(i, view)) state.SkipWithError("decode failed");
        for (const auto& c : view.columns)
            views.emplace_back(c.dtype(), c.shape, c.data);
    }
    analysis::CpuBackend backend(1);
    std::vector<analysis::TensorStats> stats(views.size());
    const std::size_t batch = 4096; // the exporter's (RowBatcher)
    for (auto _ : state)
        for (std::size_t at = 0; at < views.size(); at += batch) {
            const std::size_t n = std::min(batch, views.size() - at);
            if (!backend.computeStats({views.data() + at, n}, {stats.data() + at, n}))
                state.SkipWithError("statistics failed");
        }
    state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * views.size()));
}

// Writes the datasets BM_ExportStatsRows's file holds (hdf5_exporter.h's layout, chunked as the
// exporter chunks them) from arrays in memory, one H5Dwrite each, to `out`.
bool writeRowsReference(const std::string& out) {
    const hsize_t steps = kRowSteps, floats = kRowFloats;
    static const std::vector<float> values(steps * floats, 1.5f);
    static const std::vector<std::int64_t> gsteps(steps, 7);
    static const std::vector<h5::StatsRow> statsRows(steps,
                                                     h5::StatsRow{16, 0, 0, 0, -1, 1, 0, 1, 4});
    const h5::Handle fileStats = h5::statsType(true), memStats = h5::statsType(false);
    // At most 1 MiB a chunk, the chunks even (the exporter's): 2 of 10 000 rows.
    const hsize_t most = (1 << 20) / (floats * 4), chunks = (steps + most - 1) / most;
    const hsize_t valueChunkRows = (steps + chunks - 1) / chunks;
    auto write = [](hid_t group, const char* name, hid_t fileType, hid_t memType,
                    std::vector<hsize_t> dims, std::vector<hsize_t> chunk, const void* data) {
        const int rank = static_cast<int>(dims.size());
        h5::Handle space(H5Screate_simple(rank, dims.data(), nullptr), H5Sclose);
        h5::Handle dcpl(H5Pcreate(H5P_DATASET_CREATE), H5Pclose);
        H5Pset_chunk(dcpl.get(), rank, chunk.data());
        h5::Handle ds(
            H5Dcreate2(group, name, fileType, space.get(), H5P_DEFAULT, dcpl.get(), H5P_DEFAULT),
            H5Dclose);
        return H5Dwrite(ds.get(), memType, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) >= 0;
    };
    h5::Handle file(H5Fcreate(out.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), H5Fclose);
    h5::Handle rank(H5Gcreate2(file.get(), "rank0", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
                    H5Gclose);
    bool ok = rank.valid();
    for (int k = 0; ok && k < kRowKeys; ++k) {
        auto group = h5::ensureGroups(rank.get(), "layer" + std::to_string(k) + "/weight");
        if (!group) return false;
        const hid_t g = group->get();
        ok = ok && write(g, "values", H5T_IEEE_F32LE, H5T_NATIVE_FLOAT, {steps, floats},
                         {valueChunkRows, floats}, values.data());
        for (const char* name : {"gstep", "lstep", "timestamp"})
            ok = ok &&
                 write(g, name, H5T_STD_I64LE, H5T_NATIVE_INT64, {steps}, {steps}, gsteps.data());
        ok = ok &&
             write(g, "stats", fileStats.get(), memStats.get(), {steps}, {steps}, statsRows.data());
    }
    return ok;
}

void BM_Hdf5RowsReference(benchmark::State& state) {
    const std::string out = bench::benchDir() + "/xt_bench_h5_rows_ref.h5";
    for (auto _ : state) {
        removeUntimed(state, out);
        if (!writeRowsReference(out)) state.SkipWithError("H5Dwrite failed");
    }
    state.counters["file_B_per_row"] =
        double(std::filesystem::file_size(out)) / double(kRowSteps * kRowKeys);
    std::filesystem::remove(out);
    state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * kRowSteps * kRowKeys));
}

// BM_ExportStatsRows and BM_Hdf5RowsReference in turn within each iteration, which of the two
// first alternating: the speed of this VM's host changes from minute to minute, and two runs
// a tenth of a second apart see the same. Time: the export's. export_per_ref: the median over
// the iterations of the export's time over the reference's.
void BM_ExportStatsRowsPaired(benchmark::State& state) {
    RunReader run = openRowsRun();
    const std::string out = bench::benchDir() + "/xt_bench_export_rows.h5";
    const std::string ref = bench::benchDir() + "/xt_bench_h5_rows_ref.h5";
    using Clock = std::chrono::steady_clock;
    auto timed = [](auto&& f) {
        const auto t0 = Clock::now();
        const bool ok = f();
        return ok ? std::chrono::duration<double>(Clock::now() - t0).count() : -1.0;
    };
    auto exportOnce = [&] {
        Diagnostics diag;
        return exportHdf5(run, out, {}, diag).isOk();
    };
    std::vector<double> ratios;
    double refSeconds = 0;
    for (auto _ : state) {
        std::filesystem::remove(out), std::filesystem::remove(ref); // not timed (manual time)
        double e, r;
        if (ratios.size() % 2 == 0)
            e = timed(exportOnce), r = timed([&] { return writeRowsReference(ref); });
        else
            r = timed([&] { return writeRowsReference(ref); }), e = timed(exportOnce);
        if (e < 0 || r < 0) {
            state.SkipWithError("export or reference failed");
            break;
        }
        state.SetIterationTime(e);
        ratios.push_back(e / r);
        refSeconds += r;
    }
    std::filesystem::remove(ref);
    if (ratios.empty()) return;
    std::nth_element(ratios.begin(), ratios.begin() + ratios.size() / 2, ratios.end());
    state.counters["export_per_ref"] = ratios[ratios.size() / 2];
    state.counters["ref_ms"] = 1e3 * refSeconds / double(ratios.size());
    state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * kRowSteps * kRowKeys));
}

} // namespace

BENCHMARK(BM_Hdf5BulkReference)->Unit(benchmark::kMillisecond)->MinTime(2);
BENCHMARK(BM_ExportLargeTensors)->Unit(benchmark::kMillisecond)->MinTime(2);
BENCHMARK(BM_ExportStatsRows)->Unit(benchmark::kMillisecond)->MinTime(2)->UseRealTime();
BENCHMARK(BM_WriteReferenceRows)->Unit(benchmark::kMillisecond)->MinTime(2)->UseRealTime();
BENCHMARK(BM_DecodeRowsReference)->Unit(benchmark::kMillisecond)->MinTime(2)->UseRealTime();
BENCHMARK(BM_StatsRowsReference)->Unit(benchmark::kMillisecond)->MinTime(2)->UseRealTime();
BENCHMARK(BM_Hdf5RowsReference)->Unit(benchmark::kMillisecond)->MinTime(2)->UseRealTime();
BENCHMARK(BM_ExportStatsRowsPaired)->Unit(benchmark::kMillisecond)->MinTime(2)->UseManualTime();
BENCHMARK_MAIN();
