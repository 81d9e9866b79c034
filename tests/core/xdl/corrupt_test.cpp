// Every edge case of the XDL format (proto/xdl.proto, core/xdl/wire.h): a located diagnostic (file,
// offset, record), no crash, and the good data around the damage stays readable.
#include "core/xdl/key_summary.h"
#include "core/xdl/trace_reader.h"
#include "xdl_test_util.h"

#include <algorithm>
#include <gtest/gtest.h>
#include <random>

using namespace xt;
using namespace xt::xdl;
using xt::test::floatRecord;
using xt::test::frame;
using xt::test::headerBytes;
using xt::test::TempDir;

namespace {

struct Opened {
    Diagnostics diag;
    std::unique_ptr<RunReader> run;
    const RankReader& rank() const { return run->ranks().at(0); }
    std::vector<std::int64_t> gsteps() const {
        std::vector<std::int64_t> g;
        for (size_t i = 0; i < rank().recordCount(); ++i)
            g.push_back(rank().entry(i).gstep);
        return g;
    }
    const Diagnostic* find(const std::string& code) const {
        for (const auto& d : diag.items())
            if (d.code == code) return &d;
        return nullptr;
    }
};

std::unique_ptr<Opened> openBytes(const TempDir& dir, const std::string& bytes,
                                  const std::string& name = "train.trace.0.1") {
    xt::test::writeFile(dir.file(name), bytes);
    auto o = std::make_unique<Opened>();
    auto runs = discoverRuns({dir.file(name)}, o->diag);
    EXPECT_TRUE(runs.isOk());
    auto run = RunReader::open(runs->at(0), o->diag);
    EXPECT_TRUE(run.isOk());
    o->run = std::make_unique<RunReader>(std::move(*run));
    return o;
}

std::string rec(std::int64_t g) {
    return frame(floatRecord(g).SerializeAsString());
}
std::string header() {
    return frame(headerBytes({"w"}));
}
// Offset of record i in header() + rec(0) + rec(1) + ...
std::uint64_t offsetOfRecord(int i) {
    std::uint64_t off = header().size();
    for (int g = 0; g < i; ++g)
        off += rec(g).size();
    return off;
}

} // namespace

TEST(Corrupt, TruncatedTail) {
    TempDir dir;
    std::string full = header() + rec(0) + rec(1) + rec(2);
    auto o = openBytes(dir, full.substr(0, full.size() - 5));
    EXPECT_EQ(o->gsteps(), (std::vector<std::int64_t>{0, 1}));
    const Diagnostic* d = o->find("truncated-record");
    ASSERT_TRUE(d);
    EXPECT_EQ(d->file, dir.file("train.trace.0.1"));
    EXPECT_EQ(d->offset, offsetOfRecord(2));
    EXPECT_EQ(d->record, 2);
    // A tail shorter than a length prefix.
    auto o2 = openBytes(dir, header() + rec(0) + "\x05\x00");
    EXPECT_EQ(o2->gsteps(), (std::vector<std::int64_t>{0}));
    EXPECT_NE(o2->find("truncated-record")->message.find("length prefix"), std::string::npos);
}

TEST(Corrupt, EveryTruncationPointKeepsTheCompleteRecords) {
    TempDir dir;
    std::string full = header() + rec(0) + rec(1) + rec(2);
    std::vector<size_t> ends = {offsetOfRecord(1), offsetOfRecord(2), offsetOfRecord(3)};
    for (size_t cut = 0; cut <= full.size(); ++cut) {
        auto o = openBytes(dir, full.substr(0, cut));
        size_t complete = 0;
        for (size_t e : ends)
            complete += cut >= e ? 1 : 0;
        EXPECT_EQ(o->rank().recordCount(), complete) << "cut at " << cut;
        bool clean = cut == 0 || cut == header().size() ||
                     std::find(ends.begin(), ends.end(), cut) != ends.end();
        EXPECT_EQ(o->find("truncated-record") != nullptr, !clean) << "cut at " << cut;
    }
}

TEST(Corrupt, HugeLengthPrefixInTheMiddleIsSkipped) {
    TempDir dir;
    std::string bad = rec(2);
    bad[0] = '\xf0', bad[1] = bad[2] = bad[3] = '\xff'; // ~4 GiB
    auto o = openBytes(dir, header() + rec(0) + rec(1) + bad + rec(3) + rec(4));
    EXPECT_EQ(o->gsteps(), (std::vector<std::int64_t>{0, 1, 3, 4}));
    const Diagnostic* d = o->find("bad-length");
    ASSERT_TRUE(d);
    EXPECT_EQ(d->offset, offsetOfRecord(2));
    EXPECT_EQ(d->record, 2);
    EXPECT_EQ(d->severity, Severity::Error);
    auto t = o->rank().tensor(2, "w");
    ASSERT_TRUE(t.isOk());
    EXPECT_EQ(t->at<float>(0), 3.0f);
}

TEST(Corrupt, LengthPastTheEndWithRecordsAfterIt) {
    TempDir dir;
    std::string bad = rec(1);
    bad[0] = '\x00', bad[1] = '\x10'; // 4096 bytes: more than the file holds, less than the limit
    auto o = openBytes(dir, header() + rec(0) + bad + rec(2) + rec(3));
    EXPECT_EQ(o->gsteps(), (std::vector<std::int64_t>{0, 2, 3}));
    ASSERT_TRUE(o->find("bad-length"));
    EXPECT_EQ(o->find("bad-length")->offset, offsetOfRecord(1));
    EXPECT_FALSE(o->find("truncated-record"));
}

TEST(Corrupt, ZeroLengthRecords) {
    TempDir dir;
    auto o = openBytes(dir, header() + rec(0) + rec(1) + std::string(12, '\0') + rec(2));
    EXPECT_EQ(o->gsteps(), (std::vector<std::int64_t>{0, 1, 2}));
    const Diagnostic* d = o->find("zero-length");
    ASSERT_TRUE(d);
    EXPECT_EQ(d->offset, offsetOfRecord(2));
    EXPECT_EQ(o->diag.countsByCode().at("zero-length"), 1u); // one diagnostic for the run of 3
    EXPECT_NE(d->message.find("3 zero-length"), std::string::npos);
}

TEST(Corrupt, MissingHeaderBorrowsOrNamesColumns) {
    TempDir dir;
    auto o = openBytes(dir, rec(0) + rec(1));
    EXPECT_EQ(o->gsteps(), (std::vector<std::int64_t>{0, 1}));
    ASSERT_TRUE(o->find("missing-header"));
    EXPECT_EQ(o->rank().keys(), std::vector<std::string>{"column0"});
    EXPECT_TRUE(o->rank().tensor(1, "column0").isOk());

    // With a sibling part that has the header, its key names are used.
    TempDir dir2;
    xt::test::writeFile(dir2.file("train.trace.0.1"), header() + rec(0));
    xt::test::writeFile(dir2.file("train.trace.0.2"), rec(1) + rec(2));
    Diagnostics diag;
    auto runs = discoverRuns({dir2.path().string()}, diag);
    auto run = RunReader::open(runs->at(0), diag);
    ASSERT_TRUE(run.isOk());
    EXPECT_EQ(run->ranks()[0].recordCount(), 3u);
    EXPECT_TRUE(run->ranks()[0].tensor(2, "w").isOk());
    EXPECT_EQ(diag.countsByCode().at("keys-borrowed"), 1u);
}

TEST(Corrupt, EmptyHeaderAndColumnCountMismatch) {
    TempDir dir;
    auto o = openBytes(dir, std::string(4, '\0') + rec(0) + rec(1));
    EXPECT_EQ(o->gsteps(), (std::vector<std::int64_t>{0, 1}));
    ASSERT_TRUE(o->find("empty-header"));
    EXPECT_EQ(o->diag.countsByCode().at("column-count-mismatch"), 2u);

    // Two keys but one column: the second key is reported with its location when read.
    TempDir dir2;
    auto o2 = openBytes(dir2, frame(headerBytes({"w", "extra"})) + rec(0) + rec(1));
    const Diagnostic* d = o2->find("column-count-mismatch");
    ASSERT_TRUE(d);
    EXPECT_EQ(d->record, 0);
    EXPECT_TRUE(o2->rank().tensor(0, "w").isOk());
    auto missing = o2->rank().tensor(0, "extra");
    ASSERT_FALSE(missing.isOk());
    EXPECT_EQ(missing.status().code(), ErrorCode::Corrupt);
    EXPECT_NE(missing.status().message().find(dir2.file("train.trace.0.1") + ":"),
              std::string::npos);
}

TEST(Corrupt, DataShapeMismatchAndUnknownDtype) {
    TempDir dir;
    auto r1 = floatRecord(1);
    r1.mutable_column(0)->mutable_data()->resize(12); // shape [4] float = 16 bytes expected
    auto r2 = floatRecord(2);
    r2.mutable_column(0)->set_dtype(static_cast<::xdl::proto::Type>(9));
    auto o = openBytes(dir, header() + rec(0) + frame(r1.SerializeAsString()) +
                                frame(r2.SerializeAsString()) + rec(3));
    EXPECT_EQ(o->gsteps(), (std::vector<std::int64_t>{0, 1, 2, 3}));
    auto bad = o->rank().tensor(1, "w");
    ASSERT_FALSE(bad.isOk());
    EXPECT_NE(bad.status().message().find("data size does not match shape"), std::string::npos);
    EXPECT_FALSE(o->rank().tensor(2, "w").isOk());
    EXPECT_TRUE(o->rank().tensor(3, "w").isOk());

    auto keys = summarizeKeys(*o->run, o->diag);
    ASSERT_TRUE(keys.isOk());
    EXPECT_EQ((*keys)[0].records, 2u);
    EXPECT_EQ((*keys)[0].damagedRecords, 2u);
    const Diagnostic* sm = o->find("size-mismatch");
    ASSERT_TRUE(sm);
    EXPECT_EQ(sm->record, 1);
    EXPECT_EQ(sm->offset, offsetOfRecord(1));
    EXPECT_TRUE(o->find("unknown-dtype"));

    std::vector<std::int64_t> seen;
    o->rank().forEachTensor("w", o->diag, [&](size_t i, const TensorView&) {
        seen.push_back(o->rank().entry(i).gstep);
        return true;
    });
    EXPECT_EQ(seen, (std::vector<std::int64_t>{0, 3}));
}

TEST(Corrupt, MalformedRecordWithAGoodLengthIsSkipped) {
    TempDir dir;
    std::string bad = rec(1);
    bad[4] = '\x0b'; // group wire type: not a valid Record
    auto o = openBytes(dir, header() + rec(0) + bad + rec(2));
    EXPECT_EQ(o->gsteps(), (std::vector<std::int64_t>{0, 2}));
    const Diagnostic* d = o->find("malformed-record");
    ASSERT_TRUE(d);
    EXPECT_EQ(d->offset, offsetOfRecord(1));
    EXPECT_EQ(d->record, 1);
}

TEST(Corrupt, GarbageInTheMiddleAndHeaderInTheMiddle) {
    TempDir dir;
    std::mt19937 rng(7);
    std::string garbage(333, '\0');
    for (auto& c : garbage)
        c = static_cast<char>(rng());
    auto o = openBytes(dir, header() + rec(0) + garbage + rec(1) + header() + rec(2));
    EXPECT_EQ(o->gsteps(), (std::vector<std::int64_t>{0, 1, 2}));
    EXPECT_GE(o->diag.errorCount(), 1u);
    EXPECT_TRUE(o->find("unexpected-header"));
}

TEST(Corrupt, NegativeAndBackwardSteps) {
    TempDir dir;
    auto o = openBytes(dir, header() + rec(5) + rec(6) + rec(-1) + rec(1));
    EXPECT_EQ(o->gsteps(), (std::vector<std::int64_t>{5, 6, -1, 1}));
    EXPECT_EQ(o->diag.countsByCode().at("negative-step"), 1u);
    const Diagnostic* d = o->find("steps-backwards");
    ASSERT_TRUE(d);
    EXPECT_EQ(d->record, 2);
    EXPECT_EQ(o->rank().findGstep(-1), 2u);
}

TEST(Corrupt, RandomDamageNeverCrashes) {
    std::string good = header();
    for (int g = 0; g < 40; ++g)
        good += rec(g);
    std::mt19937 rng(12345);
    TempDir dir;
    for (int round = 0; round < 300; ++round) {
        std::string bytes = good;
        int flips = 1 + static_cast<int>(rng() % 8);
        for (int i = 0; i < flips; ++i)
            bytes[rng() % bytes.size()] = static_cast<char>(rng());
        if (round % 3 == 0) bytes.resize(rng() % bytes.size());
        auto o = openBytes(dir, bytes);
        const RankReader& r = o->rank();
        ASSERT_LE(r.recordCount(), 40u + 40u);
        RecordView v;
        for (size_t i = 0; i < r.recordCount(); ++i) {
            const RecordEntry& e = r.entry(i);
            ASSERT_LE(e.offset + e.length, bytes.size());
            (void)r.decode(i, v);
            (void)r.tensor(i, "w");
        }
        auto keys = summarizeKeys(*o->run, o->diag);
        ASSERT_TRUE(keys.isOk());
    }
}

TEST(Corrupt, PureGarbageFile) {
    TempDir dir;
    std::mt19937 rng(99);
    std::string garbage(1 << 16, '\0');
    for (auto& c : garbage)
        c = static_cast<char>(rng());
    auto o = openBytes(dir, garbage);
    EXPECT_GE(o->diag.total(), 1u);
    for (size_t i = 0; i < o->rank().recordCount(); ++i)
        EXPECT_LE(o->rank().entry(i).offset + o->rank().entry(i).length, garbage.size());
}
