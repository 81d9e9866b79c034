// FileSeriesWriter + RecordEncoder -> RunReader round trips, and the upstream naming, splitting,
// header repetition and meta rules.
#include "core/xdl/file_series_writer.h"
#include "core/xdl/key_summary.h"
#include "core/xdl/trace_reader.h"
#include "xdl_test_util.h"

#include <cmath>
#include <gtest/gtest.h>
#include <limits>
#include <sys/stat.h>

using namespace xt;
using namespace xt::xdl;
using xt::test::TempDir;

namespace {

Bytes asBytes(const void* p, size_t n) {
    return {static_cast<const std::uint8_t*>(p), n};
}

RunReader openOnly(const std::string& dir, Diagnostics& diag) {
    auto runs = discoverRuns({dir}, diag);
    EXPECT_TRUE(runs.isOk());
    EXPECT_EQ(runs->size(), 1u);
    auto run = RunReader::open(runs->front(), diag);
    EXPECT_TRUE(run.isOk()) << run.status().toString();
    return std::move(*run);
}

} // namespace

TEST(Writer, RoundTripEveryDtype) {
    TempDir dir;
    std::vector<std::string> keys = {"i8",  "i16",  "i32", "i64",   "f32",
                                     "f64", "bool", "u8",  "scalar"};
    auto w = FileSeriesWriter::create({dir.path().string(), "trace", 300, 0, true}, keys);
    ASSERT_TRUE(w.isOk()) << w.status().toString();

    std::vector<std::int8_t> i8 = {-128, -1, 0, 127};
    std::vector<std::int16_t> i16 = {-32768, 5, 32767, 0};
    std::vector<std::int32_t> i32 = {INT32_MIN, -2, 3, INT32_MAX};
    std::vector<std::int64_t> i64 = {INT64_MIN, -9, 10, INT64_MAX};
    std::vector<float> f32 = {-1.5f, std::numeric_limits<float>::quiet_NaN(),
                              std::numeric_limits<float>::infinity(), 3.25f};
    std::vector<double> f64 = {1e-300, -0.0, 2.5, -std::numeric_limits<double>::infinity()};
    std::vector<std::uint8_t> b = {1, 0, 0, 1}, u8 = {0, 255, 7, 128};
    double scalar = 6.5;
    std::vector<std::int64_t> shape = {2, 2};
    RecordEncoder enc;
    for (int step = 0; step < 3; ++step) {
        enc.begin(step * 100, step + 1);
        enc.addColumn(Dtype::Int8, shape, asBytes(i8.data(), 4));
        enc.addColumn(Dtype::Int16, shape, asBytes(i16.data(), 8));
        enc.addColumn(Dtype::Int32, shape, asBytes(i32.data(), 16));
        enc.addColumn(Dtype::Int64, shape, asBytes(i64.data(), 32));
        enc.addColumn(Dtype::Float, shape, asBytes(f32.data(), 16));
        enc.addColumn(Dtype::Double, shape, asBytes(f64.data(), 32));
        enc.addColumn(Dtype::Bool, shape, asBytes(b.data(), 4));
        enc.addColumn(Dtype::Byte, {}, asBytes(u8.data(), 1)); // 0-d
        enc.addColumn(Dtype::Double, {}, asBytes(&scalar, 8));
        ASSERT_TRUE(enc.finish(1700000000000 + step).isOk());
        ASSERT_TRUE((*w)->write(enc.framed(), step * 100, step + 1, 1700000000000 + step).isOk());
    }
    ASSERT_TRUE((*w)->close().isOk());
    ASSERT_TRUE((*w)->close().isOk()); // twice is fine

    Diagnostics diag;
    RunReader run = openOnly(dir.path().string(), diag);
    EXPECT_TRUE(diag.empty()) << diag.items().front().toString();
    const RankReader& rank = run.ranks().at(0);
    ASSERT_EQ(rank.recordCount(), 3u);
    EXPECT_EQ(rank.keys(), keys);
    EXPECT_EQ(rank.entry(2).gstep, 200);
    EXPECT_EQ(rank.entry(2).lstep, 3);
    EXPECT_EQ(rank.entry(2).timestamp, 1700000000002);
    auto t = [&](const char* key) {
        auto r = rank.tensor(1, key);
        EXPECT_TRUE(r.isOk()) << r.status().toString();
        return *r;
    };
    for (int i = 0; i < 4; ++i) {
        EXPECT_EQ(t("i8").at<std::int8_t>(i), i8[i]);
        EXPECT_EQ(t("i16").at<std::int16_t>(i), i16[i]);
        EXPECT_EQ(t("i32").at<std::int32_t>(i), i32[i]);
        EXPECT_EQ(t("i64").at<std::int64_t>(i), i64[i]);
        EXPECT_EQ(t("bool").at<std::uint8_t>(i), b[i]);
        if (std::isnan(f32[i]))
            EXPECT_TRUE(std::isnan(t("f32").at<float>(i)));
        else
            EXPECT_EQ(t("f32").at<float>(i), f32[i]);
        EXPECT_EQ(t("f64").at<double>(i), f64[i]);
    }
    EXPECT_TRUE(std::signbit(t("f64").at<double>(1)));
    EXPECT_EQ(t("i64").valueAsDouble(2), 10.0);
    EXPECT_EQ(t("u8").size(), 1u);
    EXPECT_EQ(t("u8").shape().rank, 0);
    EXPECT_EQ(t("scalar").at<double>(0), 6.5);
    EXPECT_EQ(t("f32").shape().toString(), "[2, 2]");
    EXPECT_FALSE(rank.tensor(1, "nope").isOk());

    auto summary = summarizeKeys(run, diag);
    ASSERT_TRUE(summary.isOk());
    EXPECT_EQ((*summary)[4].dtype, Dtype::Float);
    EXPECT_EQ((*summary)[4].records, 3u);
    EXPECT_FALSE((*summary)[4].varyingShape);
}

TEST(Writer, NamingSplittingHeadersAndMetas) {
    TempDir dir;
    // 0.0002 MB = 200 bytes: header (4 + 3) + records of 4 + 27 bytes.
    WriterOptions opt{dir.path().string(), "my.trace", 0.0002, 3, false};
    auto w = FileSeriesWriter::create(opt, {"w"});
    ASSERT_TRUE(w.isOk());
    EXPECT_TRUE(std::filesystem::exists(dir.file("test.my.trace.3.1")));
    EXPECT_EQ(std::filesystem::file_size(dir.file("test.my.trace.3.1.meta")), 0u); // not final yet
    const int records = 20;
    for (int g = 0; g < records; ++g) {
        std::string framed = xt::test::frame(xt::test::floatRecord(g).SerializeAsString());
        ASSERT_TRUE(
            (*w)->write(asBytes(framed.data(), framed.size()), g, g + 1, 1700000000000 + g * 100)
                .isOk());
    }
    ASSERT_TRUE((*w)->close().isOk());

    // Expected split points: before a record, when the part already holds >= 200 bytes.
    const std::size_t header = 4 + xt::test::headerBytes({"w"}).size();
    auto recBytes = [](int g) {
        return xt::test::frame(xt::test::floatRecord(g).SerializeAsString());
    };
    std::vector<int> perPart = {0};
    for (std::size_t bytes = header, g = 0; g < records; ++g) {
        if (bytes >= 200) perPart.push_back(0), bytes = header;
        bytes += recBytes(static_cast<int>(g)).size();
        ++perPart.back();
    }
    const int parts = static_cast<int>(perPart.size());
    ASSERT_GT(parts, 2);
    EXPECT_EQ((*w)->partIndex(), parts);

    int g = 0;
    for (int index = 1; index <= parts; ++index) {
        std::string path = dir.file("test.my.trace.3." + std::to_string(index));
        std::string bytes = xt::test::readFile(path);
        // Every part starts with the same header, then whole records.
        std::string expected = xt::test::frame(xt::test::headerBytes({"w"}));
        const int n = perPart[static_cast<size_t>(index - 1)];
        for (int k = 0; k < n; ++k)
            expected += recBytes(g + k);
        EXPECT_EQ(bytes, expected) << path;
        ::xdl::proto::Meta meta;
        ASSERT_TRUE(meta.ParseFromString(xt::test::readFile(path + ".meta")));
        EXPECT_EQ(meta.gstep_begin(), g);
        EXPECT_EQ(meta.gstep_end(), g + n - 1);
        EXPECT_EQ(meta.lstep_begin(), g + 1);
        EXPECT_EQ(meta.timestamp_end(), 1700000000000 + (g + n - 1) * 100);
        g += n;
    }
    EXPECT_EQ(g, records);
    EXPECT_FALSE(std::filesystem::exists(dir.file("test.my.trace.3." + std::to_string(parts + 1))));

    Diagnostics diag;
    RunReader run = openOnly(dir.path().string(), diag);
    EXPECT_TRUE(diag.empty());
    EXPECT_EQ(run.files().prefix, "test");
    EXPECT_EQ(run.files().name, "my.trace");
    EXPECT_EQ(run.ranks().at(0).rank(), 3);
    EXPECT_EQ(run.ranks().at(0).recordCount(), static_cast<size_t>(records));
    for (int i = 0; i < records; ++i) {
        auto t = run.ranks()[0].tensor(static_cast<size_t>(i), "w");
        ASSERT_TRUE(t.isOk());
        EXPECT_EQ(t->at<float>(3), static_cast<float>(i) + 0.75f);
    }
}

// recordBytes and recordAfterBytes read a part's first and last entries and search its index;
// they must agree with a walk over every record, across parts and headers.
TEST(Writer, RecordBytesAndTheRecordAfterBytesAgreeWithAWalkOverTheRecords) {
    TempDir dir;
    WriterOptions opt{dir.path().string(), "walk.trace", 0.0005, 0, false};
    auto w = FileSeriesWriter::create(opt, {"w"});
    ASSERT_TRUE(w.isOk());
    for (int g = 0; g < 40; ++g) {
        const std::string framed =
            xt::test::frame(xt::test::floatRecord(g, 1 + (g * 7) % 13).SerializeAsString());
        ASSERT_TRUE((*w)->write(asBytes(framed.data(), framed.size()), g, g + 1, g).isOk());
    }
    ASSERT_TRUE((*w)->close().isOk());
    Diagnostics diag;
    const RunReader run = openOnly(dir.path().string(), diag);
    const RankReader& rank = run.ranks().at(0);
    ASSERT_GE(rank.parts().size(), 3u);
    const std::size_t n = rank.recordCount();
    ASSERT_EQ(n, 40u);
    for (std::size_t from = 0; from <= n; ++from) {
        std::uint64_t walked = 0;
        for (std::size_t to = from; to <= n; ++to) {
            EXPECT_EQ(rank.recordBytes(from, to), walked) << from << ".." << to;
            if (to < n) walked += rank.entry(to).length + 4;
        }
        for (std::uint64_t bytes : {1ull, 30ull, 100ull, 333ull, 1000ull, 100000ull}) {
            std::size_t end = from;
            for (std::uint64_t sum = 0; end < n && sum < bytes; ++end)
                sum += rank.entry(end).length + 4;
            EXPECT_EQ(rank.recordAfterBytes(from, bytes), end) << from << " + " << bytes;
        }
    }
}

TEST(Writer, EmptyRunHasUnknownMeta) {
    TempDir dir;
    {
        auto w = FileSeriesWriter::create({dir.path().string(), "trace", 300, 0, true}, {"a"});
        ASSERT_TRUE(w.isOk());
    } // destructor closes
    EXPECT_EQ(xt::test::readFile(dir.file("train.trace.0.1.meta")), encodeMeta(MetaInfo{}));
    Diagnostics diag;
    RunReader run = openOnly(dir.path().string(), diag);
    EXPECT_EQ(run.ranks().at(0).recordCount(), 0u);
    EXPECT_TRUE(diag.empty());
}

TEST(Writer, ReportsUnwritableDirectoryAndMisuse) {
    if (::geteuid() == 0) {
        // root ignores permissions; a path below a regular file is unwritable for everyone.
        TempDir dir;
        xt::test::writeFile(dir.file("file"), "x");
        auto w = FileSeriesWriter::create({dir.file("file") + "/sub", "trace", 300, 0, true}, {});
        ASSERT_FALSE(w.isOk());
        EXPECT_NE(w.status().message().find("file/sub"), std::string::npos);
    } else {
        auto w = FileSeriesWriter::create({"/proc/xt_forbidden", "trace", 300, 0, true}, {});
        ASSERT_FALSE(w.isOk());
    }
    TempDir dir;
    EXPECT_FALSE(FileSeriesWriter::create({dir.path().string(), "", 300, 0, true}, {}).isOk());
    EXPECT_FALSE(FileSeriesWriter::create({dir.path().string(), "t", 0, 0, true}, {}).isOk());
    EXPECT_FALSE(FileSeriesWriter::create({dir.path().string(), "t", 300, -1, true}, {}).isOk());
    auto w = FileSeriesWriter::create({dir.path().string(), "t", 300, 0, true}, {"a"});
    ASSERT_TRUE(w.isOk());
    std::uint8_t junk[6] = {9, 0, 0, 0, 1, 2};
    EXPECT_EQ((*w)->write(Bytes(junk, 6), 0, 1, 0).code(), ErrorCode::InvalidArgument);
    ASSERT_TRUE((*w)->close().isOk());
    std::uint8_t ok[4] = {0, 0, 0, 0};
    EXPECT_FALSE((*w)->write(Bytes(ok, 4), 0, 1, 0).isOk()); // closed
}

TEST(Writer, DiskFullIsReportedAndFileEndsOnARecord) {
    if (!std::filesystem::exists("/dev/full")) GTEST_SKIP() << "no /dev/full";
    // /dev/full accepts open() and fails every write with ENOSPC.
    TempDir dir;
    std::filesystem::create_symlink("/dev/full", dir.file("train.trace.0.1"));
    auto w = FileSeriesWriter::create({dir.path().string(), "trace", 300, 0, true}, {"a"});
    ASSERT_FALSE(w.isOk());
    EXPECT_EQ(w.status().code(), ErrorCode::NoSpace);
}
