// Part summaries: the format round trip and its damage checks; statistics and sketches equal to
// the CPU backend's for every dtype; the store's validity rules (stale, truncated, replaced,
// corrupt, grown, read-only, concurrent); runs opened from summaries give the same results.
#include "core/analysis/cpu_backend.h"
#include "core/analysis/key_stats.h"
#include "core/analysis/non_finite.h"
#include "core/analysis/step_histogram.h"
#include "core/analysis/tensor_kernels.h"
#include "core/summary/run_summary.h"
#include "core/summary/summary_builder.h"
#include "resident.h"
#include "summary_file.h"
#include "summary_test_util.h"

#include <fcntl.h>
#include <fstream>
#include <functional>
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace xt;
using namespace xt::summary;
using xt::test::TempDir;
namespace fs = std::filesystem;

namespace {

StoreOptions storeIn(const TempDir& cache, bool beside = false) {
    StoreOptions o;
    o.cacheDir = cache.file("cache");
    o.writeBeside = beside;
    return o;
}

xdl::PartFile partAt(const std::string& path) {
    xdl::PartFile p;
    p.path = path;
    p.size = fs::file_size(path);
    return p;
}

std::shared_ptr<const PartSummary> build(const std::string& path, const StoreOptions& o,
                                         Diagnostics& diag, SummaryOrigin* origin = nullptr) {
    auto r = loadOrBuildSummary(partAt(path), o, diag);
    EXPECT_TRUE(r.isOk()) << r.status().toString();
    if (!r) return nullptr;
    if (origin) *origin = r->origin;
    return r->summary;
}

std::uint64_t countOf(const Diagnostics& d, const std::string& code) {
    auto it = d.countsByCode().find(code);
    return it == d.countsByCode().end() ? 0 : it->second;
}

const Diagnostic* firstOf(const Diagnostics& d, const std::string& code) {
    for (const auto& x : d.items())
        if (x.code == code) return &x;
    return nullptr;
}

void setMtime(const std::string& path, std::int64_t sec, long nsec) {
    timespec t[2] = {{sec, nsec}, {sec, nsec}};
    ASSERT_EQ(::utimensat(AT_FDCWD, path.c_str(), t, 0), 0);
}

// Runs `work` in a child process and says what went wrong there: "" when it returned true and
// the child's peak RSS grew by at most maxKb while it ran.
std::string peakGrowthInChild(long maxKb, const std::function<bool()>& work) {
    const pid_t pid = ::fork();
    if (pid < 0) return "no fork";
    if (pid == 0) {
        auto hwmKb = [] { return xt::test::statusKb("VmHWM"); };
        std::ofstream("/proc/self/clear_refs") << "5"; // resets the peak to the current RSS
        const long before = hwmKb();
        if (!work()) ::_exit(10);
        const long grown = hwmKb() - before;
        ::_exit(grown < 0 ? 11 : grown > maxKb ? 12 : 0);
    }
    int status = 0;
    if (::waitpid(pid, &status, 0) != pid || !WIFEXITED(status)) return "the child did not exit";
    switch (WEXITSTATUS(status)) {
    case 0:
        return "";
    case 10:
        return "the work failed";
    case 11:
        return "no VmHWM";
    default:
        return "the peak grew by over " + std::to_string(maxKb / 1024) + " MB";
    }
}

std::string bytesOf(const PartSummary& s) {
    return serializeSummary(s);
}

// The columns of two summaries of the same records, field by field.
void expectSameColumns(const PartSummary& a, const PartSummary& b) {
    ASSERT_EQ(a.columns.size(), b.columns.size());
    ASSERT_EQ(a.recordCount(), b.recordCount());
    ASSERT_EQ(a.columnStart, b.columnStart);
    for (std::size_t r = 0; r < a.recordCount(); ++r)
        for (std::size_t c = 0; c < a.columnsOf(r).size(); ++c) {
            const ColumnSummary x = a.columnsOf(r)[c], y = b.columnsOf(r)[c];
            EXPECT_EQ(x.dataOffset, y.dataOffset);
            EXPECT_EQ(x.dataLength, y.dataLength);
            EXPECT_EQ(x.wireDtype, y.wireDtype);
            EXPECT_EQ(x.state, y.state);
            EXPECT_EQ(x.problem, y.problem);
            EXPECT_EQ(x.shape, y.shape);
            EXPECT_EQ(x.sketch, y.sketch);
            EXPECT_TRUE(xt::test::sameBits(x.stats, y.stats)) << "record " << r << " column " << c;
        }
}

// Every column of every record of a summarised part against the CPU backend on the tensor.
void expectEqualsBackend(const xdl::RankReader& rank, const PartSummary& s, std::size_t partIdx,
                         std::size_t firstRecord) {
    analysis::CpuBackend cpu(2);
    const xdl::PartReader& part = *rank.parts()[partIdx];
    ASSERT_EQ(s.recordCount(), part.index().records().size());
    xdl::RecordView view;
    for (std::size_t r = 0; r < s.recordCount(); ++r) {
        ASSERT_TRUE(xdl::decodeRecord(part.message(part.index().records()[r]), view).isOk());
        const auto cols = s.columnsOf(r);
        ASSERT_EQ(cols.size(), view.columns.size());
        for (std::size_t c = 0; c < cols.size(); ++c) {
            const auto& col = view.columns[c];
            const ColumnSummary& cs = cols[c];
            if (!col.data.empty())
                EXPECT_EQ(cs.dataOffset, std::uint64_t(col.data.data() - part.bytes().data()));
            EXPECT_EQ(cs.dataLength, col.data.size());
            EXPECT_EQ(s.shapeOf(cs), col.shape);
            EXPECT_EQ(cs.wireDtype, col.wireDtype);
            if (col.check() != xdl::ColumnProblem::None) {
                EXPECT_EQ(cs.state, ColumnState::Damaged);
                continue;
            }
            if (col.isEmpty()) {
                EXPECT_EQ(cs.state, ColumnState::Empty) << r << " " << c;
                continue;
            }
            ASSERT_EQ(cs.state, ColumnState::Data);
            const xdl::TensorView t(col.dtype(), col.shape, col.data);
            analysis::TensorStats want;
            ASSERT_TRUE(cpu.computeStats(std::span(&t, 1), std::span(&want, 1)).isOk());
            EXPECT_TRUE(xt::test::sameBits(cs.stats, want))
                << "record " << firstRecord + r << " column " << c << " ("
                << xdl::dtypeName(col.dtype()) << ")";
            // The sketch: numpy's bins over [min, max], as a histogram of the backend.
            if (t.size() < kSketchMinElements || !want.hasFinite()) {
                EXPECT_EQ(cs.sketch, kNone);
                continue;
            }
            ASSERT_NE(cs.sketch, kNone);
            const Sketch& sk = s.sketches[cs.sketch];
            if (want.min == want.max) {
                EXPECT_EQ(sk[0], want.finite);
                continue;
            }
            const analysis::BinLayout layout{kSketchBins, want.min, want.max};
            std::vector<analysis::Histogram> h(1, analysis::Histogram(layout));
            ASSERT_TRUE(cpu.histogram(std::span(&t, 1), layout, h).isOk());
            for (int b = 0; b < kSketchBins; ++b)
                EXPECT_EQ(sk[std::size_t(b)], h[0].counts[std::size_t(b)]) << "bin " << b;
            EXPECT_EQ(h[0].below + h[0].above, 0u);
        }
    }
}

Result<xdl::RunReader> openPlain(const std::string& dir, Diagnostics& diag) {
    auto runs = xdl::discoverRuns({dir}, diag);
    if (!runs) return runs.status();
    return xdl::RunReader::open(runs->at(0), diag);
}

// computeKeyStats with and without summaries: the same series, bit for bit.
void expectSameKeyStats(const xdl::RunReader& run, const RunSummaries& summaries) {
    analysis::CpuBackend cpu(2);
    analysis::KeyStatsOptions plain, withSummaries;
    plain.batchBytes = withSummaries.batchBytes = 4096; // many flushes
    withSummaries.summaries = &summaries;
    Diagnostics d1, d2;
    auto a = analysis::computeKeyStats(run, cpu, plain, d1);
    auto b = analysis::computeKeyStats(run, cpu, withSummaries, d2);
    ASSERT_TRUE(a.isOk());
    ASSERT_TRUE(b.isOk());
    ASSERT_EQ(a->size(), b->size());
    std::size_t rows = 0;
    for (std::size_t i = 0; i < a->size(); ++i) {
        const auto &x = (*a)[i], &y = (*b)[i];
        EXPECT_EQ(x.rank, y.rank);
        EXPECT_EQ(x.key, y.key);
        ASSERT_EQ(x.records.size(), y.records.size()) << x.key;
        for (std::size_t r = 0; r < x.records.size(); ++r, ++rows) {
            EXPECT_EQ(x.records[r].record, y.records[r].record);
            EXPECT_EQ(x.records[r].gstep, y.records[r].gstep);
            EXPECT_EQ(x.records[r].timestamp, y.records[r].timestamp);
            EXPECT_TRUE(xt::test::sameBits(x.records[r].stats, y.records[r].stats))
                << x.key << " record " << r;
        }
    }
    EXPECT_GT(rows, 0u);
    EXPECT_EQ(d1.countsByCode(), d2.countsByCode());
    // Where NaN and Inf first appear, from the summaries without series: as from the series.
    if (summaries.covers(run)) {
        const auto fromSeries = analysis::findFirstNonFinite(*a);
        const auto fromSummaries = analysis::findFirstNonFinite(run, summaries);
        const auto same = [](const std::optional<analysis::FirstOccurrence>& x,
                             const std::optional<analysis::FirstOccurrence>& y) {
            return x.has_value() == y.has_value() &&
                   (!x || (x->record == y->record && x->gstep == y->gstep && x->lstep == y->lstep &&
                           x->elements == y->elements));
        };
        EXPECT_FALSE(fromSeries.empty());
        ASSERT_EQ(fromSeries.size(), fromSummaries.size());
        for (std::size_t i = 0; i < fromSeries.size(); ++i) {
            EXPECT_EQ(fromSeries[i].rank, fromSummaries[i].rank);
            EXPECT_EQ(fromSeries[i].key, fromSummaries[i].key);
            EXPECT_TRUE(same(fromSeries[i].nan, fromSummaries[i].nan)) << fromSeries[i].key;
            EXPECT_TRUE(same(fromSeries[i].inf, fromSummaries[i].inf)) << fromSeries[i].key;
        }
    }
    EXPECT_GT(analysis::estimateWorkBytes(run, plain), 0u);
    if (summaries.covers(run)) EXPECT_EQ(analysis::estimateWorkBytes(run, withSummaries), 0u);

    // Key summaries and automatic histogram ranges agree too.
    Diagnostics k1, k2;
    auto ka = xdl::summarizeKeys(run, k1);
    auto kb = summarizeKeys(run, summaries, k2);
    ASSERT_TRUE(ka.isOk() && kb.isOk());
    ASSERT_EQ(ka->size(), kb->size());
    for (std::size_t i = 0; i < ka->size(); ++i) {
        const auto &x = (*ka)[i], &y = (*kb)[i];
        EXPECT_EQ(x.key, y.key);
        EXPECT_EQ(x.dtype, y.dtype);
        EXPECT_EQ(x.shape, y.shape);
        EXPECT_EQ(x.mixedDtypes, y.mixedDtypes);
        EXPECT_EQ(x.varyingShape, y.varyingShape);
        EXPECT_EQ(x.records, y.records);
        EXPECT_EQ(x.emptyRecords, y.emptyRecords);
        EXPECT_EQ(x.damagedRecords, y.damagedRecords);
    }
    EXPECT_EQ(k1.countsByCode(), k2.countsByCode());
    for (const auto& rank : run.ranks())
        for (const char* key : {"float", "int8", "big"}) {
            Diagnostics h1, h2;
            analysis::HistogramOptions ho;
            ho.bins = 17;
            auto ha = analysis::stepHistograms(rank, key, cpu, ho, {}, h1);
            auto hb = analysis::stepHistograms(rank, key, cpu, ho, {}, h2, {}, &summaries);
            ASSERT_EQ(ha.isOk(), hb.isOk());
            if (!ha) continue;
            EXPECT_EQ(ha->layout.lo, hb->layout.lo);
            EXPECT_EQ(ha->layout.hi, hb->layout.hi);
            EXPECT_EQ(ha->dense(), hb->dense());
            EXPECT_EQ(ha->total.nan, hb->total.nan);
            // The approximate matrix from the sketches has the exact one's rows, also merged.
            auto sa = analysis::sketchStepHistograms(rank, summaries, key, ho, {});
            if (!sa) continue; // a key of small tensors has no sketches
            EXPECT_EQ(sa->steps, ha->steps);
            EXPECT_EQ(sa->lastSteps, ha->steps);
            EXPECT_EQ(sa->total.nan, ha->total.nan);
            ho.maxRows = 2;
            auto sm = analysis::sketchStepHistograms(rank, summaries, key, ho, {});
            ASSERT_TRUE(sm.isOk());
            const std::size_t per = (sa->steps.size() + 1) / 2;
            ASSERT_EQ(sm->steps.size(), (sa->steps.size() + per - 1) / per);
            for (std::size_t r = 0; r < sm->steps.size(); ++r) {
                const std::size_t first = r * per, end = std::min(first + per, sa->steps.size());
                EXPECT_EQ(sm->steps[r], sa->steps[first]);
                EXPECT_EQ(sm->lastSteps[r], sa->steps[end - 1]);
                EXPECT_EQ(sm->stepCounts[r], end - first);
                std::uint64_t nan = 0;
                for (std::size_t i = first; i < end; ++i)
                    nan += sa->rows[i].nan;
                EXPECT_EQ(sm->rows[r].nan, nan);
            }
            EXPECT_EQ(sm->total.nan, sa->total.nan);
        }
}

} // namespace

TEST(SummaryFormat, ChecksumAndFingerprintFunctions) {
    const std::string s = "123456789";
    const std::span<const std::uint8_t> b(reinterpret_cast<const std::uint8_t*>(s.data()),
                                          s.size());
    EXPECT_EQ(crc32(b), 0xCBF43926u); // the CRC-32 check value (zlib.crc32)
    EXPECT_EQ(crc32({}), 0u);
    EXPECT_EQ(fnv1a64({}), 0xcbf29ce484222325ull);
    EXPECT_EQ(fnv1a64({reinterpret_cast<const std::uint8_t*>("a"), 1}),
              0xaf63dc4c8601ec8cull); // the published FNV-1a 64 test vector
    // The fingerprint: FNV-1a 64 over little-endian words, the tail zero-padded, then the length.
    auto byWords = [](const std::string& x) {
        std::uint64_t h = 0xcbf29ce484222325ull;
        for (std::size_t i = 0; i < x.size(); i += 8) {
            std::uint64_t w = 0;
            for (std::size_t k = 0; k < 8 && i + k < x.size(); ++k)
                w |= std::uint64_t(std::uint8_t(x[i + k])) << (8 * k);
            h = (h ^ w) * 0x100000001b3ull;
        }
        return (h ^ x.size()) * 0x100000001b3ull;
    };
    for (const std::string x : {"", "a", "12345678", "123456789", "a longer text of 29 bytes..."})
        EXPECT_EQ(fingerprint({reinterpret_cast<const std::uint8_t*>(x.data()), x.size()}),
                  byWords(x))
            << x;
    EXPECT_NE(fingerprint(b.first(8)), fingerprint(b.first(9)));
    std::string longer(1 << 20, 'x');
    std::mt19937_64 rng(3);
    for (auto& ch : longer)
        ch = char(rng());
    // Folding (64 bytes and more, where the CPU has carry-less multiplies) and slicing by 8 equal
    // the bytewise definition at every length and alignment.
    for (std::size_t off = 0; off < 8; ++off)
        for (std::size_t n : {0, 1, 7, 8, 9, 15, 16, 63, 64, 65, 79, 80, 100, 127, 128, 129, 991,
                              4096 + 13, (1 << 20) - 8}) {
            const auto span =
                std::span(reinterpret_cast<const std::uint8_t*>(longer.data()) + off, n);
            std::uint32_t c = 0xffffffffu;
            for (auto x : span) {
                c ^= x;
                for (int k = 0; k < 8; ++k)
                    c = c & 1 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
            }
            EXPECT_EQ(crc32(span), c ^ 0xffffffffu) << off << " " << n;
        }
    // Continued over pieces, as a mapped summary is checked: the CRC of the whole.
    const std::span all(reinterpret_cast<const std::uint8_t*>(longer.data()), longer.size());
    for (std::size_t cut : {0, 1, 8, 64, 333, 999, 1000, 70000})
        EXPECT_EQ(crc32(all.subspan(cut), crc32(all.first(cut))), crc32(all)) << cut;
}

TEST(SummaryFormat, RoundTripKeepsEveryField) {
    TempDir dir;
    const std::string path = dir.file("train.trace.0.1");
    // Damage in the middle: a column whose data size does not match its shape.
    std::mt19937_64 rng(3);
    std::string bytes = xt::test::allDtypesPart(6, 11);
    std::vector<xt::test::Column> bad = xt::test::allDtypesRecord(6, rng);
    bad[4].shape = {999};
    bytes += xt::test::frameRecord(6, 7, 1700000000006, bad);
    // A record whose only column does not decode (dtype field with the wrong wire type).
    bytes += std::string("\x05\x00\x00\x00\x1a\x03\x0a\x01\x00", 9);
    bytes += xt::test::frameRecord(8, 9, 1700000000008, xt::test::allDtypesRecord(8, rng));
    xt::test::writeBytes(path, bytes);
    Diagnostics diag;
    auto s = build(path, storeIn(dir), diag);
    ASSERT_TRUE(s);
    EXPECT_EQ(s->recordCount(), 9u);
    EXPECT_EQ(s->damagedRecords, std::vector<std::uint64_t>{7});
    EXPECT_EQ(countOf(diag, "damaged-record"), 1u);
    EXPECT_EQ(countOf(diag, "damaged-column"), 1u);
    EXPECT_FALSE(s->sketches.empty());
    EXPECT_GT(s->shapes.size(), 3u);

    const std::string ser = serializeSummary(*s);
    auto back = parseSummary({reinterpret_cast<const std::uint8_t*>(ser.data()), ser.size()}, "x");
    ASSERT_TRUE(back.isOk()) << back.status().toString();
    EXPECT_EQ(serializeSummary(*back), ser);
    EXPECT_EQ(back->identity.source, s->identity.source);
    EXPECT_EQ(back->identity.size, fs::file_size(path));
    EXPECT_EQ(back->identity.mtimeNs, s->identity.mtimeNs);
    EXPECT_EQ(back->identity.headPrint, s->identity.headPrint);
    EXPECT_EQ(back->identity.tailPrint, s->identity.tailPrint);
    EXPECT_EQ(back->keys, xt::test::allDtypesKeys());
    EXPECT_EQ(back->hasHeader, true);
    EXPECT_EQ(back->scannedTo, s->scannedTo);
    EXPECT_EQ(back->columnStart, s->columnStart);
    expectSameColumns(*back, *s);
    EXPECT_EQ(back->sketches, s->sketches);
    ASSERT_EQ(back->records.size(), s->records.size());
    for (std::size_t i = 0; i < s->records.size(); ++i) {
        EXPECT_EQ(back->records[i].offset, s->records[i].offset);
        EXPECT_EQ(back->records[i].length, s->records[i].length);
        EXPECT_EQ(back->records[i].columnCount, s->records[i].columnCount);
        EXPECT_EQ(back->records[i].gstep, s->records[i].gstep);
        EXPECT_EQ(back->records[i].lstep, s->records[i].lstep);
        EXPECT_EQ(back->records[i].timestamp, s->records[i].timestamp);
    }
}

// A summary is written in pieces of a few MB (never held whole): the pieces make the file that
// parses, and a sink's failure stops the writing.
TEST(SummaryFormat, WrittenInPiecesThatMakeTheFile) {
    TempDir dir, cache;
    const std::string path = dir.file("train.trace.0.1");
    xt::test::writeBytes(path, xt::test::allDtypesPart(4000, 9));
    StoreOptions o = storeIn(cache);
    o.save = false;
    Diagnostics d;
    auto s = build(path, o, d);
    ASSERT_TRUE(s);
    std::string file;
    int pieces = 0;
    ASSERT_TRUE(writeSummary(*s, [&](std::string_view b) {
                    file.append(b);
                    ++pieces;
                    return Status::ok();
                }).isOk());
    EXPECT_GT(pieces, 1);
    EXPECT_GT(file.size(), std::size_t(4) << 20);
    auto back =
        parseSummary({reinterpret_cast<const std::uint8_t*>(file.data()), file.size()}, "x");
    ASSERT_TRUE(back.isOk()) << back.status().toString();
    EXPECT_EQ(serializeSummary(*back), file);
    EXPECT_EQ(serializeSummary(*s), file);
    int calls = 0;
    const Status failed = writeSummary(*s, [&](std::string_view) {
        return ++calls == 1 ? Status::ok() : Status(ErrorCode::IoError, "disk full");
    });
    EXPECT_EQ(failed.code(), ErrorCode::IoError);
    EXPECT_EQ(calls, 2);
}

TEST(SummaryFormat, TruncationDamageAndBadCountsAreReportedWithTheirOffset) {
    TempDir dir;
    const std::string path = dir.file("train.trace.0.1");
    xt::test::writeBytes(path, xt::test::allDtypesPart(4, 5));
    Diagnostics diag;
    auto s = build(path, storeIn(dir), diag);
    ASSERT_TRUE(s);
    const std::string good = serializeSummary(*s);
    auto parse = [](const std::string& b, std::uint64_t* at = nullptr) {
        return parseSummary({reinterpret_cast<const std::uint8_t*>(b.data()), b.size()}, "s.xts",
                            at);
    };
    ASSERT_TRUE(parse(good).isOk());
    // Every truncation.
    for (std::size_t n = 0; n < good.size(); n += 1 + n / 64) {
        std::uint64_t at = 0;
        auto r = parse(good.substr(0, n), &at);
        ASSERT_FALSE(r.isOk()) << n;
        EXPECT_EQ(r.status().code(), ErrorCode::Corrupt);
        EXPECT_NE(r.status().message().find("s.xts"), std::string::npos);
        EXPECT_LE(at, n);
    }
    // Every flipped byte. Past the header, the checksum decides, and is what is reported, even
    // where the parse (which takes the checksum as it goes) failed first.
    for (std::size_t i = 0; i < good.size(); i += 1 + i / 50) {
        std::string b = good;
        b[i] = char(b[i] ^ 0x40);
        std::uint64_t at = 0;
        auto r = parse(b, &at);
        EXPECT_FALSE(r.isOk()) << "flipped byte " << i;
        if (i >= 32 && i < good.size() - 16) {
            EXPECT_NE(r.status().message().find("checksum mismatch"), std::string::npos)
                << "flipped byte " << i << ": " << r.status().toString();
            EXPECT_EQ(at, good.size() - 16) << "flipped byte " << i;
        }
    }
    // Magic and version.
    std::string magic = good;
    magic[0] = 'Y';
    EXPECT_NE(parse(magic).status().message().find("magic"), std::string::npos);
    std::string version = good;
    version[8] = 2;
    EXPECT_EQ(parse(version).status().code(), ErrorCode::Unsupported);

    // Counts that lie, under a valid checksum: refused before anything is allocated for them.
    auto reseal = [](std::string b) {
        xt::test::resealSummary(b);
        return b;
    };
    ASSERT_TRUE(parse(reseal(good)).isOk());
    // Find the sections: id at offset p, count at p + 8, length at p + 16.
    auto sectionAt = xt::test::summarySections(good);
    ASSERT_EQ(sectionAt.size(), 9u);
    for (auto [id, at] : sectionAt) {
        for (std::uint64_t count : {std::uint64_t(1) << 60, std::uint64_t(0xffffffffffffffff),
                                    std::uint64_t(123456789)}) {
            std::string b = good;
            std::memcpy(b.data() + at + 8, &count, 8);
            std::uint64_t off = 0;
            auto r = parse(reseal(b), &off);
            EXPECT_FALSE(r.isOk()) << "section " << id << " count " << count;
            EXPECT_GE(off, at) << "section " << id;
        }
        std::string b = good;
        const std::uint64_t huge = std::uint64_t(1) << 62;
        std::memcpy(b.data() + at + 16, &huge, 8);
        EXPECT_FALSE(parse(reseal(b)).isOk()) << "section " << id << " length";
    }
    // A record beyond the scanned bytes.
    std::string b = good;
    const std::uint64_t far = s->scannedTo;
    std::memcpy(b.data() + sectionAt[3] + 24, &far, 8);
    EXPECT_NE(parse(reseal(b)).status().message().find("record 0"), std::string::npos);
}

TEST(SummaryBuilder, StatisticsAndSketchesEqualTheCpuBackendForEveryDtype) {
    TempDir dir;
    const std::string path = dir.file("train.trace.0.1");
    xt::test::writeBytes(path, xt::test::allDtypesPart(12, 99, 0, /*big=*/true));
    Diagnostics diag;
    auto s = build(path, storeIn(dir), diag);
    ASSERT_TRUE(s);
    EXPECT_EQ(diag.errorCount(), 0u);
    auto run = openPlain(dir.str(), diag);
    ASSERT_TRUE(run.isOk());
    const auto& rank = run->ranks().at(0);
    expectEqualsBackend(rank, *s, 0, 0);
    // The big column is multi-chunk and every dtype holds data; record 1 has the trace_once
    // placeholder: an empty column.
    EXPECT_GT(s->columnsOf(1)[10].stats.count, analysis::kStatsChunk);
    EXPECT_EQ(s->columnsOf(1)[8].state, ColumnState::Empty);
    EXPECT_EQ(s->columnsOf(0)[8].state, ColumnState::Data);
    for (int d = 4; d <= 5; ++d) { // NaN and Inf were drawn somewhere
        std::uint64_t nan = 0, inf = 0;
        for (std::size_t r = 0; r < s->recordCount(); ++r)
            nan += s->columnsOf(r)[std::size_t(d)].stats.nan,
                inf += s->columnsOf(r)[std::size_t(d)].stats.inf;
        EXPECT_GT(nan, 0u);
        EXPECT_GT(inf, 0u);
    }
    RunSummaries rs;
    rs.add(path, s);
    EXPECT_TRUE(rs.covers(*run));
    expectSameKeyStats(*run, rs);
}

TEST(RunSummaries, SeveralRanksAndPartsOpenFromSummariesWithTheSameResults) {
    TempDir dir, cache;
    xt::test::writeRun(dir.str(), 3, 40);
    Diagnostics diag;
    auto runs = xdl::discoverRuns({dir.str()}, diag);
    ASSERT_TRUE(runs.isOk());
    ASSERT_EQ(runs->size(), 1u);
    ASSERT_GT(runs->at(0).ranks.at(0).parts.size(), 2u);
    const StoreOptions store = storeIn(cache);

    // Nothing stored: every part is scanned; then summarised in parallel.
    auto first = openRun(runs->at(0), store, diag);
    ASSERT_TRUE(first.isOk());
    EXPECT_EQ(first->summaries.size(), 0u);
    ASSERT_TRUE(summarizeRun(first->reader, first->summaries, store, diag, {}, 3).isOk());
    EXPECT_TRUE(first->summaries.covers(first->reader));
    for (std::size_t p = 0; p < runs->at(0).ranks[1].parts.size(); ++p)
        expectEqualsBackend(first->reader.ranks()[1],
                            *first->summaries.find(*first->reader.ranks()[1].parts()[p]), p, 0);

    // Reopened: every part from its summary, with the records of a fresh scan.
    Diagnostics d2;
    auto second = openRun(runs->at(0), store, d2);
    ASSERT_TRUE(second.isOk());
    EXPECT_TRUE(second->summaries.covers(second->reader));
    auto plain = xdl::RunReader::open(runs->at(0), d2);
    ASSERT_TRUE(plain.isOk());
    for (std::size_t r = 0; r < plain->ranks().size(); ++r) {
        const auto &a = plain->ranks()[r], &b = second->reader.ranks()[r];
        ASSERT_EQ(a.recordCount(), b.recordCount());
        EXPECT_EQ(a.keys(), b.keys());
        for (std::size_t i = 0; i < a.recordCount(); ++i) {
            EXPECT_EQ(a.entry(i).offset, b.entry(i).offset);
            EXPECT_EQ(a.entry(i).gstep, b.entry(i).gstep);
        }
    }
    expectSameKeyStats(second->reader, second->summaries);
    // Only some parts covered: each part from where it can.
    RunSummaries some;
    const auto& rank0 = second->reader.ranks()[0];
    some.add(rank0.parts()[1]->part().path,
             std::shared_ptr<const PartSummary>(second->summaries.find(*rank0.parts()[1]),
                                                [](const PartSummary*) {}));
    EXPECT_FALSE(some.covers(second->reader));
    expectSameKeyStats(second->reader, some);
}

TEST(RunSummaries, DamagedPartsReplayTheirDiagnosticsWhenOpenedFromSummaries) {
    TempDir dir, cache;
    std::string bytes = xt::test::allDtypesPart(5, 1);
    // A bad length prefix between records 2 and 3 (the first records are the same bytes).
    bytes.insert(xt::test::allDtypesPart(2, 1).size(), "\xff\xff\xff\x7f garbage", 12);
    bytes += std::string("\x40\x00\x00\x00\x08", 5); // a cut-off last record
    xt::test::writeBytes(dir.file("train.trace.0.1"), bytes);
    Diagnostics fresh;
    auto runs = xdl::discoverRuns({dir.str()}, fresh);
    ASSERT_TRUE(runs.isOk());
    auto plain = xdl::RunReader::open(runs->at(0), fresh);
    ASSERT_TRUE(plain.isOk());
    EXPECT_GT(fresh.errorCount(), 0u);
    Diagnostics d;
    ASSERT_TRUE(loadOrBuildSummary(runs->at(0).ranks[0].parts[0], storeIn(cache), d).isOk());
    Diagnostics reopened;
    auto opened = openRun(runs->at(0), storeIn(cache), reopened);
    ASSERT_TRUE(opened.isOk());
    EXPECT_TRUE(opened->summaries.covers(opened->reader));
    EXPECT_EQ(reopened.countsByCode(), fresh.countsByCode());
    EXPECT_EQ(opened->reader.ranks()[0].recordCount(), plain->ranks()[0].recordCount());
    const Diagnostic* bad = firstOf(reopened, "bad-length");
    ASSERT_TRUE(bad);
    EXPECT_EQ(bad->file, runs->at(0).ranks[0].parts[0].path);
    EXPECT_EQ(bad->offset, firstOf(fresh, "bad-length")->offset);
}

TEST(SummaryStore, ValidSummariesLoadAndStaleOnesAreRebuiltWithADiagnostic) {
    TempDir dir, cache;
    const std::string path = dir.file("train.trace.0.1");
    xt::test::writeBytes(path, xt::test::allDtypesPart(8, 2));
    setMtime(path, 1700000000, 5);
    const StoreOptions beside = storeIn(cache, true);
    Diagnostics diag;
    SummaryOrigin origin;
    auto built = build(path, beside, diag, &origin);
    EXPECT_EQ(origin, SummaryOrigin::Built);
    ASSERT_TRUE(fs::exists(besidePath(path)));
    EXPECT_FALSE(fs::exists(cachePath(partSource(path), beside)));
    const std::string good = xt::test::readBytes(besidePath(path));
    build(path, beside, diag, &origin);
    EXPECT_EQ(origin, SummaryOrigin::Loaded);
    EXPECT_TRUE(diag.empty());

    struct Case {
        const char* what;
        std::function<void()> damage;
        const char* code;
        bool located; // the diagnostic has a byte offset
    };
    const std::string part = xt::test::readBytes(path);
    const Case cases[] = {
        {"mtime changed", [&] { setMtime(path, 1700000001, 5); }, "summary-stale", false},
        {"size changed (part cut short)",
         [&] { xt::test::writeBytes(path, part.substr(0, part.size() - 9)); }, "summary-stale",
         false},
        {"replaced: same size and mtime, other bytes",
         [&] {
             std::string other = part;
             other[other.size() - 20] ^= 1; // inside the last record's data
             xt::test::writeBytes(path, other);
             setMtime(path, 1700000000, 5);
         },
         "summary-stale", false},
        {"summary truncated",
         [&] { xt::test::writeBytes(besidePath(path), good.substr(0, good.size() / 2)); },
         "summary-corrupt", true},
        {"summary byte flipped",
         [&] {
             std::string b = good;
             b[b.size() / 3] ^= 0x10;
             xt::test::writeBytes(besidePath(path), b);
         },
         "summary-corrupt", true},
        {"summary of another version",
         [&] {
             std::string b = good;
             b[8] = 9;
             xt::test::writeBytes(besidePath(path), b);
         },
         "summary-unsupported", true},
    };
    for (const Case& c : cases) {
        xt::test::writeBytes(path, part);
        setMtime(path, 1700000000, 5);
        xt::test::writeBytes(besidePath(path), good);
        c.damage();
        Diagnostics d;
        auto rebuilt = build(path, beside, d, &origin);
        EXPECT_EQ(origin, SummaryOrigin::Built) << c.what;
        ASSERT_EQ(countOf(d, c.code), 1u) << c.what;
        const Diagnostic* diagnostic = firstOf(d, c.code);
        EXPECT_EQ(diagnostic->file, besidePath(path)) << c.what;
        EXPECT_EQ(diagnostic->offset != Diagnostic::kNoOffset, c.located) << c.what;
        // The rebuilt summary replaced the bad one and is valid for the part as it is now.
        Diagnostics again;
        build(path, beside, again, &origin);
        EXPECT_EQ(origin, SummaryOrigin::Loaded) << c.what;
        EXPECT_TRUE(again.empty()) << c.what << ": " << again.items().front().toString();
        EXPECT_EQ(rebuilt->identity.size, fs::file_size(path));
    }
}

TEST(SummaryStore, AGrownPartIsExtendedToWhatAFullBuildGives) {
    TempDir dir, cache;
    const std::string path = dir.file("train.trace.0.1");
    const std::string full = xt::test::allDtypesPart(12, 8);
    const std::string five = xt::test::allDtypesPart(5, 8);
    ASSERT_EQ(full.compare(0, five.size(), five), 0);
    for (bool live : {false, true}) {
        // A live part is summarised with a record being written at its end.
        xt::test::writeBytes(path, five + (live ? full.substr(five.size(), 30) : ""));
        StoreOptions o = storeIn(cache);
        o.live = live;
        Diagnostics d;
        SummaryOrigin origin;
        auto first = build(path, o, d, &origin);
        EXPECT_EQ(origin, SummaryOrigin::Built);
        EXPECT_EQ(first->recordCount(), 5u);
        EXPECT_TRUE(d.empty());
        xt::test::writeBytes(path, full);
        auto extended = build(path, o, d, &origin);
        EXPECT_EQ(origin, SummaryOrigin::Extended) << live;
        EXPECT_EQ(extended->recordCount(), 12u);
        EXPECT_TRUE(d.empty());
        fs::remove(cachePath(partSource(path), o));
        auto whole = build(path, o, d, &origin);
        EXPECT_EQ(origin, SummaryOrigin::Built);
        EXPECT_EQ(bytesOf(*extended), bytesOf(*whole)) << live;
        // findSummary hands out the summary of a prefix too: a reader seeded with it scans
        // only the rest.
        xt::test::writeBytes(path, full + xt::test::allDtypesPart(14, 8).substr(full.size()));
        auto prefix = findSummary(partAt(path), o, d);
        ASSERT_TRUE(prefix);
        EXPECT_EQ((*prefix)->recordCount(), 12u);
        auto opened = openRun(xdl::discoverRuns({path}, d)->at(0), o, d);
        ASSERT_TRUE(opened.isOk());
        EXPECT_EQ(opened->reader.ranks()[0].recordCount(), 14u);
        EXPECT_FALSE(opened->summaries.covers(opened->reader)); // not the whole part
        expectSameKeyStats(opened->reader, opened->summaries);
        fs::remove(cachePath(partSource(path), o));
    }
}

TEST(SummaryBuilder, ANewSummaryBorrowsAReadersCleanIndexAndEqualsAFreshBuild) {
    TempDir dir;
    const std::string path = dir.file("train.trace.0.1");
    xt::test::writeBytes(path, xt::test::allDtypesPart(12, 8));
    Diagnostics d;
    auto reader = xdl::PartReader::open(partAt(path), d);
    ASSERT_TRUE(reader.isOk());
    ASSERT_TRUE((*reader)->cleanScan());
    auto file = MappedFile::open(path);
    ASSERT_TRUE(file.isOk());
    PartSummary fresh, seeded;
    ASSERT_TRUE(extendSummary(fresh, *file, true, d));
    const xdl::IndexState index = (*reader)->index().view();
    ASSERT_TRUE(extendSummary(seeded, *file, true, d, {}, {}, &index));
    EXPECT_TRUE(d.empty());
    // The reader's records themselves: neither scanned again nor copied.
    EXPECT_TRUE(seeded.records.inPlace());
    EXPECT_EQ(seeded.records.view().data(), (*reader)->index().records().data());
    EXPECT_EQ(bytesOf(seeded), bytesOf(fresh));
    EXPECT_FALSE(fresh.records.inPlace());
    seeded.materialize(); // no longer the reader's
    EXPECT_FALSE(seeded.records.inPlace());
    reader->reset();
    EXPECT_EQ(bytesOf(seeded), bytesOf(fresh));
}

TEST(SummaryBuilder, ASpilledIndexIsBorrowedWithItsMappingAndEqualsAFreshBuild) {
    // Over 64 Ki records: a reader told to (IndexOptions::spillDir) and a new summary's own
    // index keep them in an unlinked file, mapped. The summary borrows the reader's mapping and
    // keeps it after the reader is gone.
    TempDir dir, spill;
    const std::string path = dir.file("train.trace.0.1");
    std::mt19937_64 rng(3);
    std::string bytes = xt::test::frameHeader({"a", "b"});
    for (int r = 0; r < 70000; ++r)
        bytes += xt::test::frameRecord(
            r, r, 1000 + r,
            {{xdl::Dtype::Float, {2}, xt::test::randomValues(xdl::Dtype::Float, 2, rng, true)},
             {xdl::Dtype::Int32, {}, xt::test::randomValues(xdl::Dtype::Int32, 1, rng)}});
    xt::test::writeBytes(path, bytes);
    Diagnostics d;
    xdl::ReaderOptions options;
    options.index.spillDir = spill.str();
    auto reader = xdl::PartReader::open(partAt(path), d, {}, options);
    ASSERT_TRUE(reader.isOk());
    ASSERT_TRUE((*reader)->index().spilled());
    ASSERT_TRUE((*reader)->cleanScan());
    auto file = MappedFile::open(path);
    ASSERT_TRUE(file.isOk());
    PartSummary fresh, seeded, own;
    ASSERT_TRUE(extendSummary(fresh, *file, true, d));
    EXPECT_FALSE(fresh.records.keep());
    const xdl::IndexState index = (*reader)->index().view();
    ASSERT_TRUE(extendSummary(seeded, *file, true, d, {}, {}, &index));
    EXPECT_EQ(seeded.records.view().data(), (*reader)->index().records().data());
    EXPECT_TRUE(seeded.records.keep());
    reader->reset(); // the mapping stays with the summary
    EXPECT_EQ(bytesOf(seeded), bytesOf(fresh));
    ASSERT_TRUE(extendSummary(own, *file, true, d, {}, spill.str()));
    EXPECT_TRUE(own.records.keep()); // in a spill of its own
    EXPECT_EQ(bytesOf(own), bytesOf(fresh));
    EXPECT_TRUE(d.empty());
    EXPECT_TRUE(fs::is_empty(spill.path())); // unlinked files only
}

TEST(SummaryStore, ASummaryBuiltFromAReadersIndexIsTheOneOfTheBytesNowThere) {
    TempDir dir, cache;
    const std::string path = dir.file("train.trace.0.1");
    const std::string five = xt::test::allDtypesPart(5, 8), full = xt::test::allDtypesPart(12, 8);
    std::string damaged = full;
    damaged.insert(xt::test::allDtypesPart(2, 8).size(), "\xff\xff\xff\x7f garbage", 12);
    struct Case {
        const char* what;
        std::string read, built; // the bytes the reader indexed, those there when summarised
        bool clean;
    };
    const Case cases[] = {
        {"the same bytes", full, full, true},
        {"grown since", five, full, true},
        {"replaced since", five, xt::test::allDtypesPart(9, 3, 7), true},
        {"damaged", damaged, damaged, false},
    };
    for (const Case& c : cases) {
        for (bool save : {false, true}) {
            fs::remove_all(cache.file("cache"));
            StoreOptions o = storeIn(cache);
            o.save = save;
            xt::test::writeBytes(path, c.read);
            Diagnostics readDiag;
            auto reader = xdl::PartReader::open(partAt(path), readDiag);
            ASSERT_TRUE(reader.isOk());
            EXPECT_EQ((*reader)->cleanScan(), c.clean) << c.what;
            xt::test::writeBytes(path, c.built);
            Diagnostics withDiag, freshDiag;
            auto with = loadOrBuildSummary(partAt(path), o, withDiag, {}, reader->get());
            ASSERT_TRUE(with.isOk()) << c.what;
            reader->reset(); // the summary does not depend on the reader
            fs::remove_all(cache.file("cache"));
            auto fresh = loadOrBuildSummary(partAt(path), o, freshDiag);
            ASSERT_TRUE(fresh.isOk());
            EXPECT_EQ(bytesOf(*with->summary), bytesOf(*fresh->summary)) << c.what << save;
            EXPECT_EQ(withDiag.countsByCode(), freshDiag.countsByCode()) << c.what;
            EXPECT_EQ(with->summary->indexDiagnostics.size(), c.clean ? 0u : 1u) << c.what;
        }
    }
    // What tells the file unchanged is its size and mtime: records 0 and 1 swapped, with both
    // kept, leave the build with the reader's records (the sign that it did not scan again).
    const std::size_t r0 = xt::test::allDtypesPart(1, 8).size();
    const std::size_t r1 = xt::test::allDtypesPart(2, 8).size();
    const std::size_t h = xt::test::frameHeader(xt::test::allDtypesKeys()).size();
    const std::string swapped =
        full.substr(0, h) + full.substr(r0, r1 - r0) + full.substr(h, r0 - h) + full.substr(r1);
    ASSERT_EQ(swapped.size(), full.size());
    xt::test::writeBytes(path, full);
    Diagnostics d;
    auto reader = xdl::PartReader::open(partAt(path), d);
    ASSERT_TRUE(reader.isOk());
    const std::int64_t mtime = (*reader)->file().mtimeNs();
    xt::test::writeBytes(path, swapped);
    setMtime(path, mtime / 1000000000, long(mtime % 1000000000));
    StoreOptions o = storeIn(cache);
    o.save = false;
    auto with = loadOrBuildSummary(partAt(path), o, d, {}, reader->get());
    auto fresh = loadOrBuildSummary(partAt(path), o, d);
    ASSERT_TRUE(with.isOk() && fresh.isOk());
    EXPECT_EQ(with->summary->records[0].offset, (*reader)->index().records()[0].offset);
    EXPECT_EQ(fresh->summary->records[0].gstep, 1);
    EXPECT_EQ(with->summary->records[0].gstep, 0);
}

TEST(SummaryStore, ALargeSummaryIsReadInPlaceWithTheValuesOfAFreshBuild) {
    TempDir dir, cache;
    const std::string path = dir.file("train.trace.0.1");
    const std::string full = xt::test::allDtypesPart(1000, 8);
    const std::string head = xt::test::allDtypesPart(900, 8);
    ASSERT_EQ(full.compare(0, head.size(), head), 0);
    xt::test::writeBytes(path, head);
    const StoreOptions o = storeIn(cache);
    StoreOptions inMemory = o;
    inMemory.save = false;
    Diagnostics d;
    SummaryOrigin origin;
    auto reference = build(path, inMemory, d, &origin);
    ASSERT_EQ(origin, SummaryOrigin::Built);
    EXPECT_FALSE(reference->columns.isMapped()); // not saved: built in memory
    // 900 x 13 columns of 96 bytes: more than kMappedColumnsAbove, so they stay in the file,
    // read back once saved.
    ASSERT_GT(reference->columns.size() * kColumnBytes, kMappedColumnsAbove);
    auto built = build(path, o, d, &origin);
    ASSERT_EQ(origin, SummaryOrigin::Built);
    EXPECT_TRUE(built->columns.isMapped());
    auto loaded = build(path, o, d, &origin);
    ASSERT_EQ(origin, SummaryOrigin::Loaded);
    ASSERT_TRUE(loaded->columns.isMapped());
    for (const auto* s : {&*built, &*loaded}) {
        expectSameColumns(*s, *reference);
        EXPECT_EQ(bytesOf(*s), bytesOf(*reference));
    }
    // A run opened from it gives what the tensors give (statistics, keys, histogram ranges,
    // sketches), and so after a pass that gave the pages back.
    auto opened = openRun(xdl::discoverRuns({path}, d)->at(0), o, d);
    ASSERT_TRUE(opened.isOk());
    ASSERT_TRUE(opened->summaries.covers(opened->reader));
    for (int pass = 0; pass < 2; ++pass)
        expectSameKeyStats(opened->reader, opened->summaries);
    // The part's index reads the summary's records where they are, not a copy.
    xdl::RankReader& rank = opened->reader.ranks()[0];
    const auto* inSummary = opened->summaries.find(*rank.parts()[0]);
    ASSERT_TRUE(inSummary);
    EXPECT_EQ(rank.parts()[0]->index().records().data(), inSummary->records.view().data());
    // A grown part: a reader opened from the summary indexes the new records after those.
    xt::test::writeBytes(path, full);
    auto grew = rank.refresh(d);
    ASSERT_TRUE(grew.isOk());
    EXPECT_TRUE(*grew);
    ASSERT_EQ(rank.recordCount(), 1000u);
    auto fresh = xdl::RunReader::open(xdl::discoverRuns({path}, d)->at(0), d);
    ASSERT_TRUE(fresh.isOk());
    for (std::size_t r = 0; r < 1000; ++r) {
        EXPECT_EQ(rank.entry(r).offset, fresh->ranks()[0].entry(r).offset);
        EXPECT_EQ(rank.entry(r).gstep, fresh->ranks()[0].entry(r).gstep);
    }
    // The mapped summary extends to what a full build gives.
    auto extended = build(path, o, d, &origin);
    EXPECT_EQ(origin, SummaryOrigin::Extended);
    EXPECT_EQ(extended->recordCount(), 1000u);
    EXPECT_TRUE(extended->columns.isMapped());
    fs::remove(cachePath(partSource(path), o));
    auto whole = build(path, inMemory, d, &origin);
    EXPECT_EQ(origin, SummaryOrigin::Built);
    EXPECT_EQ(bytesOf(*extended), bytesOf(*whole));
    EXPECT_TRUE(d.empty());
}

TEST(SummaryStore, APassGivesBackTheMappedRecordsAndColumnsBehindIt) {
    TempDir dir, cache;
    const std::string path = dir.file("train.trace.0.1");
    xt::test::writeBytes(path, xt::test::allDtypesPart(3000, 8));
    const StoreOptions o = storeIn(cache);
    Diagnostics d;
    SummaryOrigin origin;
    ASSERT_TRUE(build(path, o, d, &origin));
    auto s = build(path, o, d, &origin);
    ASSERT_EQ(origin, SummaryOrigin::Loaded);
    ASSERT_TRUE(s->columns.isMapped());
    ASSERT_TRUE(s->records.file());
    const void* mapping = s->records.view().data();
    const std::uint64_t recordKb = s->recordCount() * sizeof(xdl::RecordEntry) / 1024;
    ASSERT_GE(recordKb, 100u); // 3000 records of 40 bytes
    // A pass over every record and its columns maps them in...
    std::int64_t steps = 0;
    double sum = 0;
    for (std::size_t r = 0; r < s->recordCount(); ++r) {
        steps += s->records[r].gstep;
        for (const ColumnSummary& c : s->columnsOf(r))
            sum += double(c.stats.count);
    }
    EXPECT_GT(steps + std::int64_t(sum), 0);
    EXPECT_GE(xt::test::residentKbAt(mapping), recordKb);
    // ...and releasing behind it gives back both. What stays in are the pages shared with the
    // small sections around them, and what the reads of those sections mapped in around them
    // (the kernel's fault-around, up to 64 kB each).
    const auto recordsKb = [&] {
        return xt::test::residentKbIn(mapping, s->recordCount() * sizeof(xdl::RecordEntry));
    };
    const std::int64_t step10 = s->records[10].gstep;
    std::size_t released = 0;
    for (std::size_t r = 0; r <= s->recordCount(); ++r)
        s->releaseBehind(r, released);
    EXPECT_EQ(released, s->recordCount());
    EXPECT_LE(xt::test::residentKbAt(mapping), 256u);
    EXPECT_LE(recordsKb(), 8u);
    EXPECT_EQ(s->records[10].gstep, step10); // still readable: mapped in again
    // The records alone, read again and given back.
    std::int64_t lsteps = 0;
    for (std::size_t r = 0; r < s->recordCount(); ++r)
        lsteps += s->records[r].lstep;
    EXPECT_GT(lsteps, 0);
    EXPECT_GE(recordsKb(), recordKb - 8);
    s->records.release(0, s->recordCount());
    EXPECT_LE(recordsKb(), 8u);
}

// Opening a run from a large summary checks every record and column, and gives their pages
// back behind it: neither stays in once the run is open (the index reads them again on demand).
TEST(SummaryStore, OpeningFromALargeSummaryLeavesNeitherItsRecordsNorItsColumnsIn) {
    TempDir dir, cache;
    const std::string path = dir.file("train.trace.0.1");
    xt::test::writeBytes(path, xt::test::allDtypesPart(3000, 8));
    const StoreOptions o = storeIn(cache);
    Diagnostics d;
    ASSERT_TRUE(build(path, o, d));
    auto opened = openRun(xdl::discoverRuns({path}, d)->at(0), o, d);
    ASSERT_TRUE(opened.isOk());
    const xdl::PartReader& part = *opened->reader.ranks()[0].parts()[0];
    const auto records = part.index().records();
    ASSERT_GE(records.size_bytes(), 100u << 10);
    // (Measured before anything reads a record: a read maps in up to 64 kB around it.)
    const auto resident = [&] {
        return xt::test::residentKbIn(records.data(), records.size_bytes());
    };
    EXPECT_LE(resident(), 8u);
    const PartSummary* s = opened->summaries.find(part);
    ASSERT_TRUE(s && s->records.file());
    ASSERT_EQ(records.data(), s->records.view().data()); // read in place
    // A pass over the index maps them in; one that gives them back behind it does not keep them.
    std::int64_t steps = 0;
    for (const auto& e : records)
        steps += e.gstep;
    EXPECT_GE(resident(), records.size_bytes() / 1024 - 8);
    std::size_t released = 0;
    for (std::size_t r = 0; r <= records.size(); ++r)
        part.index().releaseBehind(r, released);
    EXPECT_EQ(released, records.size());
    EXPECT_LE(resident(), 8u);
    EXPECT_EQ(steps, 2999 * 3000 / 2);
}

std::vector<analysis::KeySeries> keyStats(const xdl::RunReader& run, const std::string& key,
                                          const RunSummaries* summaries, Diagnostics& diag) {
    analysis::CpuBackend cpu(2);
    analysis::KeyStatsOptions options;
    options.keyFilter = [&key](std::string_view k) { return k == key; };
    options.summaries = summaries;
    auto out = analysis::computeKeyStats(run, cpu, options, diag);
    EXPECT_TRUE(out.isOk());
    return out.isOk() ? std::move(out.value()) : std::vector<analysis::KeySeries>{};
}

bool sameSeries(const std::vector<analysis::KeySeries>& a,
                const std::vector<analysis::KeySeries>& b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i) {
        const auto &x = a[i].records, &y = b[i].records;
        if (a[i].rank != b[i].rank || a[i].key != b[i].key || x.size() != y.size()) return false;
        for (std::size_t r = 0; r < x.size(); ++r)
            if (x[r].record != y[r].record || x[r].gstep != y[r].gstep ||
                x[r].lstep != y[r].lstep || x[r].timestamp != y[r].timestamp ||
                !xt::test::sameBits(x[r].stats, y[r].stats))
                return false;
    }
    return true;
}

// A key's statistics taken as openRun reads the summaries (analysis::takeKeyStats) are what a
// pass over the tensors gives: record numbers go on from part to part, empty columns are left
// out, damaged ones reported where they are. They are used once, instead of the summaries'
// columns: a second request reads the columns.
TEST(RunSummaries, AKeysStatisticsTakenAsTheSummariesAreReadEqualAPassOverTheTensors) {
    TempDir dir, cache;
    xt::test::writeRun(dir.str(), 2, 40);
    // A third rank whose "float" column of record 3 is damaged (its bytes do not fill its shape).
    std::mt19937_64 rng(3);
    std::string bytes = xt::test::frameHeader(xt::test::allDtypesKeys());
    for (int r = 0; r < 6; ++r) {
        auto cols = xt::test::allDtypesRecord(r, rng);
        if (r == 3) cols[4].data.resize(cols[4].data.size() - 3);
        bytes += xt::test::frameRecord(r, r + 1, 1700000000000 + r, cols);
    }
    xt::test::writeBytes(dir.file("train.trace.2.1"), bytes);
    Diagnostics diag;
    auto runs = xdl::discoverRuns({dir.str()}, diag);
    ASSERT_TRUE(runs.isOk());
    const StoreOptions store = storeIn(cache);
    {
        auto first = openRun(runs->at(0), store, diag);
        ASSERT_TRUE(first.isOk());
        ASSERT_TRUE(summarizeRun(first->reader, first->summaries, store, diag).isOk());
    }
    ASSERT_GT(runs->at(0).ranks.at(0).parts.size(), 2u);
    for (const std::string key : {"float", "once", ""}) {
        const std::string shown = key.empty() ? "int8" : key; // "": each part's first key
        Diagnostics d;
        auto opened = openRun(runs->at(0), store, d, {}, {}, analysis::takeKeyStats(key));
        ASSERT_TRUE(opened.isOk());
        const xdl::RunReader& run = opened->reader;
        ASSERT_EQ(run.ranks().size(), 3u);
        ASSERT_TRUE(opened->summaries.covers(run));
        // Each summary holds its non-empty columns of the key. A copy of it whose columns of
        // the key are all zeros keeps what was taken.
        RunSummaries zeroed;
        std::size_t taken = 0;
        for (const auto& rank : run.ranks())
            for (const auto& part : rank.parts()) {
                const PartSummary& s = *opened->summaries.find(*part);
                const int c = part->columnOf(shown);
                ASSERT_GE(c, 0);
                auto copy = std::make_shared<PartSummary>(s);
                copy->materialize();
                std::size_t columns = 0;
                for (std::size_t r = 0; r < s.recordCount(); ++r) {
                    if (s.isDamaged(r)) continue;
                    columns += s.columnsOf(r)[std::size_t(c)].state != ColumnState::Empty;
                    copy->columns.built()[copy->columnStart[r] + std::size_t(c)].stats = {};
                }
                EXPECT_EQ(analysis::takenRecords(s), columns) << part->part().path;
                taken += columns;
                zeroed.add(part->part().path, copy);
            }
        EXPECT_GE(taken, 3u);
        Diagnostics plainDiag, takenDiag, againDiag;
        const auto plain = keyStats(run, shown, nullptr, plainDiag);
        const auto fromTaken = keyStats(run, shown, &zeroed, takenDiag);
        EXPECT_TRUE(sameSeries(fromTaken, plain)) << shown;
        EXPECT_EQ(takenDiag.countsByCode(), plainDiag.countsByCode()) << shown;
        const Diagnostic* damaged = firstOf(plainDiag, "damaged-column");
        EXPECT_EQ(damaged != nullptr, shown == "float");
        if (damaged) {
            const Diagnostic* same = firstOf(takenDiag, "damaged-column");
            ASSERT_TRUE(same);
            EXPECT_EQ(same->file, damaged->file);
            EXPECT_EQ(same->offset, damaged->offset);
            EXPECT_EQ(same->record, damaged->record);
            EXPECT_EQ(same->message, damaged->message);
        }
        for (const auto& rank : run.ranks())
            for (const auto& part : rank.parts())
                EXPECT_EQ(analysis::takenRecords(*opened->summaries.find(*part)), 0u);
        // Used: asked again, the statistics come from the (zeroed) columns.
        const auto again = keyStats(run, shown, &zeroed, againDiag);
        EXPECT_FALSE(sameSeries(again, plain)) << shown;
        EXPECT_TRUE(sameSeries(keyStats(run, shown, &opened->summaries, againDiag), plain));
    }
}

// Key summaries decoded on every core, a stretch of records each, are a pass front to back's:
// the same summaries (dtypes that change, shapes that vary, empty and damaged columns, across
// parts and ranks) and the same diagnostics in the same order.
namespace {

void expectSameKeySummaries(const std::vector<xdl::KeySummary>& a,
                            const std::vector<xdl::KeySummary>& b) {
    ASSERT_EQ(a.size(), b.size());
    for (std::size_t k = 0; k < a.size(); ++k) {
        const auto &x = a[k], &y = b[k];
        EXPECT_EQ(x.key, y.key);
        EXPECT_EQ(x.dtype, y.dtype) << x.key;
        EXPECT_EQ(x.mixedDtypes, y.mixedDtypes) << x.key;
        EXPECT_TRUE(x.shape == y.shape) << x.key;
        EXPECT_EQ(x.varyingShape, y.varyingShape) << x.key;
        EXPECT_EQ(x.records, y.records) << x.key;
        EXPECT_EQ(x.emptyRecords, y.emptyRecords) << x.key;
        EXPECT_EQ(x.damagedRecords, y.damagedRecords) << x.key;
    }
}

} // namespace

TEST(RunSummaries, KeySummariesDecodedOnEveryCoreEqualAPassFrontToBack) {
    TempDir dir;
    xt::test::writeRun(dir.str(), 2, 40);
    std::mt19937_64 rng(9);
    for (int rank : {2, 3}) { // two more ranks, each with damaged columns
        std::string bytes = xt::test::frameHeader(xt::test::allDtypesKeys());
        for (int r = 0; r < 30; ++r) {
            auto cols = xt::test::allDtypesRecord(r, rng);
            if (r % 7 == rank) cols[4].data.resize(cols[4].data.size() - 3); // "float" damaged
            if (r == 11) cols[12].shape = {60};                              // "cube" varies
            if (r == 12) {                                                   // "int8" mixed
                cols[0].dtype = xdl::Dtype::Int16;
                cols[0].data =
                    xt::test::randomValues(xdl::Dtype::Int16, std::size_t(cols[0].shape[0]), rng);
            }
            bytes += xt::test::frameRecord(r, r + 1, 1700000000000 + r, cols);
        }
        xt::test::writeBytes(dir.file("train.trace." + std::to_string(rank) + ".1"), bytes);
    }
    Diagnostics d;
    auto run = openPlain(dir.str(), d);
    ASSERT_TRUE(run.isOk());
    ASSERT_EQ(run->ranks().size(), 4u);
    ASSERT_GT(run->ranks()[0].parts().size(), 2u);
    Diagnostics parallel, serial;
    auto a = xdl::summarizeKeys(*run, parallel);
    // A facts source that declines every record: decoded all the same, front to back.
    auto b = xdl::summarizeKeys(
        *run, serial, {},
        [](const xdl::PartReader&, std::size_t, std::vector<xdl::ColumnFacts>&) { return false; });
    ASSERT_TRUE(a.isOk());
    ASSERT_TRUE(b.isOk());
    expectSameKeySummaries(*a, *b);
    bool mixed = false, varying = false;
    for (const auto& x : *a) {
        mixed |= x.mixedDtypes;
        varying |= x.varyingShape;
    }
    EXPECT_TRUE(mixed);
    EXPECT_TRUE(varying);
    ASSERT_EQ(parallel.items().size(), serial.items().size());
    EXPECT_GE(parallel.items().size(), 8u);
    for (std::size_t i = 0; i < parallel.items().size(); ++i) {
        const Diagnostic &x = parallel.items()[i], &y = serial.items()[i];
        EXPECT_EQ(x.code, y.code) << i;
        EXPECT_EQ(x.file, y.file) << i;
        EXPECT_EQ(x.offset, y.offset) << i;
        EXPECT_EQ(x.record, y.record) << i;
        EXPECT_EQ(x.message, y.message) << i;
    }

    // The first records of each rank only (none of ranks 0 and 1), then the rest: the whole.
    const std::map<int, std::size_t> prefix{{0, 0}, {1, 0}, {2, 11}, {3, 13}};
    Diagnostics first;
    auto p = xdl::summarizeKeyPrefix(*run, prefix, first);
    ASSERT_TRUE(p.isOk());
    const auto key = [&](const std::string& k) {
        return *std::find_if(p->begin(), p->end(), [&](const auto& s) { return s.key == k; });
    };
    EXPECT_EQ(key("float").damagedRecords, 4u); // records 2 and 9 of rank 2, 3 and 10 of rank 3
    EXPECT_EQ(key("float").records, 20u);
    EXPECT_TRUE(key("int8").mixedDtypes); // record 12 of rank 3
    EXPECT_EQ(first.total(), 4u);         // each damaged column met, once
    ASSERT_TRUE(xdl::extendKeySummaries(*p, *run, prefix, first));
    expectSameKeySummaries(*a, *p);
}

// Key summaries and NaN/Inf come from totals counted per part as summaries are built or read:
// across parts, dtypes that change, shapes that vary, NaN and Inf in a later part.
TEST(RunSummaries, PartTotalsGiveTheKeySummariesAndNonFiniteOfARecordByRecordPass) {
    TempDir dir, cache;
    std::mt19937_64 rng(5);
    const float nan = std::numeric_limits<float>::quiet_NaN();
    const double inf = std::numeric_limits<double>::infinity();
    auto floats = [](std::vector<float> v) {
        return std::string(reinterpret_cast<const char*>(v.data()), v.size() * 4);
    };
    for (int part = 1; part <= 2; ++part) {
        std::string bytes = xt::test::frameHeader({"a", "b", "c"});
        for (int r = 0; r < 4; ++r) {
            const std::int64_t g = (part - 1) * 4 + r;
            std::vector<xt::test::Column> cols;
            if (part == 1) // "a": float32 [4], a NaN at step 2
                cols.push_back({xdl::Dtype::Float, {4}, floats({1, 2, g == 2 ? nan : 3, 4})});
            else { // then float64, an Inf at step 6
                std::vector<double> d{1, 2, 3, g == 6 ? inf : 4.0};
                cols.push_back({xdl::Dtype::Double,
                                {4},
                                std::string(reinterpret_cast<const char*>(d.data()), 32)});
            }
            const std::int64_t n = part == 1 ? 2 : 3; // "b": int32, [2] then [3]
            cols.push_back({xdl::Dtype::Int32,
                            {n},
                            xt::test::randomValues(xdl::Dtype::Int32, std::size_t(n), rng)});
            if (g == 0) // "c": once, then empty
                cols.push_back({xdl::Dtype::Int8, {3}, "abc"});
            else
                cols.push_back({xdl::Dtype::Float, {0}, ""});
            bytes += xt::test::frameRecord(g, g + 1, 1700000000000 + g, cols);
        }
        xt::test::writeBytes(dir.file("train.trace.0." + std::to_string(part)), bytes);
    }
    Diagnostics diag;
    auto runs = xdl::discoverRuns({dir.str()}, diag);
    ASSERT_TRUE(runs.isOk());
    const StoreOptions store = storeIn(cache);
    auto built = openRun(runs->at(0), store, diag);
    ASSERT_TRUE(built.isOk());
    ASSERT_TRUE(summarizeRun(built->reader, built->summaries, store, diag).isOk());
    auto read = openRun(runs->at(0), store, diag); // the totals counted as the files are read
    ASSERT_TRUE(read.isOk());
    ASSERT_TRUE(read->summaries.covers(read->reader));
    for (const auto* opened : {&*built, &*read}) {
        expectSameKeyStats(opened->reader, opened->summaries);
        Diagnostics d;
        auto keys = summarizeKeys(opened->reader, opened->summaries, d);
        ASSERT_TRUE(keys.isOk());
        ASSERT_EQ(keys->size(), 3u);
        EXPECT_TRUE((*keys)[0].mixedDtypes);
        EXPECT_FALSE((*keys)[0].varyingShape);
        EXPECT_EQ((*keys)[0].dtype, xdl::Dtype::Float);
        EXPECT_FALSE((*keys)[1].mixedDtypes);
        EXPECT_TRUE((*keys)[1].varyingShape);
        EXPECT_EQ((*keys)[1].shape.toString(), "[2]");
        EXPECT_EQ((*keys)[2].records, 1u);
        EXPECT_EQ((*keys)[2].emptyRecords, 7u);
        const auto nf = analysis::findFirstNonFinite(opened->reader, opened->summaries);
        ASSERT_EQ(nf.size(), 1u);
        ASSERT_TRUE(nf[0].nan && nf[0].inf);
        EXPECT_EQ(nf[0].nan->record, 2u);
        EXPECT_EQ(nf[0].nan->gstep, 2);
        EXPECT_EQ(nf[0].inf->record, 6u); // the rank's record, in the second part
        EXPECT_EQ(nf[0].inf->gstep, 6);
        EXPECT_EQ(nf[0].inf->elements, 1u);
    }
}

TEST(SummaryStore, CacheNamesAndLocation) {
    TempDir dir;
    StoreOptions o;
    const char* old = std::getenv("XDG_CACHE_HOME");
    const std::string saved = old ? old : "";
    ::setenv("XDG_CACHE_HOME", dir.str().c_str(), 1);
    const std::string a = cachePath("/data/run/train.trace.0.1", o);
    const std::string b = cachePath("/data/other/train.trace.0.1", o);
    EXPECT_EQ(fs::path(a).parent_path(), dir.path() / "xtview" / "summaries");
    EXPECT_NE(a, b);
    EXPECT_TRUE(a.ends_with("-train.trace.0.1.xts")) << a;
    EXPECT_EQ(fs::path(a).filename().string(), a.substr(a.size() - 36));
    EXPECT_EQ(fs::path(a).filename().string().find_first_not_of("0123456789abcdef"), 16u);
    ::unsetenv("XDG_CACHE_HOME");
    ::setenv("HOME", "/home/someone", 1);
    EXPECT_EQ(cacheDirectory(o), "/home/someone/.cache/xtview/summaries");
    o.cacheDir = "/elsewhere";
    EXPECT_EQ(fs::path(cachePath("/x/y", o)).parent_path(), "/elsewhere");
    EXPECT_EQ(besidePath("/x/train.trace.0.1"), "/x/train.trace.0.1.xts");
    if (old) ::setenv("XDG_CACHE_HOME", saved.c_str(), 1);
}

// A part in a folder the process may not write: the summary goes to the cache and the part's
// folder is left alone; a cache that cannot be written either is a diagnostic, not an error.
// Runs as "nobody" in a child when the tests run as root (root ignores mode bits).
TEST(SummaryStore, ReadOnlyFolderFallsBackToTheCache) {
    TempDir dir;
    ASSERT_EQ(::chmod(dir.str().c_str(), 0777), 0);
    const std::string runDir = dir.file("run");
    fs::create_directories(runDir);
    const std::string path = runDir + "/train.trace.0.1";
    xt::test::writeBytes(path, xt::test::allDtypesPart(4, 3));
    ASSERT_EQ(::chmod(path.c_str(), 0644), 0);
    ASSERT_EQ(::chmod(runDir.c_str(), 0555), 0);
    pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
        if (::geteuid() == 0 && (::setgid(65534) != 0 || ::setuid(65534) != 0)) ::_exit(10);
        StoreOptions o;
        o.cacheDir = dir.file("cache");
        o.writeBeside = true;
        Diagnostics d;
        auto r = loadOrBuildSummary(partAt(path), o, d);
        if (!r) ::_exit(11);
        if (r->savedTo != cachePath(partSource(path), o)) ::_exit(12);
        if (fs::exists(besidePath(path)) || !d.empty()) ::_exit(13);
        auto again = loadOrBuildSummary(partAt(path), o, d);
        if (!again || again->origin != SummaryOrigin::Loaded) ::_exit(14);
        // Nowhere to write: still a summary, and a diagnostic.
        o.cacheDir = runDir + "/cache";
        auto unsaved = loadOrBuildSummary(partAt(path), o, d);
        if (!unsaved || !unsaved->savedTo.empty() || !unsaved->summary) ::_exit(15);
        if (d.countsByCode().count("summary-not-saved") != 1) ::_exit(16);
        ::_exit(0);
    }
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    ::chmod(runDir.c_str(), 0755);
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 0);
}

// Two processes rebuilding and reading one summary over and over: a reader sees the old or
// the new summary, never a torn one (write to a unique temporary name, then rename).
TEST(SummaryStore, ConcurrentRebuildersNeverSeeATornSummary) {
    TempDir dir, cache;
    const std::string small = dir.file("small/train.trace.0.1");
    const std::string large = dir.file("large/train.trace.0.1");
    fs::create_directories(dir.file("small"));
    fs::create_directories(dir.file("large"));
    xt::test::writeBytes(small, xt::test::allDtypesPart(2, 4));
    xt::test::writeBytes(large, xt::test::allDtypesPart(60, 4));
    Diagnostics d;
    auto a = build(small, storeIn(cache), d);
    auto b = build(large, storeIn(cache), d);
    const std::string target = dir.file("shared.xts");
    ASSERT_TRUE(saveSummary(*a, target).isOk());
    const std::string bytesA = serializeSummary(*a), bytesB = serializeSummary(*b);
    std::vector<pid_t> children;
    for (int child = 0; child < 2; ++child) {
        pid_t pid = ::fork();
        ASSERT_GE(pid, 0);
        if (pid == 0) {
            for (int i = 0; i < 150; ++i) {
                if (!saveSummary((i + child) % 2 ? *a : *b, target)) ::_exit(10);
                const std::string seen = xt::test::readBytes(target);
                if (seen != bytesA && seen != bytesB) ::_exit(11);
                auto parsed = parseSummary(
                    {reinterpret_cast<const std::uint8_t*>(seen.data()), seen.size()}, target);
                if (!parsed) ::_exit(12);
            }
            ::_exit(0);
        }
        children.push_back(pid);
    }
    for (pid_t pid : children) {
        int status = 0;
        ASSERT_EQ(::waitpid(pid, &status, 0), pid);
        ASSERT_TRUE(WIFEXITED(status));
        EXPECT_EQ(WEXITSTATUS(status), 0);
    }
    for (const auto& e : fs::directory_iterator(dir.path())) // no temporary file left
        EXPECT_FALSE(e.path().filename().string().ends_with(".tmp")) << e.path();
}

// Building the summary of a large part keeps the resident set small: the pages already
// summarised are released (MappedFile::release). Measured in a child, from a reset peak.
TEST(SummaryBuilder, ResidentMemoryDoesNotGrowWithThePart) {
    TempDir dir, cache;
    const std::string path = dir.file("train.trace.0.1");
    {
        std::ofstream out(path, std::ios::binary);
        out << xt::test::frameHeader({"w"});
        std::vector<float> v(256 * 1024); // 1 MB records
        for (int r = 0; r < 192; ++r) {
            for (std::size_t i = 0; i < v.size(); ++i)
                v[i] = float(r) + float(i % 1000) * 0.5f;
            out << xt::test::frameRecord(
                r, r + 1, r,
                {{xdl::Dtype::Float,
                  {std::int64_t(v.size())},
                  std::string(reinterpret_cast<const char*>(v.data()), v.size() * 4)}});
        }
    }
    // A 192 MB part, < 80 MB peak.
    EXPECT_EQ(peakGrowthInChild(80 * 1024,
                                [&] {
                                    Diagnostics d;
                                    StoreOptions o = storeIn(cache);
                                    o.save = false;
                                    auto r = loadOrBuildSummary(partAt(path), o, d);
                                    return r && r->summary->recordCount() == 192;
                                }),
              "");
}

TEST(SummaryBuilder, AFirstBuildOfManySmallColumnsWritesThemOutAsItGoes) {
    // 36 000 records of 36 one-element columns: 1.3 M columns, 145 MB of them in memory, and a
    // 26 MB part. Built for the cache, they go to an unlinked file as they are made.
    TempDir dir, cache;
    const std::string path = dir.file("train.trace.0.1");
    constexpr int kKeys = 36, kRecords = 36000;
    {
        std::vector<std::string> keys;
        for (int k = 0; k < kKeys; ++k)
            keys.push_back("k" + std::to_string(k));
        std::ofstream out(path, std::ios::binary);
        out << xt::test::frameHeader(keys);
        std::vector<xt::test::Column> cols(kKeys);
        for (int r = 0; r < kRecords; ++r) {
            for (int k = 0; k < kKeys; ++k) {
                const float v = float(r) * 0.25f - float(k);
                cols[std::size_t(k)] = {
                    xdl::Dtype::Float, {1}, std::string(reinterpret_cast<const char*>(&v), 4)};
            }
            out << xt::test::frameRecord(r, r, 1000 + r, cols);
        }
    }
    Diagnostics d;
    StoreOptions inMemory = storeIn(cache);
    inMemory.save = false;
    auto reference = build(path, inMemory, d);
    ASSERT_TRUE(reference);
    ASSERT_EQ(reference->columns.size(), std::size_t(kKeys) * kRecords);
    EXPECT_FALSE(reference->columns.isMapped());

    const auto spilled = [&] {
        Diagnostics cd;
        auto r = loadOrBuildSummary(partAt(path), storeIn(cache), cd);
        return r && r->origin == SummaryOrigin::Built;
    };
#if defined(__SANITIZE_ADDRESS__) // freed memory stays in its quarantine: no peak to check
    EXPECT_TRUE(spilled());
#else
    EXPECT_EQ(peakGrowthInChild(64 * 1024, spilled), "");
#endif

    // The summary saved is the one built in memory, byte for byte, and nothing else is left.
    SummaryOrigin origin;
    auto saved = build(path, storeIn(cache), d, &origin);
    ASSERT_EQ(origin, SummaryOrigin::Loaded);
    EXPECT_EQ(bytesOf(*saved), bytesOf(*reference));
    std::size_t files = 0;
    for (const auto& e : fs::recursive_directory_iterator(cache.path()))
        files += e.is_regular_file();
    EXPECT_EQ(files, 1u);

    // A build cancelled halfway leaves nothing behind either.
    fs::remove(cachePath(partSource(path), storeIn(cache)));
    Diagnostics cd;
    auto cancelled =
        loadOrBuildSummary(partAt(path), storeIn(cache), cd, [](const ProgressReport& r) {
            return r.stage != "summarizing" || r.done < r.total / 2;
        });
    EXPECT_FALSE(cancelled.isOk());
    files = 0;
    for (const auto& e : fs::recursive_directory_iterator(cache.path()))
        files += e.is_regular_file();
    EXPECT_EQ(files, 0u);
    EXPECT_TRUE(d.empty());
}

// A run written by an independent writer (Python protobuf, tests/tools/write_xdl_reference.py).
TEST(RunSummaries, ReferenceWriterRunMatchesAFreshComputation) {
    TempDir dir, cache;
    const std::string cmd = std::string("/usr/bin/python3 ") + XT_SOURCE_DIR +
                            "/tests/tools/write_xdl_reference.py " + XT_SOURCE_DIR + "/proto " +
                            dir.file("run") + " > /dev/null 2>&1";
    if (std::system(cmd.c_str()) != 0)
        GTEST_SKIP() << "python3 with numpy, protobuf and protoc are needed for the reference run";
    Diagnostics diag;
    auto runs = xdl::discoverRuns({dir.file("run")}, diag);
    ASSERT_TRUE(runs.isOk());
    ASSERT_EQ(runs->size(), 1u);
    auto opened = openRun(runs->at(0), storeIn(cache), diag);
    ASSERT_TRUE(opened.isOk());
    ASSERT_TRUE(summarizeRun(opened->reader, opened->summaries, storeIn(cache), diag).isOk());
    EXPECT_TRUE(opened->summaries.covers(opened->reader));
    EXPECT_GE(opened->reader.ranks().size(), 2u);
    for (const auto& rank : opened->reader.ranks())
        for (std::size_t p = 0; p < rank.parts().size(); ++p)
            expectEqualsBackend(rank, *opened->summaries.find(*rank.parts()[p]), p, 0);
    Diagnostics d2;
    auto reopened = openRun(runs->at(0), storeIn(cache), d2);
    ASSERT_TRUE(reopened.isOk());
    EXPECT_TRUE(reopened->summaries.covers(reopened->reader));
    analysis::CpuBackend cpu(1);
    analysis::KeyStatsOptions plain, with;
    with.summaries = &reopened->summaries;
    auto a = analysis::computeKeyStats(reopened->reader, cpu, plain, d2);
    auto b = analysis::computeKeyStats(reopened->reader, cpu, with, d2);
    ASSERT_TRUE(a.isOk() && b.isOk());
    ASSERT_EQ(a->size(), b->size());
    for (std::size_t i = 0; i < a->size(); ++i) {
        ASSERT_EQ((*a)[i].records.size(), (*b)[i].records.size());
        for (std::size_t r = 0; r < (*a)[i].records.size(); ++r)
            EXPECT_TRUE(xt::test::sameBits((*a)[i].records[r].stats, (*b)[i].records[r].stats));
    }
}

// Column starts are held only once records differ in their column counts, and read the same
// either way; a summary of records of the same columns holds none, built or read back.
TEST(SummaryFormat, ColumnStartsAreHeldOnlyWhenRecordsDiffer) {
    ColumnStarts uniform, varying;
    std::vector<std::uint64_t> want{0};
    for (std::uint64_t r = 1; r <= 1000; ++r) {
        want.push_back(want.back() + (r == 700 ? 0 : 13)); // record 699 has no columns
        if (r < 700) uniform.push_back(want.back());
        varying.push_back(want.back());
    }
    EXPECT_FALSE(uniform.held());
    EXPECT_TRUE(varying.held());
    ASSERT_EQ(uniform.size(), 700u);
    ASSERT_EQ(varying.size(), want.size());
    for (std::size_t r = 0; r < want.size(); ++r) {
        EXPECT_EQ(varying[r], want[r]);
        if (r < 700) EXPECT_EQ(uniform[r], want[r]);
    }
    EXPECT_EQ(uniform.back(), want[699]);
    // Shrunk (a cancelled extension rolled back) and grown again: the same entries.
    varying.resize(300);
    uniform.resize(300);
    EXPECT_TRUE(varying == uniform);
    uniform.resize(1);
    EXPECT_EQ(uniform.size(), 1u);
    uniform.push_back(5);
    uniform.push_back(10);
    EXPECT_FALSE(uniform.held());
    EXPECT_EQ(uniform[2], 10u);

    TempDir dir;
    const std::string path = dir.file("train.trace.0.1");
    xt::test::writeBytes(path, xt::test::allDtypesPart(40, 3));
    Diagnostics diag;
    auto s = build(path, storeIn(dir), diag);
    ASSERT_TRUE(s);
    EXPECT_FALSE(s->columnStart.held());
    EXPECT_EQ(s->columnStart[40], 40u * xt::test::allDtypesKeys().size());
    const std::string bytes = serializeSummary(*s);
    auto back =
        parseSummary({reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size()}, "x");
    ASSERT_TRUE(back.isOk()) << back.status().toString();
    EXPECT_FALSE(back->columnStart.held());
    EXPECT_TRUE(back->columnStart == s->columnStart);
}
