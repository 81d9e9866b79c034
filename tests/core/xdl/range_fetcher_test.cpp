// The byte-range hook of PartReader: a part with a fetcher has every byte range it reads
// ensured first (the index scan at open and refresh, each record decoded), and a range the
// fetcher cannot bring in is an error, never the file's zeros.
#include "core/xdl/key_summary.h"
#include "core/xdl/trace_reader.h"
#include "xdl_test_util.h"

#include <gtest/gtest.h>
#include <mutex>

namespace xt::xdl {
namespace {

// Records the ranges asked for; refuses those that start at or beyond `refuseFrom`.
struct FakeFetcher : RangeFetcher {
    std::mutex mutex;
    std::vector<std::pair<std::uint64_t, std::uint64_t>> calls;
    std::uint64_t refuseFrom = UINT64_MAX;
    Status ensure(std::uint64_t offset, std::uint64_t length) override {
        std::lock_guard lock(mutex);
        calls.emplace_back(offset, length);
        if (offset + length > refuseFrom)
            return Status(ErrorCode::IoError, "hdfs://nn/run/part: bytes " +
                                                  std::to_string(offset) +
                                                  ".. are not in the mirror (offline)");
        return Status::ok();
    }
};

struct Fixture {
    test::TempDir dir;
    std::string path = dir.file("train.trace.0.1");
    std::shared_ptr<FakeFetcher> fetcher = std::make_shared<FakeFetcher>();
    PartFile part() const {
        PartFile p;
        p.path = path;
        p.source = "hdfs://nn/run/train.trace.0.1";
        p.fetcher = fetcher;
        return p;
    }
};

TEST(RangeFetcherTest, OpenEnsuresWhatItIndexesAndDecodeEnsuresEachRecord) {
    Fixture f;
    const std::string bytes = test::simpleFile(3);
    test::writeFile(f.path, bytes);
    Diagnostics diag;
    auto reader = PartReader::open(f.part(), diag);
    ASSERT_TRUE(reader) << reader.status().toString();
    ASSERT_EQ(f.fetcher->calls.size(), 1u);
    EXPECT_EQ(f.fetcher->calls[0], std::make_pair(std::uint64_t(0), std::uint64_t(bytes.size())));
    EXPECT_EQ((*reader)->part().displayPath(), "hdfs://nn/run/train.trace.0.1");

    std::vector<std::shared_ptr<PartReader>> parts;
    parts.push_back(std::move(*reader));
    RankReader rank(0, std::move(parts), diag);
    f.fetcher->calls.clear();
    auto t = rank.tensor(1, "w");
    ASSERT_TRUE(t) << t.status().toString();
    const RecordEntry& e = rank.entry(1);
    ASSERT_EQ(f.fetcher->calls.size(), 1u);
    EXPECT_EQ(f.fetcher->calls[0], std::make_pair(e.offset, std::uint64_t(e.length)));
}

TEST(RangeFetcherTest, ASeededIndexCoveringThePartFetchesNothingAtOpen) {
    Fixture f;
    test::writeFile(f.path, test::simpleFile(3));
    Diagnostics diag;
    auto first = PartReader::open(f.part(), diag);
    ASSERT_TRUE(first);
    IndexState seed;
    {
        RecordIndex copy = (*first)->index();
        seed = copy.takeState();
    }
    f.fetcher->calls.clear();
    auto seeded = PartReader::open(f.part(), std::move(seed), diag);
    ASSERT_TRUE(seeded);
    EXPECT_TRUE(f.fetcher->calls.empty());
    EXPECT_EQ((*seeded)->index().records().size(), 3u);
}

TEST(RangeFetcherTest, AnUnavailableRangeIsALocatedErrorNotZeros) {
    Fixture f;
    const std::string bytes = test::simpleFile(3);
    test::writeFile(f.path, bytes);
    Diagnostics diag;
    auto reader = PartReader::open(f.part(), diag);
    ASSERT_TRUE(reader);
    const std::uint64_t lastOffset = (*reader)->index().records().back().offset;
    f.fetcher->refuseFrom = lastOffset; // the last record is not there
    std::vector<std::shared_ptr<PartReader>> parts;
    parts.push_back(std::move(*reader));
    RankReader rank(0, std::move(parts), diag);
    EXPECT_TRUE(rank.tensor(0, "w"));
    auto t = rank.tensor(2, "w");
    ASSERT_FALSE(t);
    EXPECT_EQ(t.status().code(), ErrorCode::IoError);
    EXPECT_NE(t.status().message().find(":" + std::to_string(lastOffset - 4) + ": "),
              std::string::npos)
        << t.status().message();
    EXPECT_NE(t.status().message().find("offline"), std::string::npos);

    Diagnostics each;
    std::size_t seen = 0;
    rank.forEachTensor("w", each, [&](std::size_t, const TensorView&) { return ++seen, true; });
    EXPECT_EQ(seen, 2u);
    ASSERT_EQ(each.items().size(), 1u);
    EXPECT_EQ(each.items()[0].code, "unavailable-record");

    // The scan at open fails as a whole when the bytes to index cannot be had.
    f.fetcher->refuseFrom = 0;
    Diagnostics again;
    auto refused = PartReader::open(f.part(), again);
    ASSERT_FALSE(refused);
    EXPECT_EQ(refused.status().code(), ErrorCode::IoError);
}

TEST(RangeFetcherTest, KeySummaryReportsUnavailableRecords) {
    Fixture f;
    test::writeFile(f.path, test::simpleFile(3));
    Diagnostics diag;
    RunFiles files;
    files.directory = f.dir.path().string();
    files.prefix = "train";
    files.name = "trace";
    files.source = "hdfs://nn/run";
    files.ranks.push_back({0, {f.part()}, {}});
    EXPECT_EQ(files.label(), "hdfs://nn/run/train.trace");
    auto run = RunReader::open(files, diag);
    ASSERT_TRUE(run);
    f.fetcher->refuseFrom = run->ranks()[0].entry(1).offset;
    Diagnostics keysDiag;
    auto keys = summarizeKeys(*run, keysDiag);
    ASSERT_TRUE(keys);
    EXPECT_EQ((*keys)[0].records, 1u);
    ASSERT_GE(keysDiag.items().size(), 1u);
    EXPECT_EQ(keysDiag.items()[0].code, "unavailable-record");
}

} // namespace
} // namespace xt::xdl
