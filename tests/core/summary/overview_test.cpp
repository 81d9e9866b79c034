// The overview section of part summaries (docs/SUMMARY-FORMAT.md, section 9): equal to the
// records and columns it stands for, computed here independently; read alone with its own
// checksum; damage found by the peek or, against the columns, by the full parse.

#include "core/base/mapped_file.h"
#include "core/summary/overview.h"
#include "core/summary/summary_store.h"
#include "summary_file.h"
#include "summary_test_util.h"

#include <algorithm>
#include <filesystem>
#include <gtest/gtest.h>
#include <limits>

using namespace xt;
using namespace xt::summary;
using xt::test::TempDir;
namespace fs = std::filesystem;

namespace {

// A part of `records` small records over three blocks and a bit: a scalar with a NaN now and
// then, a vector, and a column that is empty after the first record; gsteps go back once.
std::string smallRecordsPart(int records) {
    std::mt19937_64 rng(5);
    std::string bytes = xt::test::frameHeader({"loss", "w", "once"});
    for (int r = 0; r < records; ++r) {
        const std::int64_t g = r < 5000 ? 2 * r : 2 * r - 7000; // restarted once
        std::vector<xt::test::Column> cols;
        float loss = float(100.0 / (1 + r));
        if (r % 1777 == 1000) loss = std::numeric_limits<float>::quiet_NaN();
        cols.push_back({xdl::Dtype::Float, {}, std::string(reinterpret_cast<char*>(&loss), 4)});
        cols.push_back({xdl::Dtype::Float, {8}, xt::test::randomValues(xdl::Dtype::Float, 8, rng)});
        if (r == 0)
            cols.push_back({xdl::Dtype::Int8, {2}, "hi"});
        else
            cols.push_back({xdl::Dtype::Float, {0}, ""});
        bytes += xt::test::frameRecord(g, r, 1700000000000 + 3 * r, cols);
    }
    return bytes;
}

struct Built {
    std::shared_ptr<const PartSummary> summary;
    std::string file; // where it was saved
};

Built buildSaved(const TempDir& dir, const std::string& part) {
    const std::string path = dir.file("train.trace.0.1");
    xt::test::writeBytes(path, part);
    StoreOptions o;
    o.cacheDir = dir.file("cache");
    xdl::PartFile p;
    p.path = path;
    p.size = fs::file_size(path);
    Diagnostics diag;
    auto r = loadOrBuildSummary(p, o, diag);
    EXPECT_TRUE(r.isOk());
    if (!r) return {};
    return {r->summary, r->savedTo};
}

Result<PartSummary> peekAt(const std::string& path, std::uint64_t* at = nullptr) {
    auto f = MappedFile::open(path);
    if (!f) return f.status();
    return peekSummary(std::make_shared<const MappedFile>(std::move(*f)), path, at);
}

Result<PartSummary> parseAt(const std::string& path, std::uint64_t* at = nullptr) {
    auto f = MappedFile::open(path);
    if (!f) return f.status();
    return parseSummary(std::make_shared<const MappedFile>(std::move(*f)), path, at);
}

// The overview as the format defines it, computed from a parsed summary's records and columns.
void expectOverviewOf(const PartSummary& s, const Overview& o) {
    const std::size_t n = s.recordCount();
    ASSERT_EQ(o.records, n);
    ASSERT_EQ(o.blocks.size(), (n + kOverviewBlock - 1) / kOverviewBlock);
    ASSERT_EQ(o.totals, s.totals);
    const double inf = std::numeric_limits<double>::infinity();
    for (std::size_t b = 0; b < o.blocks.size(); ++b) {
        const std::size_t first = b * kOverviewBlock, last = std::min(n, first + kOverviewBlock);
        OverviewBlock want{s.records[first].gstep,     s.records[first].gstep,
                           s.records[first].gstep,     s.records[last - 1].gstep,
                           s.records[first].lstep,     s.records[first].lstep,
                           s.records[first].timestamp, s.records[first].timestamp};
        for (std::size_t r = first; r < last; ++r) {
            const auto& e = s.records[r];
            want.g0 = std::min(want.g0, e.gstep), want.g1 = std::max(want.g1, e.gstep);
            want.l0 = std::min(want.l0, e.lstep), want.l1 = std::max(want.l1, e.lstep);
            want.t0 = std::min(want.t0, e.timestamp), want.t1 = std::max(want.t1, e.timestamp);
        }
        EXPECT_EQ(o.blocks[b], want) << "block " << b;
        for (std::size_t c = 0; c < o.columns(); ++c) {
            OverviewCell cell;
            cell.lo.fill(inf);
            cell.hi.fill(-inf);
            for (std::size_t r = first; r < last; ++r) {
                const auto cols = s.columnsOf(r);
                if (c >= cols.size() || cols[c].state != ColumnState::Data) continue;
                const auto& st = cols[c].stats;
                ++cell.data;
                cell.nonFinite += st.nan + st.inf > 0;
                const double v[] = {double(st.count),
                                    double(st.nan),
                                    double(st.inf),
                                    double(st.zeros),
                                    double(st.finite),
                                    st.min,
                                    st.max,
                                    st.mean,
                                    st.std,
                                    st.l2};
                for (std::size_t f = 0; f < kOverviewFields; ++f) {
                    if (f >= 5 && !st.finite) continue;
                    cell.lo[f] = std::min(cell.lo[f], v[f]);
                    cell.hi[f] = std::max(cell.hi[f], v[f]);
                }
            }
            EXPECT_EQ(o.cell(c, b), cell) << "block " << b << ", column " << c;
        }
    }
}

// The overview's own checksum made right again (sections 1, 2, 4, 6, then its own payload).
void resealOverview(std::string& b) {
    const auto at = xt::test::summarySections(b);
    const auto payload = [&](std::uint32_t id, std::size_t skip) {
        std::uint64_t len;
        std::memcpy(&len, b.data() + at.at(id) + 16, 8);
        return std::span<const std::uint8_t>(
            reinterpret_cast<const std::uint8_t*>(b.data() + at.at(id) + 24 + skip), len - skip);
    };
    std::uint32_t c = 0;
    for (std::uint32_t id : {1u, 2u, 4u, 6u})
        c = crc32(payload(id, 0), c);
    c = crc32(payload(9, 4), c);
    std::memcpy(b.data() + at.at(9) + 24, &c, 4);
}

} // namespace

TEST(SummaryOverview, EqualsTheRecordsAndColumnsBlockByBlock) {
    TempDir dir;
    const Built built = buildSaved(dir, smallRecordsPart(3 * int(kOverviewBlock) + 123));
    ASSERT_TRUE(built.summary);
    ASSERT_FALSE(built.file.empty());
    auto full = parseAt(built.file);
    ASSERT_TRUE(full.isOk()) << full.status().toString();
    ASSERT_TRUE(full->overview);
    expectOverviewOf(*full, *full->overview);
    // The NaN columns and the empty ones are counted where they are.
    const Overview& o = *full->overview;
    ASSERT_EQ(o.columns(), 3u);
    EXPECT_EQ(o.totals[0].firstNan, 1000u);
    EXPECT_EQ(o.cell(0, 0).nonFinite, 2u); // records 1000 and 2777 (block 1 starts at 4096)
    EXPECT_EQ(o.totals[2].empty, o.records - 1);
    EXPECT_EQ(o.cell(2, 1).data, 0u);
    EXPECT_FALSE(o.cell(2, 1).hasFinite());
    EXPECT_EQ(o.blocks[1].g0, 2 * 5000 - 7000); // the restart lies in block 1
    EXPECT_EQ(o.blocks[1].gFirst, 2 * 4096);

    // Peeked alone: the same overview, identity, index state, keys, shapes and totals, and the
    // records read in place.
    auto peeked = peekAt(built.file);
    ASSERT_TRUE(peeked.isOk()) << peeked.status().toString();
    ASSERT_TRUE(peeked->overview);
    EXPECT_EQ(peeked->overview->blocks, o.blocks);
    EXPECT_EQ(peeked->overview->cells, o.cells);
    EXPECT_EQ(peeked->totals, full->totals);
    EXPECT_EQ(peeked->identity.size, full->identity.size);
    EXPECT_EQ(peeked->identity.source, full->identity.source);
    EXPECT_EQ(peeked->identity.tailPrint, full->identity.tailPrint);
    EXPECT_EQ(peeked->scannedTo, full->scannedTo);
    EXPECT_EQ(peeked->keys, full->keys);
    EXPECT_EQ(peeked->shapes, full->shapes);
    ASSERT_EQ(peeked->recordCount(), full->recordCount());
    EXPECT_TRUE(peeked->records.inPlace());
    EXPECT_EQ(peeked->records.back().offset, full->records.back().offset);
    EXPECT_EQ(peeked->columns.size(), 0u);

    // A summary built in memory and one written from a parsed (mapped) summary agree.
    EXPECT_EQ(serializeSummary(*full), serializeSummary(*built.summary));
}

TEST(SummaryOverview, AnOverviewThatDoesNotMatchIsRefused) {
    TempDir dir;
    const Built built = buildSaved(dir, smallRecordsPart(int(kOverviewBlock) + 10));
    ASSERT_TRUE(built.summary);
    const std::string good = xt::test::readBytes(built.file);
    const auto sections = xt::test::summarySections(good);
    ASSERT_EQ(sections.count(9), 1u);
    const std::size_t ov = sections.at(9);
    const std::string path = dir.file("changed.xts");
    // A cell's value changed: its own checksum finds it, the whole file's checksum made right
    // or not.
    std::string b = good;
    const std::size_t cellByte = b.size() - 16 - 200;
    b[cellByte] ^= 0x40;
    xt::test::resealSummary(b);
    xt::test::writeBytes(path, b);
    std::uint64_t at = 0;
    auto p = peekAt(path, &at);
    ASSERT_FALSE(p.isOk());
    EXPECT_NE(p.status().message().find("overview: checksum mismatch"), std::string::npos);
    EXPECT_EQ(at, ov + 24);
    EXPECT_FALSE(parseAt(path).isOk());
    // With its checksum made right as well, the peek takes it; the full parse compares it with
    // the columns and refuses it there.
    resealOverview(b);
    xt::test::resealSummary(b);
    xt::test::writeBytes(path, b);
    EXPECT_TRUE(peekAt(path).isOk());
    at = 0;
    auto f = parseAt(path, &at);
    ASSERT_FALSE(f.isOk());
    EXPECT_NE(f.status().message().find("the overview does not match the columns"),
              std::string::npos)
        << f.status().toString();
    EXPECT_EQ(at, ov + 24);
    // The identity it vouches for, changed: the peek refuses it.
    b = good;
    b[sections.at(1) + 24 + 8] ^= 1; // mtime
    xt::test::resealSummary(b);
    xt::test::writeBytes(path, b);
    p = peekAt(path);
    ASSERT_FALSE(p.isOk());
    EXPECT_NE(p.status().message().find("overview: checksum mismatch"), std::string::npos);
    // Truncated, or its end marker gone: refused before anything is read.
    xt::test::writeBytes(path, good.substr(0, good.size() - 5));
    EXPECT_FALSE(peekAt(path).isOk());
    // A file without an overview (an older writer's: the section is one an older reader skips)
    // is not peeked, and parses in full.
    b = good;
    const std::uint32_t other = 77;
    std::memcpy(b.data() + ov, &other, 4);
    xt::test::resealSummary(b);
    xt::test::writeBytes(path, b);
    p = peekAt(path);
    ASSERT_FALSE(p.isOk());
    EXPECT_EQ(p.status().code(), ErrorCode::NotFound);
    f = parseAt(path);
    ASSERT_TRUE(f.isOk()) << f.status().toString();
    EXPECT_FALSE(f->overview);
}

TEST(SummaryOverview, OnlyASummaryOfThePartAsItIsIsPeeked) {
    TempDir dir;
    const Built built = buildSaved(dir, smallRecordsPart(300));
    ASSERT_TRUE(built.summary);
    StoreOptions o;
    o.cacheDir = dir.file("cache");
    const std::string path = dir.file("train.trace.0.1");
    xdl::PartFile p;
    p.path = path;
    p.size = fs::file_size(path);
    auto peeked = peekValidSummary(p, o);
    ASSERT_TRUE(peeked);
    EXPECT_EQ(peeked->recordCount(), 300u);
    // The part grew: a summary of its prefix is the full open's to extend, not peeked.
    xt::test::writeBytes(path, smallRecordsPart(301).substr(xt::test::readBytes(path).size()),
                         true);
    p.size = fs::file_size(path);
    EXPECT_FALSE(peekValidSummary(p, o));
    // Rewritten with other bytes of the same size: not peeked either.
    std::string bytes = xt::test::readBytes(path);
    bytes[bytes.size() - 3] ^= 1;
    xt::test::writeBytes(path, bytes);
    EXPECT_FALSE(peekValidSummary(p, o));
}
