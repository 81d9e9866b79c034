// P6 (docs/PERFORMANCE.md): HDF5 export throughput.
//   BM_Hdf5BulkReference   one H5Dwrite of the same tensor bytes into a chunked dataset: the
//                          ceiling the HDF5 C API gives on this machine
//   BM_ExportLargeTensors  xtrace's exporter on a run of 1 MiB float32 tensors (~512 MB)
//   BM_ExportStatsRows     exporter on a run of many tiny tensors: rows per second
// Files are generated once under $XT_BENCH_DIR (default /tmp); outputs are overwritten.
#include "core/export/hdf5_exporter.h"
#include "core/xdl/file_series_writer.h"

#include <benchmark/benchmark.h>
#include <cstdlib>
#include <filesystem>
#include <hdf5.h>
#include <vector>

using namespace xt;
using namespace xt::xdl;

namespace {

std::string benchDir() {
    const char* d = std::getenv("XT_BENCH_DIR");
    return d ? d : "/tmp";
}

std::string ensureRun(const std::string& name, int records, std::size_t floats, int keys) {
    std::string dir = benchDir() + "/xt_bench_" + name;
    if (std::filesystem::exists(dir + "/train.trace.0.1.meta") &&
        std::filesystem::file_size(dir + "/train.trace.0.1.meta") > 0)
        return dir;
    std::vector<std::string> names;
    for (int k = 0; k < keys; ++k) names.push_back("layer" + std::to_string(k) + "/weight");
    auto w = FileSeriesWriter::create({dir, "trace", 1e9, 0, true}, names);
    if (!w) std::exit(1);
    std::vector<float> data(floats);
    for (std::size_t i = 0; i < floats; ++i) data[i] = static_cast<float>(i % 977) * 0.01f;
    std::vector<std::int64_t> shape = {static_cast<std::int64_t>(floats)};
    RecordEncoder enc;
    for (int step = 0; step < records; ++step) {
        enc.begin(step, step + 1);
        for (int k = 0; k < keys; ++k)
            enc.addColumn(Dtype::Float, shape,
                          Bytes(reinterpret_cast<const std::uint8_t*>(data.data()), floats * 4));
        (void)enc.finish(1700000000000 + step);
        if (!(*w)->write(enc.framed(), step, step + 1, 1700000000000 + step)) std::exit(1);
    }
    (void)(*w)->close();
    return dir;
}

RunReader openRun(const std::string& dir) {
    Diagnostics diag;
    auto files = discoverRuns({dir}, diag);
    return std::move(*RunReader::open(files->at(0), diag));
}

void BM_Hdf5BulkReference(benchmark::State& state) {
    const std::size_t rows = 512, floats = 262144;
    std::vector<float> data(rows * floats, 1.5f);
    std::string out = benchDir() + "/xt_bench_ref.h5";
    for (auto _ : state) {
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

void BM_ExportLargeTensors(benchmark::State& state) {
    RunReader run = openRun(ensureRun("export_large", 512, 262144, 1));
    std::string out = benchDir() + "/xt_bench_export_large.h5";
    std::uint64_t bytes = 0;
    for (auto _ : state) {
        Diagnostics diag;
        auto r = exportHdf5(run, out, {}, diag);
        if (!r) state.SkipWithError(r.status().toString().c_str());
        else bytes = r->valueBytes;
    }
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * bytes));
}

void BM_ExportStatsRows(benchmark::State& state) {
    RunReader run = openRun(ensureRun("export_rows", 20000, 16, 50)); // 1M rows of 16 floats
    std::string out = benchDir() + "/xt_bench_export_rows.h5";
    std::uint64_t rows = 0;
    for (auto _ : state) {
        Diagnostics diag;
        auto r = exportHdf5(run, out, {}, diag);
        if (!r) state.SkipWithError(r.status().toString().c_str());
        else rows = r->rows;
    }
    state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * rows));
}

} // namespace

BENCHMARK(BM_Hdf5BulkReference)->Unit(benchmark::kMillisecond)->MinTime(2);
BENCHMARK(BM_ExportLargeTensors)->Unit(benchmark::kMillisecond)->MinTime(2);
BENCHMARK(BM_ExportStatsRows)->Unit(benchmark::kMillisecond)->MinTime(2);
BENCHMARK_MAIN();
