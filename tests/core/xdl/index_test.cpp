// The record index grows with a live file: partial records wait, complete ones appear.
#include "core/base/file_arena.h"
#include "core/xdl/record_index.h"
#include "core/xdl/trace_reader.h"
#include "resident.h"
#include "xdl_test_util.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <gtest/gtest.h>
#include <random>

using namespace xt;
using namespace xt::xdl;
using xt::test::asBytes;
using xt::test::openUnlinkedIn;
using xt::test::TempDir;

TEST(RecordIndex, ExtendsByteByByteLikeAGrowingFile) {
    std::string full = xt::test::simpleFile(6);
    RecordIndex whole("f");
    Diagnostics d0;
    ASSERT_TRUE(whole.extend(asBytes(full), d0).isOk());
    ASSERT_EQ(whole.records().size(), 6u);

    RecordIndex live("f");
    Diagnostics diag;
    for (size_t n = 0; n <= full.size(); ++n) {
        ASSERT_TRUE(live.extend(asBytes(full).first(n), diag).isOk());
        EXPECT_LE(live.scannedTo(), n);
    }
    EXPECT_TRUE(diag.empty()) << diag.items().front().toString();
    ASSERT_EQ(live.records().size(), 6u);
    EXPECT_EQ(live.keys(), std::vector<std::string>{"w"});
    for (size_t i = 0; i < 6; ++i) {
        EXPECT_EQ(live.records()[i].offset, whole.records()[i].offset);
        EXPECT_EQ(live.records()[i].length, whole.records()[i].length);
        EXPECT_EQ(live.records()[i].gstep, static_cast<std::int64_t>(i));
        EXPECT_EQ(live.records()[i].timestamp, 1700000000000 + static_cast<std::int64_t>(i) * 100);
    }
    EXPECT_EQ(live.scannedTo(), full.size());
}

TEST(RecordIndex, AStateKnowsTheMeanLengthOfItsRecords) {
    const std::string header = xt::test::frame(xt::test::headerBytes({"w"}));
    std::string full = header;
    std::vector<std::string> records;
    for (int n : {10, 300, 7})
        full +=
            records.emplace_back(xt::test::frame(xt::test::floatRecord(1, n).SerializeAsString()));
    EXPECT_EQ(IndexState{}.meanRecordBytes(), 0u);
    RecordIndex index("f");
    Diagnostics diag;
    ASSERT_TRUE(index.extend(asBytes(full), diag).isOk());
    const std::uint64_t bytes = full.size() - header.size();
    // Length prefixes included, rounded up.
    EXPECT_EQ(bytes, records[0].size() + records[1].size() + records[2].size());
    EXPECT_EQ(index.state().meanRecordBytes(), (bytes + 2) / 3);
    EXPECT_EQ(meanRecordBytes(header.size(), full.size(), 3), (bytes + 2) / 3);
    EXPECT_EQ(meanRecordBytes(header.size(), header.size() + 7, 2), 4u);
    EXPECT_EQ(meanRecordBytes(header.size(), full.size(), 0), 0u);
    EXPECT_EQ(meanRecordBytes(header.size(), header.size(), 5), 0u);
}

TEST(RecordIndex, ProgressAndCancellation) {
    // ~80 MB of records: progress is reported every 64 MiB.
    std::string rec = xt::test::frame(xt::test::floatRecord(1, 16000).SerializeAsString());
    std::string big = xt::test::frame(xt::test::headerBytes({"w"}));
    while (big.size() < (80u << 20))
        big += rec;
    RecordIndex idx("big");
    Diagnostics diag;
    int calls = 0;
    Status st = idx.extend(asBytes(big), diag, [&](const ProgressReport& r) {
        ++calls;
        EXPECT_EQ(r.total, big.size());
        return false;
    });
    EXPECT_EQ(st.code(), ErrorCode::Cancelled);
    EXPECT_EQ(calls, 1);
    EXPECT_GT(idx.records().size(), 0u);
    size_t partial = idx.records().size();
    // Continuing after a cancel completes the index without duplicates.
    ASSERT_TRUE(idx.extend(asBytes(big), diag).isOk());
    EXPECT_GT(idx.records().size(), partial);
    EXPECT_EQ(idx.scannedTo(), big.size());
    EXPECT_EQ(idx.records().size(), (big.size() - 7) / rec.size());
    EXPECT_TRUE(diag.empty());
}

// Records of ~170 B hold no page of their own: giving back each record's bytes keeps them all;
// ReleaseBehind gives back what was passed, a few MB at a time.
TEST(RankReader, ReleaseBehindGivesBackThePagesOfSmallRecords) {
    TempDir dir;
    const std::string path = dir.file("train.trace.0.1");
    xt::test::writeFile(path, xt::test::simpleFile(60000, 32)); // ~10 MB
    Diagnostics diag;
    auto run = RunReader::open(discoverRuns({path}, diag)->at(0), diag);
    ASSERT_TRUE(run.isOk());
    const RankReader& rank = run->ranks()[0];
    ASSERT_EQ(rank.recordCount(), 60000u);
    const MappedFile& file = rank.parts()[0]->file();
    const std::uint64_t fileKb = file.size() / 1024;
    RecordView view;
    auto readAll = [&](const std::function<void(std::size_t)>& passed) {
        file.release(0, file.size());
        for (std::size_t i = 0; i < rank.recordCount(); ++i) {
            ASSERT_TRUE(rank.decode(i, view).isOk());
            ASSERT_EQ(view.columns.size(), 1u);
            passed(i);
        }
    };
    readAll([&](std::size_t i) { // record by record: nothing goes
        const RecordEntry& e = rank.entry(i);
        file.release(e.offset - 4, e.length + 4);
    });
    EXPECT_GT(xt::test::residentKbAt(file.bytes().data()), fileKb * 9 / 10);
    {
        ReleaseBehind behind(rank);
        readAll([&](std::size_t i) {
            behind.passed(i);
            if (i % 1000 == 0)
                EXPECT_LT(xt::test::residentKbAt(file.bytes().data()), 6u << 10) << i;
        });
    }
    EXPECT_LT(xt::test::residentKbAt(file.bytes().data()), 64u);
    EXPECT_EQ(rank.tensor(59999, "w")->at<float>(0), 59999.0f); // the bytes are still there
}

TEST(PartReader, RefreshPicksUpAppendedRecordsAndIgnoresPartialOnes) {
    TempDir dir;
    std::string path = dir.file("train.trace.0.1");
    std::string full = xt::test::simpleFile(4);
    std::string first = full.substr(0, full.size() / 2);
    xt::test::writeFile(path, first);
    xt::test::writeFile(path + ".meta", ""); // live: not finalised
    Diagnostics diag;
    auto runs = discoverRuns({path}, diag);
    ReaderOptions live;
    live.live = true;
    auto run = RunReader::open(runs->at(0), diag, {}, live);
    ASSERT_TRUE(run.isOk());
    RankReader& rank = run->ranks()[0];
    size_t before = rank.recordCount();
    EXPECT_LT(before, 4u);
    EXPECT_TRUE(diag.empty()) << "a partial record of a live file is not damage";

    { std::ofstream(path, std::ios::binary | std::ios::app) << full.substr(first.size()); }
    auto changed = rank.refresh(diag);
    ASSERT_TRUE(changed.isOk());
    EXPECT_TRUE(*changed);
    EXPECT_EQ(rank.recordCount(), 4u);
    auto t = rank.tensor(3, "w");
    ASSERT_TRUE(t.isOk());
    EXPECT_EQ(t->at<float>(0), 3.0f);
    auto again = rank.refresh(diag);
    ASSERT_TRUE(again.isOk());
    EXPECT_FALSE(*again);
    EXPECT_TRUE(diag.empty());
}

TEST(PartReader, ADamagedMetaIsReportedOnceNotOnEveryRefresh) {
    TempDir dir;
    std::string path = dir.file("train.trace.0.1");
    xt::test::writeFile(path, xt::test::simpleFile(2));
    xt::test::writeFile(path + ".meta", "\xff\xff"); // not a Meta message
    Diagnostics diag;
    auto runs = discoverRuns({path}, diag);
    ReaderOptions live;
    live.live = true;
    auto run = RunReader::open(runs->at(0), diag, {}, live);
    ASSERT_TRUE(run.isOk());
    EXPECT_EQ(diag.countsByCode().at("corrupt-meta"), 1u);
    for (int i = 0; i < 3; ++i)
        ASSERT_TRUE(run->ranks()[0].refresh(diag).isOk());
    EXPECT_EQ(diag.countsByCode().at("corrupt-meta"), 1u);
    // Once the writer finalises it, the meta is read.
    MetaInfo m{1, 2, 0, 1, 1700000000000, 1700000000100};
    xt::test::writeFile(path + ".meta", encodeMeta(m));
    ASSERT_TRUE(run->ranks()[0].refresh(diag).isOk());
    EXPECT_EQ(run->ranks()[0].parts()[0]->part().metaState, MetaState::Finalised);
}

// An index restored from a saved state continues where that scan stopped: byte by byte, every
// prefix's state restored and extended over the whole file gives the index of a fresh scan.
TEST(RecordIndex, RestoredStateContinuesTheScan) {
    std::string full = xt::test::simpleFile(5);
    RecordIndex whole("f");
    Diagnostics d0;
    ASSERT_TRUE(whole.extend(asBytes(full), d0).isOk());
    for (size_t n = 0; n <= full.size(); n += 7) {
        RecordIndex head("f");
        Diagnostics diag;
        ASSERT_TRUE(head.extend(asBytes(full).first(n), diag).isOk());
        IndexState state = head.takeState();
        EXPECT_TRUE(head.records().empty());
        EXPECT_EQ(head.scannedTo(), 0u);
        RecordIndex restored = RecordIndex::restore("f", std::move(state));
        ASSERT_TRUE(restored.extend(asBytes(full), diag).isOk());
        EXPECT_TRUE(diag.empty()) << n;
        ASSERT_EQ(restored.records().size(), whole.records().size()) << n;
        for (size_t i = 0; i < whole.records().size(); ++i) {
            EXPECT_EQ(restored.records()[i].offset, whole.records()[i].offset);
            EXPECT_EQ(restored.records()[i].gstep, whole.records()[i].gstep);
        }
        EXPECT_EQ(restored.keys(), whole.keys());
        EXPECT_EQ(restored.headerLength(), whole.headerLength());
        EXPECT_EQ(restored.scannedTo(), full.size());
    }
}

// A seeded PartReader takes its index from the seed (the bytes it covers are not scanned again)
// and scans only what follows; a seed longer than the file is dropped.
TEST(PartReader, OpensFromASeededIndexAndScansOnlyTheTail) {
    TempDir dir;
    const std::string path = dir.file("train.trace.0.1");
    const std::string full = xt::test::simpleFile(6);
    RecordIndex head("f");
    Diagnostics diag;
    ASSERT_TRUE(head.extend(asBytes(full).first(xt::test::simpleFile(4).size()), diag).isOk());
    IndexState seed = head.takeState();
    ASSERT_EQ(seed.records.size(), 4u);
    seed.records[1].gstep = 999; // a value only the seed has
    xt::test::writeFile(path, full);
    PartFile part;
    part.path = path;
    auto reader = PartReader::open(part, seed, diag);
    ASSERT_TRUE(reader.isOk());
    ASSERT_EQ((*reader)->index().records().size(), 6u);
    EXPECT_EQ((*reader)->index().records()[1].gstep, 999);
    EXPECT_EQ((*reader)->index().records()[5].gstep, 5);
    EXPECT_EQ((*reader)->keys(), std::vector<std::string>{"w"});
    EXPECT_TRUE(diag.empty());

    IndexState tooLong;
    tooLong.scannedTo = full.size() + 1;
    tooLong.records.resize(9);
    auto rescanned = PartReader::open(part, tooLong, diag);
    ASSERT_TRUE(rescanned.isOk());
    EXPECT_EQ((*rescanned)->index().records().size(), 6u);
    EXPECT_EQ((*rescanned)->index().records()[1].gstep, 1);
}

// A part of small records is mapped for scans (on a 2 MiB boundary: the page cache's large folios
// mapped whole), one of large records for lookups (one page off), and a seeded part by its
// records' mean length; any part for scans where ReaderOptions::readsWhole. The bytes are the
// file's either way.
TEST(PartReader, PlacesSmallRecordsForScansAndLargeOnesForLookups) {
    TempDir dir;
    const auto offsetOf = [](const PartReader& r) {
        return reinterpret_cast<std::uintptr_t>(r.bytes().data()) % (2u << 20);
    };
    const auto page = static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE));
    for (const int floats : {16, 32768}) { // 64 B and 128 KiB a record
        const std::string path = dir.file("train.trace.0." + std::to_string(floats));
        std::string bytes = xt::test::frame(xt::test::headerBytes({"w"}));
        for (std::int64_t g = 0; bytes.size() < (4u << 20); ++g)
            bytes += xt::test::frame(xt::test::floatRecord(g, floats).SerializeAsString());
        xt::test::writeFile(path, bytes);
        PartFile part;
        part.path = path;
        Diagnostics diag;
        auto reader = PartReader::open(part, diag);
        ASSERT_TRUE(reader.isOk());
        const std::uintptr_t expected = floats == 16 ? 0 : page;
        EXPECT_EQ(offsetOf(**reader), expected) << floats;
        EXPECT_EQ(std::memcmp((*reader)->bytes().data(), bytes.data(), bytes.size()), 0);
        auto seeded = PartReader::open(part, (*reader)->index().state(), diag);
        ASSERT_TRUE(seeded.isOk());
        EXPECT_EQ(offsetOf(**seeded), expected) << floats;
        EXPECT_EQ((*seeded)->index().records().size(), (*reader)->index().records().size());
        // Whatever the records' size, for a reader that reads them all whole.
        ReaderOptions whole;
        whole.readsWhole = true;
        for (const bool fromSeed : {false, true}) {
            auto opened = fromSeed
                              ? PartReader::open(part, (*reader)->index().state(), diag, {}, whole)
                              : PartReader::open(part, diag, {}, whole);
            ASSERT_TRUE(opened.isOk());
            EXPECT_EQ(offsetOf(**opened), 0u) << floats << (fromSeed ? " seeded" : "");
            EXPECT_EQ(std::memcmp((*opened)->bytes().data(), bytes.data(), bytes.size()), 0);
        }
        EXPECT_TRUE(diag.empty());
    }
}

// A preview (ReaderOptions::scanBytes) indexes the records within the first bytes only, at any
// cut: the record the cut falls in is neither indexed nor reported, nor is the meta checked, and
// the part is not finished. A limit past the end is an ordinary open.
TEST(PartReader, APreviewIndexesTheRecordsWithinItsFirstBytes) {
    TempDir dir;
    const std::string path = dir.file("train.trace.0.1");
    const std::string full = xt::test::simpleFile(6);
    xt::test::writeFile(path, full);
    PartFile part;
    part.path = path;
    part.metaState = MetaState::Finalised;
    // The meta of six records (lstep, gstep, timestamp ranges): not what a prefix has.
    part.meta = {1, 6, 0, 5, 1700000000000, 1700000000500};
    for (int records = 0; records <= 6; ++records) {
        const std::size_t end = xt::test::simpleFile(records).size();
        for (std::uint64_t cut : {std::uint64_t(end), std::uint64_t(end + 3)}) {
            if (cut > full.size()) continue;
            ReaderOptions options;
            options.scanBytes = cut;
            Diagnostics diag;
            auto reader = PartReader::open(part, diag, {}, options);
            ASSERT_TRUE(reader.isOk()) << cut;
            EXPECT_EQ((*reader)->index().records().size(), std::size_t(records)) << cut;
            EXPECT_EQ((*reader)->previewOnly(), cut < full.size()) << cut;
            EXPECT_EQ((*reader)->finished(), cut == full.size()) << cut;
            EXPECT_TRUE(diag.empty()) << cut << ": " << diag.items().front().message;
            if (records) EXPECT_EQ((*reader)->index().records().back().gstep, records - 1);
        }
    }
    ReaderOptions past;
    past.scanBytes = full.size() + 100;
    Diagnostics diag;
    auto whole = PartReader::open(part, diag, {}, past);
    ASSERT_TRUE(whole.isOk());
    EXPECT_EQ((*whole)->index().records().size(), 6u);
    EXPECT_FALSE((*whole)->previewOnly());
    EXPECT_TRUE((*whole)->finished());
}

// A seed whose entries were not checked (a run shown from its summaries' overviews): an entry
// that lies beyond the file gives an error where it is read, not bytes past the mapping.
TEST(PartReader, AnEntryBeyondTheFileDoesNotDecode) {
    TempDir dir;
    const std::string path = dir.file("train.trace.0.1");
    const std::string full = xt::test::simpleFile(4);
    RecordIndex index("f");
    Diagnostics diag;
    ASSERT_TRUE(index.extend(asBytes(full), diag).isOk());
    IndexState seed = index.takeState();
    ASSERT_EQ(seed.records.size(), 4u);
    seed.records[2].offset = full.size() - 2; // its length runs past the end
    seed.records[3].offset = full.size() + 4096;
    xt::test::writeFile(path, full);
    PartFile part;
    part.path = path;
    auto reader = PartReader::open(part, seed, diag);
    ASSERT_TRUE(reader.isOk());
    std::vector<std::shared_ptr<PartReader>> parts;
    parts.push_back(std::move(*reader));
    RankReader rank(0, std::move(parts), diag, false);
    EXPECT_TRUE(rank.tensor(1, "w").isOk());
    for (std::size_t r : {2u, 3u}) {
        EXPECT_TRUE(rank.parts()[0]->message(rank.entry(r)).empty());
        EXPECT_FALSE(rank.tensor(r, "w").isOk()) << r;
    }
}

namespace {
// Indexes `bytes` as it grows in `pieces` steps, on one thread or in two-thread steps of `split`
// bytes, and returns everything the index says: its records, diagnostics and position.
struct Scan {
    std::vector<RecordEntry> records;
    std::vector<std::string> diagnostics;
    std::uint64_t scannedTo = 0;
    bool tailReported = false;
};
// What `index` says, with the diagnostics it gave.
Scan scanOf(const RecordIndex& index, const Diagnostics& diag) {
    Scan s;
    s.records.assign(index.records().begin(), index.records().end());
    for (const Diagnostic& d : diag.items())
        s.diagnostics.push_back(d.toString());
    s.scannedTo = index.scannedTo();
    s.tailReported = index.tailReported();
    return s;
}
Scan scanIn(const std::string& bytes, std::uint64_t split, int pieces,
            const std::string& spillDir = {}) {
    IndexOptions options;
    options.splitBytes = split;
    options.maxRecordBytes = 1u << 20;
    options.spillDir = spillDir;
    RecordIndex index("f", options);
    Diagnostics diag;
    for (int i = 1; i <= pieces; ++i)
        EXPECT_TRUE(index.extend(asBytes(bytes).first(bytes.size() * i / pieces), diag).isOk());
    index.finish(asBytes(bytes), diag);
    return scanOf(index, diag);
}
void expectSameScan(const Scan& a, const Scan& b) {
    ASSERT_EQ(a.records.size(), b.records.size());
    for (std::size_t i = 0; i < a.records.size(); ++i) {
        const RecordEntry &x = a.records[i], &y = b.records[i];
        ASSERT_EQ(x.offset, y.offset) << "record " << i;
        ASSERT_EQ(x.length, y.length) << "record " << i;
        ASSERT_EQ(x.columnCount, y.columnCount) << "record " << i;
        ASSERT_EQ(x.gstep, y.gstep) << "record " << i;
        ASSERT_EQ(x.lstep, y.lstep) << "record " << i;
        ASSERT_EQ(x.timestamp, y.timestamp) << "record " << i;
    }
    EXPECT_EQ(a.diagnostics, b.diagnostics);
    EXPECT_EQ(a.scannedTo, b.scannedTo);
    EXPECT_EQ(a.tailReported, b.tailReported);
}
// Small records of 1-40 floats, and some whose bytes column holds two framed records and ends
// the record (no timestamp follows): a second thread starting inside one of those finds a chain
// of well-formed records that joins the real ones, but starts where the scan never goes.
std::string smallRecordsWithDecoys(int records, std::mt19937& rng) {
    std::string s = xt::test::frame(xt::test::headerBytes({"w"}));
    for (int g = 0; g < records; ++g) {
        ::xdl::proto::Record r = xt::test::floatRecord(g, 1 + static_cast<int>(rng() % 40));
        if (rng() % 8 == 0) {
            std::string decoys = xt::test::frame(xt::test::floatRecord(g, 3).SerializeAsString());
            decoys += decoys;
            auto* c = r.mutable_column(0);
            c->set_dtype(::xdl::proto::Int8);
            c->clear_shape();
            c->add_shape(static_cast<std::int64_t>(decoys.size()));
            c->set_data(decoys);
            r.clear_timestamp();
        }
        s += xt::test::frame(r.SerializeAsString());
    }
    return s;
}
} // namespace

TEST(RecordIndex, TwoThreadScanEqualsTheOneThreadScan) {
    std::mt19937 rng(7);
    const std::string file = smallRecordsWithDecoys(20000, rng); // ~2 MB
    const Scan one = scanIn(file, 0, 1);
    ASSERT_EQ(one.records.size(), 20000u);
    EXPECT_TRUE(one.diagnostics.empty());
    for (std::uint64_t split : {1024ull, 4096ull, 65536ull})
        for (int pieces : {1, 3}) {
            SCOPED_TRACE("split " + std::to_string(split) + ", pieces " + std::to_string(pieces));
            expectSameScan(scanIn(file, split, pieces), one);
        }
}

TEST(RecordIndex, TwoThreadScanOfDamagedFilesEqualsTheOneThreadScan) {
    // Damage of every kind the index reports, at random places: overwritten bytes, zero runs,
    // a huge length prefix, a header in the middle, a cut-off end. Records, diagnostics (with
    // their offsets and record numbers) and the end of the scan are those of one thread.
    std::mt19937 rng(11);
    for (int trial = 0; trial < 40; ++trial) {
        SCOPED_TRACE("trial " + std::to_string(trial));
        std::string file = smallRecordsWithDecoys(3000, rng);
        // Three places, damaged from the last to the first so that insertions do not move the
        // places still to come; zeros go between records, the rest anywhere.
        const Scan clean = scanIn(file, 0, 1);
        std::vector<std::pair<std::size_t, int>> places;
        for (int k = 0; k < 3; ++k) {
            const int kind = static_cast<int>(rng() % 5);
            const RecordEntry& r = clean.records[1 + rng() % (clean.records.size() - 2)];
            places.emplace_back(kind == 1 ? r.offset - 4 : r.offset + rng() % r.length, kind);
        }
        std::sort(places.rbegin(), places.rend());
        for (const auto& [at, kind] : places) {
            switch (kind) {
            case 0: // garbage
                for (std::size_t i = 0; i < 1 + rng() % 40; ++i)
                    file[at + i] = static_cast<char>(rng());
                break;
            case 1: // a zero-filled region
                file.replace(at, 0, std::string(4 * (1 + rng() % 1024), '\0'));
                break;
            case 2: // a length prefix over the limit
                file.replace(at, 4, std::string("\xff\xff\xff\x7f", 4));
                break;
            case 3: // a header in the middle
                file.replace(at, 0, xt::test::frame(xt::test::headerBytes({"x", "y"})));
                break;
            default: // a record of two columns where one is expected
                ::xdl::proto::Record r = xt::test::floatRecord(9, 2);
                *r.add_column() = r.column(0);
                file.replace(at, 0, xt::test::frame(r.SerializeAsString()));
            }
        }
        if (trial % 4 == 0) file.resize(file.size() - 1 - rng() % 100);
        const Scan one = scanIn(file, 0, 1);
        expectSameScan(scanIn(file, 2048, 1), one);
        expectSameScan(scanIn(file, 2048, 4), scanIn(file, 0, 4));
    }
}

namespace {
// A file of `records` small records with damage of three kinds in it, and a cut-off end.
std::string damagedSmallRecords(int records, std::mt19937& rng) {
    std::string file = smallRecordsWithDecoys(records, rng);
    file.replace(file.size() / 3, 0, std::string(4 * 100, '\0'));         // zeros
    file.replace(file.size() / 2, 4, std::string("\xff\xff\xff\x7f", 4)); // a huge length
    for (std::size_t i = 0; i < 30; ++i)                                  // garbage
        file[file.size() * 3 / 4 + i] = static_cast<char>(rng());
    file.resize(file.size() - 7);
    return file;
}
std::size_t filesIn(const std::string& dir) {
    return static_cast<std::size_t>(std::distance(std::filesystem::directory_iterator(dir),
                                                  std::filesystem::directory_iterator()));
}
} // namespace

TEST(RecordIndex, SpilledScanEqualsTheScanInMemory) {
    // Over 64 Ki records go to an unlinked file in the spill folder as the scan goes: records,
    // diagnostics and the end of the scan are those of the scan in memory, scanned whole or as
    // the file grows, on one thread or two.
    std::mt19937 rng(5);
    const std::string file = damagedSmallRecords(150000, rng);
    TempDir dir;
    const Scan memory = scanIn(file, 0, 1);
    ASSERT_GT(memory.records.size(), 140000u);
    ASSERT_GE(memory.diagnostics.size(), 3u);
    for (std::uint64_t split : {0ull, 65536ull})
        for (int pieces : {1, 7}) {
            SCOPED_TRACE("split " + std::to_string(split) + ", pieces " + std::to_string(pieces));
            expectSameScan(scanIn(file, split, pieces, dir.str()), scanIn(file, split, pieces));
        }
    EXPECT_EQ(filesIn(dir.str()), 0u); // nothing left behind, nothing to clean up

    // Where no file can be made (the folder is a file), the records stay in memory.
    const std::string notADir = dir.file("plain");
    xt::test::writeFile(notADir, "x");
    expectSameScan(scanIn(file, 65536, 3, notADir + "/spill"), scanIn(file, 65536, 3));
}

TEST(RecordIndex, ASpilledIndexIsMappedSharedAndGivenBackBehind) {
    std::mt19937 rng(9);
    const std::string file = smallRecordsWithDecoys(200000, rng);
    TempDir dir;
    IndexOptions options;
    options.spillDir = dir.str();
    RecordIndex index("f", options);
    Diagnostics diag;
    ASSERT_TRUE(index.extend(asBytes(file).first(file.size() / 2), diag).isOk());
    ASSERT_TRUE(index.spilled());
    const std::size_t half = index.records().size();
    const IndexState early = index.state(); // shares the mapping: no copy of the records
    EXPECT_EQ(early.mapped.data(), index.records().data());
    EXPECT_TRUE(early.records.empty());
    ASSERT_TRUE(index.extend(asBytes(file), diag).isOk());
    index.finish(asBytes(file), diag);
    EXPECT_TRUE(diag.empty());
    const Scan memory = scanIn(file, 0, 1);
    const auto records = index.records();
    ASSERT_EQ(records.size(), memory.records.size());
    ASSERT_EQ(records.size(), 200000u);
    // Not in this process's memory: a file mapping, read in as it is passed and given back.
    EXPECT_EQ(xt::test::smapsKbAt(records.data(), "Anonymous"), 0u);
    std::size_t released = 0;
    std::uint64_t most = 0;
    for (std::size_t r = 0; r < records.size(); ++r) {
        ASSERT_EQ(records[r].offset, memory.records[r].offset) << r;
        ASSERT_EQ(records[r].gstep, memory.records[r].gstep) << r;
        index.releaseBehind(r, released);
        if (r % 4096 == 0)
            most = std::max(most, xt::test::residentKbIn(records.data(), records.size_bytes()));
    }
    index.releaseBehind(records.size(), released);
    EXPECT_LT(most, 6u << 10); // 64 Ki records are 2.5 MiB
    EXPECT_GT(most, 0u);
    EXPECT_LT(xt::test::residentKbIn(records.data(), records.size_bytes()), 64u);
    EXPECT_EQ(records.back().offset, memory.records.back().offset); // read in again

    // The early state outlives the index, and an index restored from it scans on into a spill
    // of its own: the same records as one scan.
    index = RecordIndex("g");
    ASSERT_EQ(early.mapped.size(), half);
    EXPECT_EQ(early.mapped[half - 1].offset, memory.records[half - 1].offset);
    RecordIndex restored = RecordIndex::restore("f", early, options);
    ASSERT_TRUE(restored.extend(asBytes(file), diag).isOk());
    EXPECT_TRUE(restored.spilled());
    ASSERT_EQ(restored.records().size(), memory.records.size());
    EXPECT_NE(restored.records().data(), early.mapped.data());
    for (std::size_t r = 0; r < memory.records.size(); r += 997)
        ASSERT_EQ(restored.records()[r].timestamp, memory.records[r].timestamp) << r;
    EXPECT_EQ(filesIn(dir.str()), 0u);
}

TEST(RecordIndex, IndexesRestoredOneFromAnotherAppendToOneSpill) {
    // A followed part: each snapshot's index is restored from the one before and scans what the
    // file gained. They share one spill file, each reading the records before where the one
    // before reads them; an older index extended once a newer one has appended copies its
    // records to a spill of its own. Every index holds the records of one scan of its bytes.
    std::mt19937 rng(11);
    const std::string file = smallRecordsWithDecoys(20000, rng);
    const Scan whole = scanIn(file, 0, 1);
    ASSERT_EQ(whole.records.size(), 20000u);
    const auto expectScanOf = [&](const RecordIndex& index, std::size_t end) {
        std::size_t n = 0;
        while (n < whole.records.size() && whole.records[n].offset + whole.records[n].length <= end)
            ++n;
        ASSERT_EQ(index.records().size(), n) << "bytes " << end;
        for (std::size_t r = 0; r < n; ++r) {
            ASSERT_EQ(index.records()[r].offset, whole.records[r].offset) << r;
            ASSERT_EQ(index.records()[r].timestamp, whole.records[r].timestamp) << r;
        }
    };
    TempDir dir;
    IndexOptions options;
    options.spillDir = dir.str();
    options.spillAbove = 1000;
    Diagnostics diag;
    std::vector<std::size_t> ends;
    for (int i = 1; i <= 5; ++i)
        ends.push_back(file.size() * i / 6 - 3); // most likely inside a record
    std::vector<RecordIndex> snapshots;
    snapshots.emplace_back("f", options);
    ASSERT_TRUE(snapshots[0].extend(asBytes(file).first(ends[0]), diag).isOk());
    ASSERT_TRUE(snapshots[0].spilled());
    for (std::size_t i = 1; i < ends.size(); ++i) {
        snapshots.push_back(RecordIndex::restore("f", snapshots.back().state(), options));
        ASSERT_TRUE(snapshots[i].extend(asBytes(file).first(ends[i]), diag).isOk());
        EXPECT_EQ(snapshots[i].records().data(), snapshots[i - 1].records().data()) << i;
    }
    EXPECT_TRUE(diag.empty());
    EXPECT_EQ(openUnlinkedIn(dir.str()), 1u);
    for (std::size_t i = 0; i < ends.size(); ++i)
        expectScanOf(snapshots[i], ends[i]);

    // The second snapshot grows again, while the spill holds the later ones' records.
    ASSERT_TRUE(snapshots[1].extend(asBytes(file), diag).isOk());
    EXPECT_NE(snapshots[1].records().data(), snapshots[4].records().data());
    EXPECT_EQ(openUnlinkedIn(dir.str()), 2u);
    expectScanOf(snapshots[1], file.size());
    for (std::size_t i = 0; i < ends.size(); ++i)
        if (i != 1) expectScanOf(snapshots[i], ends[i]);
    // The newest still appends to the first spill.
    RecordIndex next = RecordIndex::restore("f", snapshots[4].state(), options);
    ASSERT_TRUE(next.extend(asBytes(file), diag).isOk());
    EXPECT_EQ(next.records().data(), snapshots[4].records().data());
    snapshots.clear();
    EXPECT_EQ(openUnlinkedIn(dir.str()), 1u);
    expectScanOf(next, file.size());
    EXPECT_TRUE(diag.empty());
}

TEST(RecordIndex, FinishedIndexesKeepTheirRecordsInOneSharedFile) {
    // The finished parts of a followed run (IndexOptions::finishedArena, a FileArena): each index's
    // records go to one unlinked file of the folder at finish(), read through its mapping; they are
    // those of the scan in memory, damage and its diagnostics included.
    std::mt19937 rng(13);
    TempDir dir;
    IndexOptions options;
    options.maxRecordBytes = 1u << 20; // as scanIn's
    options.spillDir = dir.str();
    options.finishedArena = FileArena::inFolder(dir.str());
    EXPECT_EQ(FileArena::inFolder(dir.str()), options.finishedArena); // one a folder
    std::vector<std::string> files;
    std::vector<RecordIndex> indexes;
    for (int part = 0; part < 40; ++part) {
        files.push_back(part % 10 == 9 ? damagedSmallRecords(250, rng)
                                       : smallRecordsWithDecoys(250, rng));
        const std::string& file = files.back();
        RecordIndex index("f", options);
        Diagnostics diag;
        ASSERT_TRUE(index.extend(asBytes(file).first(file.size() / 2), diag).isOk());
        const RecordEntry* growing = index.records().data();
        ASSERT_TRUE(index.extend(asBytes(file), diag).isOk());
        index.finish(asBytes(file), diag);
        EXPECT_FALSE(index.spilled());
        EXPECT_NE(index.records().data(), growing);
        EXPECT_EQ(xt::test::smapsKbAt(index.records().data(), "Anonymous"), 0u) << part;
        SCOPED_TRACE("part " + std::to_string(part));
        expectSameScan(scanOf(index, diag), scanIn(file, 0, 1));
        indexes.push_back(std::move(index));
    }
    EXPECT_EQ(openUnlinkedIn(dir.str()), 1u);
    for (std::size_t i = 1; i < indexes.size(); ++i) // one after another in one mapping
        EXPECT_EQ(indexes[i].records().data(),
                  indexes[i - 1].records().data() + indexes[i - 1].records().size());

    // Its state shares the records; an index restored from it that finds the file grown (an
    // idle part written to again) takes them back and scans on.
    const IndexState state = indexes[0].state();
    EXPECT_EQ(state.mapped.data(), indexes[0].records().data());
    EXPECT_TRUE(state.records.empty());
    const std::string grown = files[0] + smallRecordsWithDecoys(30, rng).substr(
                                             xt::test::frame(xt::test::headerBytes({"w"})).size());
    RecordIndex restored = RecordIndex::restore("f", state, IndexOptions{});
    Diagnostics diag;
    ASSERT_TRUE(restored.extend(asBytes(grown), diag).isOk());
    EXPECT_EQ(restored.records().size(), indexes[0].records().size() + 30);
    EXPECT_EQ(restored.records()[0].offset, indexes[0].records()[0].offset);
    EXPECT_TRUE(diag.empty());

    // The file goes with the last index and the arena: nothing left behind.
    indexes.clear();
    options.finishedArena.reset();
    EXPECT_EQ(openUnlinkedIn(dir.str()), 0u);
    EXPECT_EQ(filesIn(dir.str()), 0u);

    // Where no file can be made, the records stay in memory.
    const std::string notADir = dir.file("plain");
    xt::test::writeFile(notADir, "x");
    IndexOptions nowhere;
    nowhere.finishedArena = FileArena::inFolder(notADir + "/arena");
    RecordIndex index("f", nowhere);
    ASSERT_TRUE(index.extend(asBytes(files[1]), diag).isOk());
    index.finish(asBytes(files[1]), diag);
    EXPECT_GT(xt::test::smapsKbAt(index.records().data(), "Anonymous"), 0u);
    EXPECT_EQ(index.records().size(), 250u);
}
