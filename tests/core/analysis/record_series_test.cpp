// RecordSeries: the per-record statistics of a key, shared between snapshots of a followed run.
#include "core/analysis/record_series.h"
#include "core/base/file_arena.h"
#include "temp_dir.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <vector>

using xt::analysis::RecordSeries;
using xt::analysis::RecordStats;

namespace {

RecordStats rec(std::size_t i) {
    RecordStats r;
    r.record = i;
    r.gstep = std::int64_t(i) * 10;
    r.lstep = std::int64_t(i);
    r.timestamp = std::int64_t(i) * 1000;
    r.stats.count = i + 1;
    return r;
}

void expectRecords(const RecordSeries& s, std::size_t n) {
    ASSERT_EQ(s.size(), n);
    for (std::size_t i = 0; i < n; ++i) {
        ASSERT_EQ(s[i].record, i) << i;
        ASSERT_EQ(s[i].gstep, std::int64_t(i) * 10) << i;
        ASSERT_EQ(s[i].stats.count, i + 1) << i;
    }
}

} // namespace

TEST(RecordSeries, AppendsAcrossChunkBoundariesAndReadsBackInOrder) {
    const std::size_t k = RecordSeries::kChunk;
    RecordSeries s;
    EXPECT_TRUE(s.empty());
    for (std::size_t n : {std::size_t(1), k - 1, k, k + 1, 3 * k + 7}) {
        s.clear();
        for (std::size_t i = 0; i < n; ++i)
            s.push_back(rec(i));
        expectRecords(s, n);
        EXPECT_EQ(s.front().record, 0u);
        EXPECT_EQ(s.back().record, n - 1);
        // Iterators walk the same records and support the random-access algorithms used on it.
        std::size_t i = 0;
        for (const RecordStats& r : s)
            ASSERT_EQ(r.record, i++);
        EXPECT_EQ(std::size_t(s.end() - s.begin()), n);
        const auto it =
            std::lower_bound(s.begin(), s.end(), std::int64_t(n / 2) * 10,
                             [](const RecordStats& r, std::int64_t g) { return r.gstep < g; });
        EXPECT_EQ(it->record, n / 2);
    }
}

TEST(RecordSeries, CopiesShareFullChunksAndDivergeOnlyInTheirTails) {
    const std::size_t k = RecordSeries::kChunk;
    RecordSeries a;
    for (std::size_t i = 0; i < 2 * k + 5; ++i)
        a.push_back(rec(i));
    EXPECT_EQ(a.sharedChunks(), 0u); // no other copy yet

    RecordSeries b = a;
    EXPECT_EQ(a.sharedChunks(), 2u);
    EXPECT_EQ(b.sharedChunks(), 2u);

    // Appending to one copy does not change the other.
    for (std::size_t i = 2 * k + 5; i < 3 * k + 1; ++i)
        b.push_back(rec(i));
    expectRecords(a, 2 * k + 5);
    expectRecords(b, 3 * k + 1);
    EXPECT_EQ(b.sharedChunks(), 2u); // its third chunk is its own

    RecordSeries c = b;
    EXPECT_EQ(b.sharedChunks(), 3u);
    a.clear();
    EXPECT_TRUE(a.empty());
    expectRecords(b, 3 * k + 1);
    expectRecords(c, 3 * k + 1);
}

TEST(RecordSeries, BuildsFromAnInitializerList) {
    const RecordSeries s{rec(0), rec(1), rec(2)};
    expectRecords(s, 3);
}

TEST(RecordSeries, CountsTheRecordsWithNaNOrInfAsTheyAreAdded) {
    RecordSeries s;
    for (std::size_t i = 0; i < 3 * RecordSeries::kChunk; ++i) {
        RecordStats r = rec(i);
        r.stats.nan = i % 100 == 7 ? 2 : 0;
        r.stats.inf = i % 250 == 3 ? 1 : 0;
        s.push_back(r);
    }
    const auto counted = std::count_if(
        s.begin(), s.end(), [](const RecordStats& r) { return r.stats.nan || r.stats.inf; });
    EXPECT_GT(counted, 10);
    EXPECT_EQ(s.nonFiniteRecords(), std::size_t(counted));
    const RecordSeries copy = s;
    EXPECT_EQ(copy.nonFiniteRecords(), std::size_t(counted));
    s.clear();
    EXPECT_EQ(s.nonFiniteRecords(), 0u);
    s.push_back(rec(1));
    EXPECT_EQ(s.nonFiniteRecords(), 0u);
}

namespace {

// The bits of every field, so that -0.0, NaN payloads and the last bit of a double all count.
std::vector<std::uint64_t> bitsOf(const RecordStats& r) {
    const auto& s = r.stats;
    return {r.record,
            std::uint64_t(r.gstep),
            std::uint64_t(r.lstep),
            std::uint64_t(r.timestamp),
            s.count,
            s.nan,
            s.inf,
            s.zeros,
            s.finite,
            std::bit_cast<std::uint64_t>(s.min),
            std::bit_cast<std::uint64_t>(s.max),
            std::bit_cast<std::uint64_t>(s.mean),
            std::bit_cast<std::uint64_t>(s.std),
            std::bit_cast<std::uint64_t>(s.l2)};
}

// Records whose fields, chunk by chunk, need each way of packing: constant, offsets of 1, 2, 4
// and 8 bytes (negative and extreme values included), exact floats and full doubles.
std::vector<RecordStats> variedRecords(std::size_t n) {
    std::vector<RecordStats> out;
    const std::int64_t spans[] = {0, 200, 60000, 4000000000LL};
    for (std::size_t i = 0; i < n; ++i) {
        const std::size_t chunk = i / RecordSeries::kChunk;
        const std::int64_t span = spans[chunk % 4];
        RecordStats r;
        r.record = 7 + 3 * i;
        r.gstep = -1000 + (span ? std::int64_t(i * 7919) % span : 0);
        r.lstep = chunk == 4 ? (i % 2 ? INT64_MIN : INT64_MAX) : std::int64_t(i);
        r.timestamp = 1'700'000'000'000'000 + std::int64_t(i) * 1'000'003;
        auto& s = r.stats;
        s.count = chunk == 5 ? UINT64_MAX - i % 3 : 4096;
        s.nan = i % 97 == 5 ? i : 0;
        s.inf = 0;
        s.zeros = chunk % 2 ? i * i : 12;
        s.finite = s.count - s.nan - s.inf;
        s.min = -float(i) / 8.0f;                          // exact floats
        s.max = chunk == 2 ? 1.0 / 3.0 : double(float(i)); // a double in one chunk
        s.mean = i % 11 ? double(i) / 7.0 : -0.0;
        s.std = chunk == 3 ? std::nan("") : std::sqrt(double(i));
        s.l2 = chunk == 1 ? 0.0 : 1e300 / double(i + 1);
        out.push_back(r);
    }
    return out;
}

// Field f of r as RecordSeries::read gives it: integers converted, doubles as they are.
double asRead(const RecordStats& r, RecordSeries::Field f) {
    using Field = RecordSeries::Field;
    const std::uint64_t bits = bitsOf(r)[std::size_t(f)];
    if (f >= Field::Min) return std::bit_cast<double>(bits);
    if (f >= Field::Gstep && f <= Field::Timestamp) return double(std::int64_t(bits));
    return double(bits);
}

} // namespace

TEST(RecordSeries, PackedChunksGiveBackEveryFieldBitForBit) {
    const std::size_t n = 6 * RecordSeries::kChunk + 100; // six packed chunks and a tail
    const auto records = variedRecords(n);
    RecordSeries s;
    s.append(records.begin(), records.end());
    ASSERT_EQ(s.size(), n);
    for (std::size_t i = 0; i < n; ++i)
        ASSERT_EQ(bitsOf(s[i]), bitsOf(records[i])) << i;

    // One field of a range that crosses chunks and the tail, as the plot reads it.
    using Field = RecordSeries::Field;
    std::vector<double> got(n);
    for (std::size_t f = 0; f < RecordSeries::kFields; ++f) {
        const std::size_t first = 300, count = n - 310;
        s.read(Field(f), first, count, got.data());
        for (std::size_t i = 0; i < count; ++i)
            ASSERT_EQ(std::bit_cast<std::uint64_t>(got[i]),
                      std::bit_cast<std::uint64_t>(asRead(records[first + i], Field(f))))
                << "field " << f << " record " << first + i;
    }
}

TEST(RecordSeries, ATypicalKeyTakesUnderHalfOfItsRecordsSize) {
    // A float tensor of fixed shape: constant count, no NaN, small steps, float-exact min/max.
    RecordSeries s;
    const std::size_t n = 20 * RecordSeries::kChunk;
    for (std::size_t i = 0; i < n; ++i) {
        RecordStats r;
        r.record = 3 + 11 * i;
        r.gstep = r.lstep = std::int64_t(i);
        r.timestamp = 1'700'000'000'000 + std::int64_t(i) * 250;
        r.stats.count = r.stats.finite = 50;
        r.stats.zeros = i % 3;
        r.stats.min = -float(i % 1000) / 3.0f;
        r.stats.max = float(i % 1000) / 3.0f + 0.5f;
        r.stats.mean = double(i) / 7.0;
        r.stats.std = std::sqrt(double(i));
        r.stats.l2 = std::sqrt(double(i) + 0.5);
        s.push_back(r);
    }
    // Record numbers, steps and timestamps in steps of one size take nothing: 1 (zeros) + 4 + 4
    // + 3 * 8 = 33 B a record, against 112 unpacked.
    EXPECT_LT(s.heldBytes(), n * 34);
    EXPECT_GT(s.heldBytes(), n * 33);
    EXPECT_EQ(s[n - 1].stats.max, double(float((n - 1) % 1000) / 3.0f + 0.5f));
}

TEST(RecordSeries, AScalarKeyTakesItsValueAndTimestampOnly) {
    // A scalar (a loss): min = max = mean = its value, l2 = |value|, std 0; in every record of
    // the rank (records and steps in steps of one), timestamps irregular. One chunk has a
    // negative value (l2 differs from min there), one a value that needs a double.
    RecordSeries s;
    const std::size_t n = 8 * RecordSeries::kChunk + 77; // eight packed chunks and a tail
    std::vector<RecordStats> written;
    for (std::size_t i = 0; i < n; ++i) {
        RecordStats r;
        r.record = i;
        r.gstep = 1000 + std::int64_t(i);
        r.lstep = std::int64_t(i);
        r.timestamp = 1'700'000'000'000 + std::int64_t(i) * 250 + std::int64_t(i * i % 7);
        const std::size_t chunk = i / RecordSeries::kChunk;
        const double v = chunk == 2   ? -float(i) / 64.0f
                         : chunk == 5 ? 1.0 / double(i + 3)
                                      : 4.0f / float(1 + i % 100);
        r.stats.count = r.stats.finite = 1;
        r.stats.min = r.stats.max = r.stats.mean = v;
        r.stats.l2 = std::abs(v);
        s.push_back(r);
        written.push_back(r);
    }
    for (std::size_t i = 0; i < n; ++i)
        ASSERT_EQ(bitsOf(s[i]), bitsOf(written[i])) << i;
    using Field = RecordSeries::Field;
    std::vector<double> got(n);
    for (Field f :
         {Field::Record, Field::Gstep, Field::Timestamp, Field::Max, Field::Mean, Field::L2}) {
        s.read(f, 5, n - 5, got.data());
        for (std::size_t i = 5; i < n; ++i)
            ASSERT_EQ(std::bit_cast<std::uint64_t>(got[i - 5]),
                      std::bit_cast<std::uint64_t>(asRead(written[i], f)))
                << int(f) << " " << i;
    }
    // 4 (timestamp offsets) + 4 (the value as a float) a record, against 112 unpacked, l2 as
    // the value's absolute value where it is negative too; the chunk with doubles 4 + 8; and the
    // chunk's layout (~0.7 B a record): ~9.2 B a record. The tail holds a chunk's capacity,
    // unpacked.
    const std::size_t packed = s.heldBytes() - RecordSeries::kChunk * sizeof(RecordStats);
    const std::size_t chunked = n - n % RecordSeries::kChunk;
    EXPECT_LT(packed, chunked * 9.5);
    EXPECT_GT(packed, chunked * 9);
}

TEST(RecordSeries, ScanAndFindReadOneFieldAcrossChunksAndStopWhenAsked) {
    const std::size_t n = 3 * RecordSeries::kChunk + 40; // packed chunks and a tail
    RecordSeries s;
    for (std::size_t i = 0; i < n; ++i) {
        RecordStats r = rec(i);
        r.gstep = std::int64_t(i / 2); // each gstep twice
        s.push_back(r);
    }
    using Field = RecordSeries::Field;
    std::size_t calls = 0;
    double sum = 0;
    s.scan(Field::Gstep, [&](std::size_t i, double g) {
        EXPECT_EQ(g, double(i / 2)) << i;
        sum += g;
        return ++calls < n - 3; // stops itself three records before the end
    });
    EXPECT_EQ(calls, n - 3);
    s.scan(
        Field::Count, [&](std::size_t i, double c) { return c == double(i + 1); }, n - 5);
    const std::int64_t last = std::int64_t((n - 1) / 2);
    ASSERT_EQ(n % 2, 0u);
    EXPECT_EQ(s.find(Field::Gstep, double(last)), n - 2); // its first record, in the tail
    double expected = 0;                                  // all but the last three
    for (std::size_t i = 0; i < n - 3; ++i)
        expected += double(i / 2);
    EXPECT_EQ(sum, expected);
    EXPECT_EQ(s.find(Field::Gstep, 700.0), 1400u);
    EXPECT_EQ(s.find(Field::Gstep, 700.0, 1401), 1401u);
    EXPECT_EQ(s.find(Field::Gstep, 700.0, 1402), n);
    EXPECT_EQ(s.find(Field::Gstep, -1.0), n);
    EXPECT_EQ(s.find(Field::Record, double(RecordSeries::kChunk)), RecordSeries::kChunk);
}

TEST(RecordSeries, SealedChunksKeptInAFileArenaReadTheSame) {
    // RecordSeries::keepChunksIn: a followed run's series keep their packed chunks in a file of
    // the cache folder. Read back, every record and field is the same as from the heap.
    xt::test::TempDir dir;
    const auto arena = xt::FileArena::inFolder(dir.str());
    const std::size_t n = 6 * RecordSeries::kChunk + 100;
    RecordSeries onHeap, inFile;
    inFile.keepChunksIn(arena);
    for (bool file : {false, true}) {
        RecordSeries& s = file ? inFile : onHeap;
        for (std::size_t i = 0; i < n; ++i) {
            RecordStats r;
            r.record = i;
            r.gstep = std::int64_t(i * 3);
            r.timestamp = 1'700'000'000'000 + std::int64_t(i * i % 1001);
            r.stats.count = 16;
            r.stats.nan = i % 97 == 0;
            r.stats.min = -double(i) / 3;
            r.stats.max = double(i % 50);
            r.stats.mean = 1.0 / double(i + 1);
            r.stats.l2 = std::sqrt(double(i));
            s.push_back(r);
        }
    }
    for (std::size_t i = 0; i < n; ++i)
        ASSERT_EQ(bitsOf(inFile[i]), bitsOf(onHeap[i])) << i;
    std::vector<double> a(n), b(n);
    for (auto f : {RecordSeries::Field::Timestamp, RecordSeries::Field::Mean}) {
        inFile.read(f, 0, n, a.data());
        onHeap.read(f, 0, n, b.data());
        EXPECT_EQ(a, b);
    }
    // On the heap now: the tail and the chunks' layouts only.
    const std::size_t tail = RecordSeries::kChunk * sizeof(RecordStats);
    EXPECT_GT(onHeap.heldBytes(), tail + 6 * RecordSeries::kChunk * 20);
    EXPECT_LT(inFile.heldBytes(), tail + 6 * 1024);
    EXPECT_EQ(inFile.nonFiniteRecords(), onHeap.nonFiniteRecords());
}
