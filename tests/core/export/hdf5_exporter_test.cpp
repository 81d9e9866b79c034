// HDF5 export: the layout of README "HDF5 layout", re-read value by value through the HDF5 C API.
#include "core/analysis/cpu_backend.h"
#include "core/export/hdf5_exporter.h"
#include "core/xdl/file_series_writer.h"
#include "xdl_test_util.h"

#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <functional>
#include <gtest/gtest.h>
#include <hdf5.h>
#include <sys/mount.h>
#include <utility>

using namespace xt;
using namespace xt::xdl;

namespace {

Bytes bytesOf(const void* p, size_t n) {
    return {static_cast<const std::uint8_t*>(p), n};
}

// Rank r, step s: weight[i] = 100 r + 10 s + i (2x3); act has s+1 elements; mask [3];
// count scalar; a key named "values"; cfg once then empty.
void writeRun(const std::string& dir) {
    std::vector<std::string> keys = {"fc1/weight", "act", "mask", "count", "values", "cfg"};
    for (int r = 0; r < 2; ++r) {
        auto w = FileSeriesWriter::create({dir, "trace", 300, r, true}, keys);
        ASSERT_TRUE(w.isOk());
        RecordEncoder enc;
        for (int s = 0; s < 5; ++s) {
            std::vector<float> weight(6), act(static_cast<size_t>(s + 1));
            for (int i = 0; i < 6; ++i)
                weight[static_cast<size_t>(i)] = 100.f * r + 10.f * s + i;
            for (int i = 0; i <= s; ++i)
                act[static_cast<size_t>(i)] = static_cast<float>(i) - s;
            std::uint8_t mask[3] = {std::uint8_t(s % 2), 1, 0};
            std::int64_t count = s * 7;
            std::int32_t vals[2] = {r, -s};
            enc.begin(s * 10, s + 1);
            enc.addColumn(Dtype::Float, std::vector<std::int64_t>{2, 3},
                          bytesOf(weight.data(), 24));
            enc.addColumn(Dtype::Float, std::vector<std::int64_t>{s + 1},
                          bytesOf(act.data(), act.size() * 4));
            enc.addColumn(Dtype::Bool, std::vector<std::int64_t>{3}, bytesOf(mask, 3));
            enc.addColumn(Dtype::Int64, {}, bytesOf(&count, 8));
            enc.addColumn(Dtype::Int32, std::vector<std::int64_t>{2}, bytesOf(vals, 8));
            if (s == 0)
                enc.addColumn(Dtype::Int8, std::vector<std::int64_t>{5}, bytesOf("lr=.1", 5));
            else
                enc.addColumn(Dtype::Float, std::vector<std::int64_t>{0}, {});
            ASSERT_TRUE(enc.finish(1700000000000 + s).isOk());
            ASSERT_TRUE((*w)->write(enc.framed(), s * 10, s + 1, 1700000000000 + s).isOk());
        }
    }
}

RunReader openRun(const std::string& dir, Diagnostics& diag) {
    auto files = discoverRuns({dir}, diag);
    EXPECT_TRUE(files.isOk());
    return std::move(*RunReader::open(files->at(0), diag));
}

std::vector<hsize_t> dimsOf(hid_t file, const char* path) {
    hid_t ds = H5Dopen2(file, path, H5P_DEFAULT);
    EXPECT_GE(ds, 0) << path;
    if (ds < 0) return {};
    hid_t sp = H5Dget_space(ds);
    std::vector<hsize_t> d(static_cast<size_t>(H5Sget_simple_extent_ndims(sp)));
    H5Sget_simple_extent_dims(sp, d.data(), nullptr);
    H5Sclose(sp);
    H5Dclose(ds);
    return d;
}

template <class T> std::vector<T> readAll(hid_t file, const char* path, hid_t memType) {
    hid_t ds = H5Dopen2(file, path, H5P_DEFAULT);
    hid_t sp = H5Dget_space(ds);
    std::vector<T> out(static_cast<size_t>(H5Sget_simple_extent_npoints(sp)));
    EXPECT_GE(H5Dread(ds, memType, H5S_ALL, H5S_ALL, H5P_DEFAULT, out.data()), 0) << path;
    H5Sclose(sp);
    H5Dclose(ds);
    return out;
}

std::string stringAttr(hid_t obj, const char* objPath, const char* name) {
    hid_t a = H5Aopen_by_name(obj, objPath, name, H5P_DEFAULT, H5P_DEFAULT);
    EXPECT_GE(a, 0) << objPath << "@" << name;
    hid_t t = H5Tcopy(H5T_C_S1);
    H5Tset_size(t, H5T_VARIABLE);
    H5Tset_cset(t, H5T_CSET_UTF8);
    char* s = nullptr;
    H5Aread(a, t, &s);
    std::string out = s ? s : "";
    H5free_memory(s);
    H5Tclose(t);
    H5Aclose(a);
    return out;
}

// A row of a `stats` dataset, read by name; close the type with H5Tclose.
struct Stats {
    std::uint64_t count, nan, inf, zeros;
    double min, max, mean, std, l2;
};
hid_t statsMemType() {
    hid_t st = H5Tcreate(H5T_COMPOUND, sizeof(Stats));
    for (auto [name, offset] : {std::pair{"count", HOFFSET(Stats, count)},
                                {"nan", HOFFSET(Stats, nan)},
                                {"inf", HOFFSET(Stats, inf)},
                                {"zeros", HOFFSET(Stats, zeros)}})
        H5Tinsert(st, name, offset, H5T_NATIVE_UINT64);
    for (auto [name, offset] : {std::pair{"min", HOFFSET(Stats, min)},
                                {"max", HOFFSET(Stats, max)},
                                {"mean", HOFFSET(Stats, mean)},
                                {"std", HOFFSET(Stats, std)},
                                {"l2", HOFFSET(Stats, l2)}})
        H5Tinsert(st, name, offset, H5T_NATIVE_DOUBLE);
    return st;
}

} // namespace

TEST(Hdf5Export, LayoutAndValues) {
    xt::test::TempDir dir;
    writeRun(dir.file("run"));
    Diagnostics diag;
    RunReader run = openRun(dir.file("run"), diag);
    // With the planning pass's rows kept, and with no memory for them (records decoded again).
    for (std::uint64_t rowRefBytes : {Hdf5ExportOptions{}.rowRefBytes, std::uint64_t(0)}) {
        SCOPED_TRACE(rowRefBytes);
        Hdf5ExportOptions opt;
        opt.rowRefBytes = rowRefBytes;
        std::string out = dir.file("out.h5");
        auto report = exportHdf5(run, out, opt, diag);
        ASSERT_TRUE(report.isOk()) << report.status().toString();
        EXPECT_EQ(report->keys, 12u);
        EXPECT_EQ(report->raggedKeys, 2u);
        EXPECT_EQ(report->rows, 2u * (5 * 5 + 1));

        hid_t f = H5Fopen(out.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
        ASSERT_GE(f, 0);
        EXPECT_EQ(stringAttr(f, "/", "producer"), "xtview");
        EXPECT_EQ(stringAttr(f, "/rank1/fc1/weight", "key"), "fc1/weight");
        EXPECT_EQ(stringAttr(f, "/rank0/values_", "key"), "values"); // reserved name escaped

        EXPECT_EQ(dimsOf(f, "/rank1/fc1/weight/values"), (std::vector<hsize_t>{5, 2, 3}));
        auto w = readAll<float>(f, "/rank1/fc1/weight/values", H5T_NATIVE_FLOAT);
        for (int s = 0; s < 5; ++s)
            for (int i = 0; i < 6; ++i)
                EXPECT_EQ(w[static_cast<size_t>(s * 6 + i)], 100.f + 10.f * s + i);
        auto g = readAll<std::int64_t>(f, "/rank1/fc1/weight/gstep", H5T_NATIVE_INT64);
        EXPECT_EQ(g, (std::vector<std::int64_t>{0, 10, 20, 30, 40}));
        auto ts = readAll<std::int64_t>(f, "/rank0/fc1/weight/timestamp", H5T_NATIVE_INT64);
        EXPECT_EQ(ts.back(), 1700000000004);

        // Ragged: 1 + 2 + ... + 5 elements, offsets [n+1], shapes [n, 1].
        EXPECT_EQ(dimsOf(f, "/rank0/act/values"), (std::vector<hsize_t>{15}));
        auto off = readAll<std::uint64_t>(f, "/rank0/act/offsets", H5T_NATIVE_UINT64);
        EXPECT_EQ(off, (std::vector<std::uint64_t>{0, 1, 3, 6, 10, 15}));
        auto shapes = readAll<std::int64_t>(f, "/rank0/act/shapes", H5T_NATIVE_INT64);
        EXPECT_EQ(shapes, (std::vector<std::int64_t>{1, 2, 3, 4, 5}));
        auto act = readAll<float>(f, "/rank0/act/values", H5T_NATIVE_FLOAT);
        EXPECT_EQ(act[off[4]], -4.f); // step 4, element 0

        auto mask = readAll<std::int8_t>(f, "/rank0/mask/values", H5T_NATIVE_INT8);
        EXPECT_EQ(mask[3], 1); // step 1, element 0
        hid_t mds = H5Dopen2(f, "/rank0/mask/values", H5P_DEFAULT);
        hid_t mt = H5Dget_type(mds);
        EXPECT_EQ(H5Tget_class(mt), H5T_ENUM); // h5py reads it as numpy bool
        H5Tclose(mt);
        H5Dclose(mds);
        EXPECT_EQ(dimsOf(f, "/rank0/count/values"), (std::vector<hsize_t>{5}));
        EXPECT_EQ(readAll<std::int64_t>(f, "/rank0/count/values", H5T_NATIVE_INT64)[4], 28);
        EXPECT_EQ(dimsOf(f, "/rank0/cfg/values"),
                  (std::vector<hsize_t>{1, 5})); // empties are not rows

        hid_t st = statsMemType();
        auto stats = readAll<Stats>(f, "/rank1/fc1/weight/stats", st);
        // Rank 1, step 2: 120, 121, ..., 125.
        EXPECT_EQ(stats[2].count, 6u);
        EXPECT_EQ(stats[2].zeros, 0u);
        EXPECT_EQ(stats[2].min, 120.0);
        EXPECT_EQ(stats[2].max, 125.0);
        EXPECT_NEAR(stats[2].mean, 122.5, 1e-12);
        EXPECT_NEAR(stats[2].std, std::sqrt(35.0 / 12.0), 1e-12);
        double sq = 0;
        for (int i = 120; i <= 125; ++i)
            sq += double(i) * i;
        EXPECT_NEAR(stats[2].l2, std::sqrt(sq), 1e-9);
        auto maskStats = readAll<Stats>(f, "/rank0/mask/stats", st);
        EXPECT_EQ(maskStats[0].zeros, 2u); // step 0: {0, 1, 0}
        H5Tclose(st);

        EXPECT_EQ(dimsOf(f, "/rank0/meta"), (std::vector<hsize_t>{1}));
        H5Fclose(f);
    }
}

TEST(Hdf5Export, FiltersCancellationAndErrors) {
    xt::test::TempDir dir;
    writeRun(dir.file("run"));
    Diagnostics diag;
    RunReader run = openRun(dir.file("run"), diag);
    Hdf5ExportOptions opt;
    opt.keyRegex = "^fc1/";
    opt.gstepFirst = 10;
    opt.gstepLast = 30;
    opt.deflateLevel = 4;
    std::string out = dir.file("f.h5");
    auto report = exportHdf5(run, out, opt, diag);
    ASSERT_TRUE(report.isOk()) << report.status().toString();
    EXPECT_EQ(report->keys, 2u);
    EXPECT_EQ(report->rows, 6u);
    hid_t f = H5Fopen(out.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    EXPECT_EQ(readAll<std::int64_t>(f, "/rank0/fc1/weight/gstep", H5T_NATIVE_INT64),
              (std::vector<std::int64_t>{10, 20, 30}));
    EXPECT_LE(H5Lexists(f, "/rank0/act", H5P_DEFAULT), 0);
    H5Fclose(f);

    // Cancelled: no output, no temporary file, an older file untouched.
    xt::test::writeFile(dir.file("c.h5"), "older");
    auto cancelled =
        exportHdf5(run, dir.file("c.h5"), {}, diag, [](const ProgressReport&) { return false; });
    EXPECT_EQ(cancelled.status().code(), ErrorCode::Cancelled);
    EXPECT_EQ(xt::test::readFile(dir.file("c.h5")), "older");
    for (const auto& e : std::filesystem::directory_iterator(dir.path()))
        EXPECT_EQ(e.path().string().find(".tmp-"), std::string::npos) << e.path();

    Hdf5ExportOptions bad;
    bad.keyRegex = "([";
    EXPECT_EQ(exportHdf5(run, dir.file("x.h5"), bad, diag).status().code(),
              ErrorCode::InvalidArgument);
    EXPECT_FALSE(exportHdf5(run, "/nonexistent/dir/x.h5", {}, diag).isOk());
}

namespace {
// A remote part's fetcher that cannot bring in anything past `from`.
struct RefusingFetcher : RangeFetcher {
    std::uint64_t from = 0;
    Status ensure(std::uint64_t offset, std::uint64_t length) override {
        if (offset + length <= from) return Status::ok();
        return Status(ErrorCode::IoError, "bytes " + std::to_string(offset) + " not fetched");
    }
};
} // namespace

TEST(Hdf5Export, BytesThatCannotBeFetchedFailTheExportRatherThanDropRows) {
    xt::test::TempDir dir;
    writeRun(dir.path().string());
    Diagnostics diag;
    auto files = discoverRuns({dir.path().string()}, diag);
    ASSERT_TRUE(files.isOk());
    auto fetcher = std::make_shared<RefusingFetcher>();
    fetcher->from = UINT64_MAX;
    for (auto& rank : files->at(0).ranks)
        for (auto& part : rank.parts)
            part.fetcher = fetcher;
    auto run = RunReader::open(files->at(0), diag);
    ASSERT_TRUE(run.isOk());
    fetcher->from = run->ranks()[1].entry(3).offset; // the last records are not there
    auto report = exportHdf5(*run, dir.file("out.h5"), {}, diag);
    ASSERT_FALSE(report.isOk());
    EXPECT_EQ(report.status().code(), ErrorCode::IoError);
    EXPECT_NE(report.status().message().find("not fetched"), std::string::npos);
}

// Rows of >= 256 KiB with one shape are written straight from the mapped trace: as one-row
// chunks ("big", 1.2 MB rows), through a hyperslab ("mid", 320 KB rows, 3 to a chunk), or, with
// deflate, always through a hyperslab. Bool rows, rows that change shape and a damaged column
// take the buffered path. Every layout must give back the trace's values and their statistics.
TEST(Hdf5Export, LargeRowsFromTheMappingKeepValuesStatsAndDiagnostics) {
    xt::test::TempDir dir;
    const std::int64_t kBig = 300000, kMid = 40000;
    auto bigValue = [](int s, std::int64_t i) { return s == 1 && i == 7 ? NAN : 0.5f * i - s; };
    auto midValue = [](int s, std::int64_t i) { return double(i) * 1e-3 + s; };
    {
        auto w = FileSeriesWriter::create({dir.file("run"), "trace", 64 << 20, 0, true},
                                          {"big", "mid", "flags", "grow", "bad"});
        ASSERT_TRUE(w.isOk());
        RecordEncoder enc;
        for (int s = 0; s < 3; ++s) {
            std::vector<float> big(static_cast<size_t>(kBig) + 1);
            for (std::int64_t i = 0; i <= kBig; ++i)
                big[static_cast<size_t>(i)] = bigValue(s, i);
            std::vector<double> mid(static_cast<size_t>(kMid));
            for (std::int64_t i = 0; i < kMid; ++i)
                mid[static_cast<size_t>(i)] = midValue(s, i);
            std::vector<std::uint8_t> flags(static_cast<size_t>(kBig), std::uint8_t(s % 2));
            std::int64_t growRows = s == 2 ? kBig + 1 : kBig;
            enc.begin(s, s);
            enc.addColumn(Dtype::Float, std::vector<std::int64_t>{kBig},
                          bytesOf(big.data(), 4 * kBig));
            enc.addColumn(Dtype::Double, std::vector<std::int64_t>{kMid / 2, 2},
                          bytesOf(mid.data(), 8 * kMid));
            enc.addColumn(Dtype::Bool, std::vector<std::int64_t>{kBig},
                          bytesOf(flags.data(), kBig));
            enc.addColumn(Dtype::Float, std::vector<std::int64_t>{growRows},
                          bytesOf(big.data(), 4 * static_cast<size_t>(growRows)));
            // Step 1's "bad" column is 4 bytes short of its shape.
            enc.addColumn(Dtype::Float, std::vector<std::int64_t>{kBig},
                          bytesOf(big.data(), 4 * kBig - (s == 1 ? 4 : 0)));
            ASSERT_TRUE(enc.finish(100 + s).isOk());
            ASSERT_TRUE((*w)->write(enc.framed(), s, s, 100 + s).isOk());
        }
    }
    hid_t st = statsMemType();
    // No deflate; deflate; no memory for the planning pass's rows (records decoded again).
    for (int variant : {0, 1, 2}) {
        SCOPED_TRACE(variant);
        Diagnostics diag;
        RunReader run = openRun(dir.file("run"), diag);
        Hdf5ExportOptions opt;
        opt.deflateLevel = variant == 1 ? 1 : 0;
        if (variant == 2) opt.rowRefBytes = 0;
        std::string out = dir.file("out" + std::to_string(variant) + ".h5");
        auto report = exportHdf5(run, out, opt, diag);
        ASSERT_TRUE(report.isOk()) << report.status().toString();
        EXPECT_EQ(report->rows, 3u * 4 + 2);
        EXPECT_EQ(report->raggedKeys, 1u);
        EXPECT_EQ(diag.countsByCode().count("bad-column"), 1u);
        bool located = false;
        for (const auto& d : diag.items())
            located = located || (d.message.find("key 'bad'") != std::string::npos &&
                                  d.offset == run.ranks()[0].entry(1).offset - 4);
        EXPECT_TRUE(located);

        hid_t f = H5Fopen(out.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
        ASSERT_GE(f, 0);
        EXPECT_EQ(dimsOf(f, "/rank0/big/values"), (std::vector<hsize_t>{3, hsize_t(kBig)}));
        EXPECT_EQ(dimsOf(f, "/rank0/mid/values"), (std::vector<hsize_t>{3, kMid / 2, 2}));
        auto big = readAll<float>(f, "/rank0/big/values", H5T_NATIVE_FLOAT);
        auto bad = readAll<float>(f, "/rank0/bad/values", H5T_NATIVE_FLOAT);
        auto grow = readAll<float>(f, "/rank0/grow/values", H5T_NATIVE_FLOAT);
        ASSERT_EQ(bad.size(), 2 * static_cast<size_t>(kBig));
        ASSERT_EQ(grow.size(), 3 * static_cast<size_t>(kBig) + 1);
        std::size_t mismatches = 0;
        for (int s = 0; s < 3; ++s)
            for (std::int64_t i = 0; i < kBig; ++i) {
                float want = bigValue(s, i), got = big[static_cast<size_t>(s * kBig + i)];
                mismatches += !(got == want || (std::isnan(got) && std::isnan(want)));
                mismatches += grow[static_cast<size_t>(s * kBig + i)] != got && !std::isnan(got);
                if (s != 1) // the damaged step is not a row
                    mismatches += bad[static_cast<size_t>((s / 2) * kBig + i)] != got;
            }
        EXPECT_EQ(mismatches, 0u);
        EXPECT_EQ(grow.back(), bigValue(2, kBig));
        auto mid = readAll<double>(f, "/rank0/mid/values", H5T_NATIVE_DOUBLE);
        for (int s = 0; s < 3; ++s)
            for (std::int64_t i = 0; i < kMid; ++i)
                mismatches += mid[static_cast<size_t>(s * kMid + i)] != midValue(s, i);
        EXPECT_EQ(mismatches, 0u);
        auto flags = readAll<std::int8_t>(f, "/rank0/flags/values", H5T_NATIVE_INT8);
        EXPECT_EQ(flags[static_cast<size_t>(kBig)], 1); // step 1

        auto bigStats = readAll<Stats>(f, "/rank0/big/stats", st);
        EXPECT_EQ(bigStats[1].count, std::uint64_t(kBig));
        EXPECT_EQ(bigStats[1].nan, 1u);
        EXPECT_EQ(bigStats[1].min, -1.0);
        EXPECT_EQ(bigStats[2].max, 0.5 * (kBig - 1) - 2);
        auto midStats = readAll<Stats>(f, "/rank0/mid/stats", st);
        EXPECT_NEAR(midStats[2].mean, (kMid - 1) * 0.5e-3 + 2, 1e-9);
        H5Fclose(f);
    }
    H5Tclose(st);
}

namespace {
// The CPU backend under another kind: the exporter then leaves every statistic to it.
struct OtherBackend : analysis::Backend {
    analysis::CpuBackend cpu;
    int calls = 0;
    analysis::BackendKind kind() const override { return analysis::BackendKind::Cuda; }
    std::string description() const override { return "other"; }
    Status computeStats(std::span<const TensorView> batch,
                        std::span<analysis::TensorStats> out) override {
        ++calls;
        return cpu.computeStats(batch, out);
    }
    Status histogram(std::span<const TensorView> batch, const analysis::BinLayout& layout,
                     std::span<analysis::Histogram> out) override {
        return cpu.histogram(batch, layout, out);
    }
};
} // namespace

TEST(Hdf5Export, ManyRowsOfAKeySpanSeveralFlushesWithTheirStepsShapesAndStatistics) {
    // A key's buffered rows are written when its values, steps and statistics reach 8 MiB:
    // ~84 000 scalar rows here, so each key is written in two or three flushes (or in hundreds,
    // with a small budget for all keys together). The planning pass splits the records in two
    // halves: "act" has another first shape in the second, "bad" a damaged row in each, and
    // "late" rows in the second only.
    xt::test::TempDir dir;
    const int kSteps = 200000, kBadSteps[2] = {1000, 150000}, kLateFrom = 120000;
    {
        auto w = FileSeriesWriter::create({dir.file("run"), "trace", 64 << 20, 0, true},
                                          {"loss", "act", "pair", "bad", "late"});
        ASSERT_TRUE(w.isOk());
        RecordEncoder enc;
        for (int s = 0; s < kSteps; ++s) {
            const float loss = 0.5f * float(s);
            float act[3];
            for (int i = 0; i < 3; ++i)
                act[i] = float(s + i);
            const std::int64_t n = s % 3 + 1;
            const double pair[2] = {double(s), -double(s)};
            enc.begin(2 * s, s);
            enc.addColumn(Dtype::Float, {}, bytesOf(&loss, 4));
            enc.addColumn(Dtype::Float, std::vector<std::int64_t>{n},
                          bytesOf(act, 4 * std::size_t(n)));
            enc.addColumn(Dtype::Double, std::vector<std::int64_t>{2}, bytesOf(pair, 16));
            const bool damaged = s == kBadSteps[0] || s == kBadSteps[1];
            enc.addColumn(Dtype::Float, std::vector<std::int64_t>{1},
                          bytesOf(&loss, damaged ? 2 : 4));
            if (s < kLateFrom)
                enc.addColumn(Dtype::Float, std::vector<std::int64_t>{0}, {});
            else
                enc.addColumn(Dtype::Float, {}, bytesOf(&loss, 4));
            ASSERT_TRUE(enc.finish(1000 + s).isOk());
            ASSERT_TRUE((*w)->write(enc.framed(), 2 * s, s, 1000 + s).isOk());
        }
    }
    hid_t st = statsMemType();
    Diagnostics openDiag;
    RunReader run = openRun(dir.file("run"), openDiag);
    std::vector<Stats> firstLossStats, firstActStats;
    // Rows kept by pass 1 or decoded again; all keys written together whenever they hold
    // 64 KiB of rows between them; every statistic left to a backend other than the CPU's.
    for (int variant : {0, 1, 2, 3}) {
        SCOPED_TRACE(variant);
        Hdf5ExportOptions opt;
        OtherBackend other;
        if (variant == 1) opt.rowRefBytes = 0;
        if (variant == 2) opt.bufferBytes = 64 << 10;
        if (variant == 3) opt.backend = &other;
        const std::string out = dir.file("out.h5");
        Diagnostics diag;
        auto report = exportHdf5(run, out, opt, diag);
        ASSERT_TRUE(report.isOk()) << report.status().toString();
        EXPECT_EQ(report->rows, 4u * kSteps - 2 + (kSteps - kLateFrom));
        EXPECT_EQ(other.calls > 0, variant == 3);
        // The damaged rows, located, in record order.
        std::vector<std::uint64_t> badAt;
        for (const auto& d : diag.items())
            if (d.code == "bad-column") badAt.push_back(d.offset);
        EXPECT_EQ(badAt,
                  (std::vector<std::uint64_t>{run.ranks()[0].entry(kBadSteps[0]).offset - 4,
                                              run.ranks()[0].entry(kBadSteps[1]).offset - 4}));
        hid_t f = H5Fopen(out.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
        ASSERT_GE(f, 0);
        const auto loss = readAll<float>(f, "/rank0/loss/values", H5T_NATIVE_FLOAT);
        const auto lossStats = readAll<Stats>(f, "/rank0/loss/stats", st);
        const auto gstep = readAll<std::int64_t>(f, "/rank0/loss/gstep", H5T_NATIVE_INT64);
        const auto ts = readAll<std::int64_t>(f, "/rank0/act/timestamp", H5T_NATIVE_INT64);
        const auto act = readAll<float>(f, "/rank0/act/values", H5T_NATIVE_FLOAT);
        const auto offsets = readAll<std::uint64_t>(f, "/rank0/act/offsets", H5T_NATIVE_UINT64);
        const auto shapes = readAll<std::int64_t>(f, "/rank0/act/shapes", H5T_NATIVE_INT64);
        const auto actStats = readAll<Stats>(f, "/rank0/act/stats", st);
        const auto pair = readAll<double>(f, "/rank0/pair/values", H5T_NATIVE_DOUBLE);
        ASSERT_EQ(loss.size(), std::size_t(kSteps));
        ASSERT_EQ(lossStats.size(), std::size_t(kSteps));
        ASSERT_EQ(offsets.size(), std::size_t(kSteps) + 1);
        ASSERT_EQ(shapes.size(), std::size_t(kSteps));
        ASSERT_EQ(pair.size(), 2 * std::size_t(kSteps));
        std::size_t wrong = 0, at = 0;
        for (int s = 0; s < kSteps; ++s) {
            const auto i = std::size_t(s);
            const std::int64_t n = s % 3 + 1;
            wrong += loss[i] != 0.5f * float(s) || gstep[i] != 2 * s || ts[i] != 1000 + s;
            wrong += lossStats[i].count != 1 || lossStats[i].mean != double(0.5f * float(s));
            wrong += offsets[i] != at || shapes[i] != n;
            for (std::int64_t k = 0; k < n; ++k)
                wrong += act[at + std::size_t(k)] != float(s + k);
            wrong += actStats[i].count != std::uint64_t(n) || actStats[i].min != double(s) ||
                     actStats[i].max != double(s + n - 1);
            wrong += pair[2 * i] != double(s) || pair[2 * i + 1] != -double(s);
            at += std::size_t(n);
        }
        EXPECT_EQ(offsets.back(), at);
        EXPECT_EQ(wrong, 0u);
        EXPECT_EQ(readAll<float>(f, "/rank0/bad/values", H5T_NATIVE_FLOAT).size(),
                  std::size_t(kSteps) - 2);
        const auto late = readAll<std::int64_t>(f, "/rank0/late/gstep", H5T_NATIVE_INT64);
        ASSERT_EQ(late.size(), std::size_t(kSteps - kLateFrom));
        EXPECT_EQ(late.front(), 2 * kLateFrom);
        EXPECT_EQ(late.back(), 2 * (kSteps - 1));
        // Whichever thread or backend computes them, the statistics are the same bits.
        if (variant == 0) firstLossStats = lossStats, firstActStats = actStats;
        EXPECT_EQ(
            std::memcmp(lossStats.data(), firstLossStats.data(), lossStats.size() * sizeof(Stats)),
            0);
        EXPECT_EQ(
            std::memcmp(actStats.data(), firstActStats.data(), actStats.size() * sizeof(Stats)), 0);
        H5Fclose(f);
    }
    H5Tclose(st);

    // Cancelled while the records are planned in two halves: no output.
    int reports = 0;
    Diagnostics diag;
    auto cancelled = exportHdf5(run, dir.file("c.h5"), {}, diag,
                                [&](const ProgressReport&) { return ++reports < 20; });
    EXPECT_EQ(cancelled.status().code(), ErrorCode::Cancelled);
    EXPECT_EQ(reports, 20);
    EXPECT_FALSE(std::filesystem::exists(dir.file("c.h5")));
}

namespace {

// A run of `steps` records whose key "w" holds `floats` floats counting from step * floats,
// and, with `raggedFloats`, a key "r" holding the first raggedFloats(step) of them.
void writeCountingRun(const std::string& path, int steps, int floats,
                      const std::function<int(int)>& raggedFloats = nullptr) {
    const std::vector<std::string> keys =
        raggedFloats ? std::vector<std::string>{"w", "r"} : std::vector<std::string>{"w"};
    auto w = FileSeriesWriter::create({path, "trace", 64 << 20, 0, true}, keys);
    ASSERT_TRUE(w.isOk());
    RecordEncoder enc;
    std::vector<float> row(static_cast<std::size_t>(floats));
    for (int s = 0; s < steps; ++s) {
        for (int i = 0; i < floats; ++i)
            row[std::size_t(i)] = float(s * floats + i);
        enc.begin(s, s);
        enc.addColumn(Dtype::Float, std::vector<std::int64_t>{floats},
                      bytesOf(row.data(), row.size() * 4));
        if (raggedFloats)
            enc.addColumn(Dtype::Float, std::vector<std::int64_t>{raggedFloats(s)},
                          bytesOf(row.data(), std::size_t(raggedFloats(s)) * 4));
        ASSERT_TRUE(enc.finish(s).isOk());
        ASSERT_TRUE((*w)->write(enc.framed(), s, s, s).isOk());
    }
}

} // namespace

TEST(Hdf5Export, FlushesThatStartInsideAChunkAndSpanWholeOnesKeepEveryValue) {
    // "w": rows of 4 KiB, chunks of 256 rows. "r": rows of 1024 and 1023 floats (ragged), its
    // values in chunks of 2^18 elements. With a 1.5 MiB budget, every key is flushed each ~190
    // rows, and keys are flushed in turn past 96 KiB after each batch: flushes mostly start
    // inside a chunk and span whole ones. Uncompressed, the rows are written in place;
    // compressed, through HDF5 (w a chunk at a time).
    xt::test::TempDir dir;
    const int kSteps = 3000, kFloats = 1024;
    auto rFloats = [](int s) { return kFloats - s % 2; };
    ASSERT_NO_FATAL_FAILURE(writeCountingRun(dir.file("run"), kSteps, kFloats, rFloats));
    Diagnostics diag;
    RunReader run = openRun(dir.file("run"), diag);
    for (int deflate : {0, 1}) {
        SCOPED_TRACE(deflate);
        Hdf5ExportOptions opt;
        opt.bufferBytes = 3 << 19;
        opt.deflateLevel = deflate;
        const std::string out = dir.file("out.h5");
        auto report = exportHdf5(run, out, opt, diag);
        ASSERT_TRUE(report.isOk()) << report.status().toString();
        hid_t f = H5Fopen(out.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
        ASSERT_GE(f, 0);
        const auto values = readAll<float>(f, "/rank0/w/values", H5T_NATIVE_FLOAT);
        const auto gstep = readAll<std::int64_t>(f, "/rank0/w/gstep", H5T_NATIVE_INT64);
        const auto ragged = readAll<float>(f, "/rank0/r/values", H5T_NATIVE_FLOAT);
        const auto offsets = readAll<std::uint64_t>(f, "/rank0/r/offsets", H5T_NATIVE_UINT64);
        ASSERT_EQ(values.size(), std::size_t(kSteps) * kFloats);
        ASSERT_EQ(gstep.size(), std::size_t(kSteps));
        ASSERT_EQ(offsets.size(), std::size_t(kSteps) + 1);
        ASSERT_EQ(ragged.size(), offsets.back());
        std::size_t wrong = 0;
        for (std::size_t i = 0; i < values.size(); ++i)
            wrong += values[i] != float(i);
        for (int s = 0; s < kSteps; ++s) {
            wrong += gstep[std::size_t(s)] != s;
            const std::uint64_t at = offsets[std::size_t(s)];
            wrong += offsets[std::size_t(s) + 1] - at != std::uint64_t(rFloats(s));
            for (int i = 0; i < rFloats(s) && at + std::uint64_t(i) < ragged.size(); ++i)
                wrong += ragged[at + std::uint64_t(i)] != float(s * kFloats + i);
        }
        EXPECT_EQ(wrong, 0u);
        H5Fclose(f);
    }
}

TEST(Hdf5Export, AFullDiskFailsTheExportWithTheKeyNamedAndLeavesNoFile) {
    // The output is on a 1 MiB tmpfs (mounted where the tests run as root): rows fail with
    // ENOSPC. With a 2 MiB budget, the key's rows (160 B each, 655 kB a batch of 4096) are
    // flushed in turn after each batch, 128 KiB being exceeded, and never all together: every
    // row is written by the queue the statistics' thread serves, and its failure must stop the
    // export. The key is named, no output or temporary is left, and HDF5 closes the file it
    // could not finish (its failed close crashed the process at exit).
    xt::test::TempDir dir;
    ASSERT_NO_FATAL_FAILURE(writeCountingRun(dir.file("run"), 20000, 16));
    Diagnostics diag;
    RunReader run = openRun(dir.file("run"), diag);
    const std::string full = dir.file("full");
    std::filesystem::create_directory(full);
    if (::mount("tmpfs", full.c_str(), "tmpfs", 0, "size=1m") != 0)
        GTEST_SKIP() << "cannot mount a small tmpfs: " << std::strerror(errno);
    struct Unmount {
        const std::string& path;
        ~Unmount() { ::umount2(path.c_str(), MNT_DETACH); }
    } unmount{full};
    Hdf5ExportOptions opt;
    opt.bufferBytes = 2 << 20;
    const std::string out = full + "/out.h5";
    auto failed = exportHdf5(run, out, opt, diag);
    ASSERT_FALSE(failed.isOk());
    EXPECT_EQ(failed.status().code(), ErrorCode::NoSpace) << failed.status().toString();
    EXPECT_NE(failed.status().message().find("cannot write rows of key w"), std::string::npos)
        << failed.status().toString();
    EXPECT_TRUE(std::filesystem::is_empty(full));
    EXPECT_EQ(H5Fget_obj_count(H5F_OBJ_ALL, H5F_OBJ_FILE), 0); // every file HDF5 opened, closed
}

TEST(Hdf5Export, ChunksAreEvenAndTheLastOneIsWrittenWhole) {
    // 20001 rows of 64 bytes: at most 16384 a chunk, so two chunks of 10001 rows (not one of
    // 16384 and one of 3617 in a chunk the file holds whole). The last chunk holds 10000 rows,
    // one short of whole; its values, steps and statistics read back as written.
    xt::test::TempDir dir;
    const int kSteps = 20001, kFloats = 16;
    ASSERT_NO_FATAL_FAILURE(writeCountingRun(dir.file("run"), kSteps, kFloats));
    Diagnostics diag;
    RunReader run = openRun(dir.file("run"), diag);
    const std::string out = dir.file("out.h5");
    auto report = exportHdf5(run, out, {}, diag);
    ASSERT_TRUE(report.isOk()) << report.status().toString();
    hid_t f = H5Fopen(out.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    ASSERT_GE(f, 0);
    hid_t ds = H5Dopen2(f, "/rank0/w/values", H5P_DEFAULT);
    hid_t dcpl = H5Dget_create_plist(ds);
    hsize_t chunk[2] = {};
    EXPECT_EQ(H5Pget_chunk(dcpl, 2, chunk), 2);
    EXPECT_EQ(chunk[0], 10001u);
    H5Pclose(dcpl), H5Dclose(ds);
    const auto values = readAll<float>(f, "/rank0/w/values", H5T_NATIVE_FLOAT);
    const auto gstep = readAll<std::int64_t>(f, "/rank0/w/gstep", H5T_NATIVE_INT64);
    hid_t st = statsMemType();
    const auto stats = readAll<Stats>(f, "/rank0/w/stats", st);
    H5Tclose(st);
    ASSERT_EQ(values.size(), std::size_t(kSteps) * kFloats);
    ASSERT_EQ(gstep.size(), std::size_t(kSteps));
    ASSERT_EQ(stats.size(), std::size_t(kSteps));
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < values.size(); ++i)
        wrong += values[i] != float(i);
    for (int s = 0; s < kSteps; ++s)
        wrong += gstep[std::size_t(s)] != s || stats[std::size_t(s)].count != kFloats ||
                 stats[std::size_t(s)].max != s * kFloats + kFloats - 1;
    EXPECT_EQ(wrong, 0u);
    H5Fclose(f);
    // Values 64 bytes a row, steps 24, statistics 72: the file holds little more.
    EXPECT_LT(std::filesystem::file_size(out), std::uintmax_t(kSteps) * 160 * 21 / 20);
}
