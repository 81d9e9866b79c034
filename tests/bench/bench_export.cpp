// P6 (docs/BENCHMARKS.md): HDF5 export throughput.
//   BM_Hdf5BulkReference   one H5Dwrite of the same tensor bytes into a chunked dataset: the
//                          ceiling the HDF5 C API gives on this machine
//   BM_ExportLargeTensors  xtrace's exporter on a run of 1 MiB float32 tensors (~512 MB)
//   BM_ExportStatsRows     exporter on a run of many tiny tensors: rows per second
//   BM_WriteReferenceRows  writing as many bytes as that export's file holds, 1 MiB per pwrite
//                          into the page cache: the rows per second the output alone allows
// Files are generated once under $XT_BENCH_DIR (default /tmp); outputs are overwritten.
#include "bench_data.h"
#include "core/export/hdf5_exporter.h"

#include <benchmark/benchmark.h>
#include <fcntl.h>
#include <filesystem>
#include <hdf5.h>
#include <unistd.h>
#include <vector>

using namespace xt;
using namespace xt::xdl;

namespace {

RunReader openRun(const std::string& dir) {
    Diagnostics diag;
    auto files = discoverRuns({dir}, diag);
    return std::move(*RunReader::open(files->at(0), diag));
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
    RunReader run = // 1 M rows of 16 floats
        openRun(bench::ensureFloatRun("export_rows", UINT64_MAX, 20000, 16, 50));
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

} // namespace

BENCHMARK(BM_Hdf5BulkReference)->Unit(benchmark::kMillisecond)->MinTime(2);
BENCHMARK(BM_ExportLargeTensors)->Unit(benchmark::kMillisecond)->MinTime(2);
BENCHMARK(BM_ExportStatsRows)->Unit(benchmark::kMillisecond)->MinTime(2)->UseRealTime();
BENCHMARK(BM_WriteReferenceRows)->Unit(benchmark::kMillisecond)->MinTime(2)->UseRealTime();
BENCHMARK_MAIN();
