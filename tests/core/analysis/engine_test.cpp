// The engine over real trace files written with FileSeriesWriter: per-record series, step
// histograms, aggregates across ranks (missing ranks reported), NaN/Inf first occurrence and
// run comparison.
#include "core/analysis/cpu_backend.h"
#include "core/analysis/key_stats.h"
#include "core/analysis/non_finite.h"
#include "core/analysis/run_compare.h"
#include "core/analysis/step_aggregate.h"
#include "core/analysis/step_histogram.h"
#include "core/xdl/file_series_writer.h"
#include "temp_dir.h"

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <gtest/gtest.h>
#include <limits>
#include <map>
#include <thread>
#include <unistd.h>

namespace xt::analysis {
namespace {
using xt::test::TempDir;

using xdl::Dtype;

// value(rank, gstep, i) of key "w"; key "n" is an int32 column.
using ValueFn = std::function<float(int, std::int64_t, int)>;

float baseValue(int rank, std::int64_t g, int i) {
    return float(rank) + float(g) * 0.5f + float(i) * 0.25f;
}

// Ranks 0 and 1, gsteps 0..4 (rank 1 skips gstep 2), keys {w: float32 [2,4], n: int32 [3]}.
// `gstepOffset` is added to every written gstep (the values still depend on 0..4).
void writeRun(const std::string& dir, const ValueFn& value,
              std::vector<std::string> keys = {"w", "n"}, std::int64_t gstepOffset = 0) {
    for (int rank = 0; rank < 2; ++rank) {
        xdl::WriterOptions o;
        o.outputDir = dir;
        o.rank = rank;
        auto w = xdl::FileSeriesWriter::create(o, keys);
        ASSERT_TRUE(w.isOk()) << w.status().toString();
        xdl::RecordEncoder enc;
        for (std::int64_t g = 0; g < 5; ++g) {
            if (rank == 1 && g == 2) continue;
            enc.begin(g + gstepOffset, g + 10);
            std::vector<float> wv(8);
            for (int i = 0; i < 8; ++i)
                wv[std::size_t(i)] = value(rank, g, i);
            const std::int64_t wShape[] = {2, 4};
            enc.addColumn(Dtype::Float, wShape,
                          xdl::Bytes(reinterpret_cast<const std::uint8_t*>(wv.data()), 32));
            if (keys.size() > 1) {
                std::int32_t nv[3] = {int(g), 0, -int(g)};
                const std::int64_t nShape[] = {3};
                enc.addColumn(Dtype::Int32, nShape,
                              xdl::Bytes(reinterpret_cast<const std::uint8_t*>(nv), 12));
            }
            ASSERT_TRUE(enc.finish(1700000000000 + g).isOk());
            ASSERT_TRUE(
                (*w)->write(enc.framed(), g + gstepOffset, g + 10, 1700000000000 + g).isOk());
        }
        ASSERT_TRUE((*w)->close().isOk());
    }
}

xdl::RunReader openRun(const std::string& dir, Diagnostics& diag) {
    auto runs = xdl::discoverRuns({dir}, diag);
    EXPECT_TRUE(runs.isOk() && runs->size() == 1);
    auto run = xdl::RunReader::open(runs->at(0), diag);
    EXPECT_TRUE(run.isOk()) << run.status().toString();
    return std::move(run.value());
}

TEST(Engine, KeySeriesAggregatesAndNonFinite) {
    TempDir dir;
    writeRun(dir.str(), [](int rank, std::int64_t g, int i) {
        if (rank == 0 && g == 3 && i == 1) return std::numeric_limits<float>::quiet_NaN();
        if (rank == 1 && g == 4 && i == 0) return std::numeric_limits<float>::infinity();
        return baseValue(rank, g, i);
    });
    Diagnostics diag;
    auto run = openRun(dir.str(), diag);
    CpuBackend backend;
    KeyStatsOptions opts;
    opts.batchBytes = 40; // several backend calls
    auto series = computeKeyStats(run, backend, opts, diag);
    ASSERT_TRUE(series.isOk()) << series.status().toString();
    ASSERT_EQ(series->size(), 4u); // (rank 0: w, n), (rank 1: w, n)
    const KeySeries& w0 = (*series)[0];
    EXPECT_EQ(w0.rank, 0);
    EXPECT_EQ(w0.key, "w");
    ASSERT_EQ(w0.records.size(), 5u);
    EXPECT_EQ(w0.records[2].gstep, 2);
    EXPECT_EQ(w0.records[2].lstep, 12);
    EXPECT_EQ(w0.records[2].stats.count, 8u);
    EXPECT_DOUBLE_EQ(w0.records[2].stats.min, 1.0);
    EXPECT_DOUBLE_EQ(w0.records[2].stats.max, 2.75);
    EXPECT_DOUBLE_EQ(w0.records[2].stats.mean, 1.875);
    EXPECT_EQ(w0.records[3].stats.nan, 1u);
    EXPECT_EQ((*series)[1].key, "n");
    EXPECT_EQ((*series)[1].records[0].stats.zeros, 3u);
    EXPECT_EQ((*series)[2].records.size(), 4u);

    // Filter and rank selection.
    opts.keyFilter = [](std::string_view k) { return k == "n"; };
    opts.rank = 1;
    auto only = computeKeyStats(run, backend, opts, diag);
    ASSERT_TRUE(only.isOk());
    ASSERT_EQ(only->size(), 1u);
    EXPECT_EQ((*only)[0].rank, 1);

    // Aggregates: rank 1 is missing at gstep 2; at gstep 3 rank 0's max is still finite.
    auto agg = aggregateSteps(*series, "w", StatField::Mean);
    ASSERT_EQ(agg.size(), 5u);
    EXPECT_EQ(agg[2].gstep, 2);
    EXPECT_EQ(agg[2].ranks, 1);
    EXPECT_EQ(agg[2].missingRanks, std::vector<int>{1});
    EXPECT_EQ(agg[0].ranks, 2);
    EXPECT_DOUBLE_EQ(agg[0].min, 0.875);
    EXPECT_DOUBLE_EQ(agg[0].max, 1.875);
    EXPECT_DOUBLE_EQ(agg[0].spread, 1.0);
    EXPECT_DOUBLE_EQ(agg[0].mean, 1.375);
    EXPECT_EQ(agg[0].minRank, 0);
    EXPECT_EQ(agg[0].maxRank, 1);
    auto withExtra = aggregateSteps(*series, "w", StatField::Max, {0, 1, 2});
    EXPECT_EQ(withExtra[0].missingRanks, std::vector<int>{2});

    // NaN / Inf first occurrence.
    auto firsts = findFirstNonFinite(*series);
    ASSERT_EQ(firsts.size(), 2u);
    EXPECT_EQ(firsts[0].rank, 0);
    ASSERT_TRUE(firsts[0].nan.has_value());
    EXPECT_EQ(firsts[0].nan->gstep, 3);
    EXPECT_FALSE(firsts[0].inf.has_value());
    ASSERT_TRUE(firsts[1].inf.has_value());
    EXPECT_EQ(firsts[1].inf->gstep, 4);
    auto byKey = firstNonFiniteByKey(firsts);
    ASSERT_EQ(byKey.size(), 1u);
    EXPECT_EQ(byKey[0].nanRank, 0);
    EXPECT_EQ(byKey[0].infRank, 1);
}

// Forwards to a one-thread CPU backend under the CUDA kind, counting the callers inside at once.
class OneCallerProbe final : public Backend {
public:
    BackendKind kind() const override { return BackendKind::Cuda; }
    std::string description() const override { return "probe"; }
    Status computeStats(std::span<const xdl::TensorView> batch,
                        std::span<TensorStats> out) override {
        const int now = ++m_inside;
        for (int seen = m_most.load(); now > seen && !m_most.compare_exchange_weak(seen, now);) {
        }
        std::this_thread::sleep_for(std::chrono::microseconds(200));
        Status st = m_cpu.computeStats(batch, out);
        --m_inside;
        return st;
    }
    Status histogram(std::span<const xdl::TensorView> batch, const BinLayout& layout,
                     std::span<Histogram> out) override {
        return m_cpu.histogram(batch, layout, out);
    }
    int most() const { return m_most; }

private:
    CpuBackend m_cpu{1};
    std::atomic<int> m_inside{0}, m_most{0};
};

// Ranks are read several at a time with the CPU backend (it may be called from several
// threads); any other backend is called from one thread at a time. Both give the series of one
// pass, in rank order.
TEST(Engine, KeySeriesOfRanksReadTogetherEqualOneRankAtATime) {
    TempDir dir;
    writeRun(dir.str(), baseValue);
    Diagnostics diag;
    auto run = openRun(dir.str(), diag);
    KeyStatsOptions opts;
    opts.batchBytes = 40; // a backend call every record or two
    CpuBackend cpu(2);
    OneCallerProbe probe;
    auto together = computeKeyStats(run, cpu, opts, diag);
    auto alone = computeKeyStats(run, probe, opts, diag);
    ASSERT_TRUE(together.isOk());
    ASSERT_TRUE(alone.isOk());
    EXPECT_EQ(probe.most(), 1);
    ASSERT_EQ(together->size(), 4u);
    ASSERT_EQ(alone->size(), 4u);
    for (std::size_t i = 0; i < 4; ++i) {
        const KeySeries &a = (*together)[i], &b = (*alone)[i];
        EXPECT_EQ(a.rank, b.rank);
        EXPECT_EQ(a.key, b.key);
        ASSERT_EQ(a.records.size(), b.records.size());
        for (std::size_t r = 0; r < a.records.size(); ++r) {
            const RecordStats ra = a.records[r], rb = b.records[r];
            EXPECT_EQ(ra.record, rb.record);
            EXPECT_EQ(ra.gstep, rb.gstep);
            EXPECT_EQ(std::memcmp(&ra.stats, &rb.stats, sizeof(TensorStats)), 0);
        }
    }
    EXPECT_EQ((*together)[0].rank, 0);
    EXPECT_EQ((*together)[2].rank, 1);
}

// Records [from, to) per rank: ranges that tile each rank give, concatenated, exactly the
// series of one pass; a range past the end is clipped, and an empty one gives empty series.
TEST(Engine, KeySeriesOfRecordRangesTileTheWholeSeries) {
    TempDir dir;
    writeRun(dir.str(), baseValue);
    Diagnostics diag;
    auto run = openRun(dir.str(), diag);
    CpuBackend backend;
    KeyStatsOptions opts;
    auto whole = computeKeyStats(run, backend, opts, diag);
    ASSERT_TRUE(whole.isOk());
    std::vector<KeySeries> tiled;
    for (const auto& [from, to] :
         std::vector<std::pair<std::size_t, std::size_t>>{{0, 1}, {1, 1}, {1, 3}, {3, 99}}) {
        opts.fromRecord = {{0, from}, {1, from}};
        opts.toRecord = {{0, to}, {1, to}};
        auto part = computeKeyStats(run, backend, opts, diag);
        ASSERT_TRUE(part.isOk());
        ASSERT_EQ(part->size(), whole->size());
        for (std::size_t i = 0; i < part->size(); ++i) {
            const auto& p = (*part)[i];
            EXPECT_EQ(p.records.size(), std::min(to, std::size_t(p.rank == 0 ? 5 : 4)) -
                                            std::min(from, std::size_t(p.rank == 0 ? 5 : 4)))
                << p.rank << " " << from;
            if (tiled.size() <= i) tiled.push_back(KeySeries{p.rank, p.key, {}});
            tiled[i].records.append(p.records.begin(), p.records.end());
        }
    }
    ASSERT_EQ(tiled.size(), whole->size());
    for (std::size_t i = 0; i < tiled.size(); ++i) {
        const auto& a = tiled[i].records;
        const auto& b = (*whole)[i].records;
        ASSERT_EQ(a.size(), b.size());
        for (std::size_t r = 0; r < a.size(); ++r) {
            EXPECT_EQ(a[r].record, b[r].record);
            EXPECT_EQ(a[r].gstep, b[r].gstep);
            EXPECT_EQ(a[r].stats.mean, b[r].stats.mean);
            EXPECT_EQ(a[r].stats.std, b[r].stats.std);
            EXPECT_EQ(a[r].stats.min, b[r].stats.min);
            EXPECT_EQ(a[r].stats.max, b[r].stats.max);
        }
    }
}

TEST(Engine, StepHistogramMatrix) {
    TempDir dir;
    writeRun(dir.str(), baseValue);
    Diagnostics diag;
    auto run = openRun(dir.str(), diag);
    CpuBackend backend;
    HistogramOptions o;
    o.bins = 4;
    StepRange range;
    ASSERT_TRUE(parseStepRange("1:3", range).isOk());
    auto m = stepHistograms(run.ranks()[0], "w", backend, o, range, diag);
    ASSERT_TRUE(m.isOk()) << m.status().toString();
    EXPECT_EQ(m->steps, (std::vector<std::int64_t>{1, 2, 3}));
    // Automatic range over gsteps 1..3 of rank 0: [0.5, 3.25].
    EXPECT_DOUBLE_EQ(m->layout.lo, 0.5);
    EXPECT_DOUBLE_EQ(m->layout.hi, 3.25);
    EXPECT_EQ(m->total.binned(), 24u);
    EXPECT_EQ(m->dense().size(), 12u);
    for (const auto& row : m->rows)
        EXPECT_EQ(row.total(), 8u);

    o.lo = 0.0;
    o.hi = 1.0;
    auto fixed = stepHistograms(run.ranks()[0], "w", backend, o, StepRange{}, diag);
    ASSERT_TRUE(fixed.isOk());
    EXPECT_EQ(fixed->rows.size(), 5u);
    EXPECT_EQ(fixed->total.binned() + fixed->total.above, 40u);

    EXPECT_FALSE(stepHistograms(run.ranks()[0], "nope", backend, o, StepRange{}, diag).isOk());
    EXPECT_FALSE(parseStepRange("5:1", range).isOk());
    EXPECT_TRUE(parseStepRange(":7", range).isOk());
    EXPECT_FALSE(range.first.has_value());
    EXPECT_EQ(range.last, 7);
}

// `merged` (options.maxRows = maxRows) against `full` (one row per gstep): consecutive gsteps,
// the same number in each row but the last, counts added.
void expectMergedRows(const HistogramMatrix& full, const HistogramMatrix& merged,
                      std::size_t maxRows) {
    const std::size_t per = (full.rows.size() + maxRows - 1) / maxRows;
    ASSERT_EQ(merged.rows.size(), (full.rows.size() + per - 1) / per);
    ASSERT_LE(merged.rows.size(), maxRows);
    ASSERT_EQ(merged.lastSteps.size(), merged.rows.size());
    ASSERT_EQ(merged.stepCounts.size(), merged.rows.size());
    for (std::size_t r = 0; r < merged.rows.size(); ++r) {
        const std::size_t first = r * per, end = std::min(first + per, full.rows.size());
        EXPECT_EQ(merged.steps[r], full.steps[first]);
        EXPECT_EQ(merged.lastSteps[r], full.steps[end - 1]);
        EXPECT_EQ(merged.stepCounts[r], end - first);
        Histogram sum(full.layout);
        for (std::size_t i = first; i < end; ++i)
            sum.merge(full.rows[i]);
        EXPECT_EQ(merged.rows[r].counts, sum.counts) << "row " << r;
        EXPECT_EQ(merged.rows[r].total(), sum.total());
    }
    EXPECT_EQ(merged.total.counts, full.total.counts);
}

TEST(Engine, StepHistogramRowsMergeConsecutiveStepsUpToMaxRows) {
    TempDir dir;
    writeRun(dir.str(), baseValue);
    Diagnostics diag;
    auto run = openRun(dir.str(), diag);
    CpuBackend backend;
    HistogramOptions o;
    o.bins = 4;
    for (const auto& rank : run.ranks()) { // gsteps 0..4, and 0, 1, 3, 4 (rank 1)
        auto full = stepHistograms(rank, "w", backend, o, StepRange{}, diag);
        ASSERT_TRUE(full.isOk()) << full.status().toString();
        EXPECT_EQ(full->lastSteps, full->steps);
        EXPECT_EQ(full->stepCounts, std::vector<std::uint32_t>(full->steps.size(), 1));
        for (std::size_t maxRows : {1, 2, 3}) {
            HistogramOptions capped = o;
            capped.maxRows = maxRows;
            auto merged = stepHistograms(rank, "w", backend, capped, StepRange{}, diag);
            ASSERT_TRUE(merged.isOk());
            EXPECT_EQ(merged->layout.lo, full->layout.lo);
            EXPECT_EQ(merged->layout.hi, full->layout.hi);
            expectMergedRows(*full, *merged, maxRows);
        }
        // Enough rows: nothing merged.
        HistogramOptions roomy = o;
        roomy.maxRows = full->steps.size();
        auto same = stepHistograms(rank, "w", backend, roomy, StepRange{}, diag);
        ASSERT_TRUE(same.isOk());
        EXPECT_EQ(same->steps, full->steps);
        EXPECT_EQ(same->dense(), full->dense());
    }
    // Rank 1 in two rows: gsteps {0, 1} and {3, 4}.
    o.maxRows = 3;
    auto m = stepHistograms(run.ranks()[1], "w", backend, o, StepRange{}, diag);
    ASSERT_TRUE(m.isOk());
    EXPECT_EQ(m->steps, (std::vector<std::int64_t>{0, 3}));
    EXPECT_EQ(m->lastSteps, (std::vector<std::int64_t>{1, 4}));
    EXPECT_EQ(m->stepCounts, (std::vector<std::uint32_t>{2, 2}));
}

TEST(Engine, StepHistogramRangeFromTheSeriesNeedsNoPassOverTheTensors) {
    // With NaN and Inf in it: the range is of the finite values.
    TempDir dir;
    writeRun(dir.str(), [](int rank, std::int64_t g, int i) {
        if (rank == 0 && g == 3 && i == 1) return std::numeric_limits<float>::quiet_NaN();
        if (rank == 1 && g == 4 && i == 0) return -std::numeric_limits<float>::infinity();
        return baseValue(rank, g, i) * (g == 1 ? -3.0f : 1.0f);
    });
    Diagnostics diag;
    auto run = openRun(dir.str(), diag);
    CpuBackend backend;
    auto series = computeKeyStats(run, backend, KeyStatsOptions{}, diag);
    ASSERT_TRUE(series.isOk());
    std::vector<std::string> stages;
    const ProgressCallback progress = [&](const ProgressReport& r) {
        if (stages.empty() || stages.back() != r.stage) stages.emplace_back(r.stage);
        return true;
    };
    const auto ranged = [&] {
        return std::find(stages.begin(), stages.end(), "histogram range") != stages.end();
    };
    HistogramOptions o;
    o.bins = 5;
    StepRange some;
    ASSERT_TRUE(parseStepRange("1:3", some).isOk());
    for (const auto& rank : run.ranks())
        for (const StepRange& steps : {StepRange{}, some}) {
            SCOPED_TRACE("rank " + std::to_string(rank.rank()));
            const KeySeries* w = nullptr;
            for (const auto& s : *series)
                if (s.rank == rank.rank() && s.key == "w") w = &s;
            ASSERT_NE(w, nullptr);
            stages.clear();
            auto computed = stepHistograms(rank, "w", backend, o, steps, diag, progress);
            ASSERT_TRUE(computed.isOk());
            EXPECT_TRUE(ranged());
            stages.clear();
            auto known =
                stepHistograms(rank, "w", backend, o, steps, diag, progress, nullptr, &w->records);
            ASSERT_TRUE(known.isOk());
            EXPECT_FALSE(ranged());
            EXPECT_EQ(known->layout.lo, computed->layout.lo);
            EXPECT_EQ(known->layout.hi, computed->layout.hi);
            EXPECT_EQ(known->steps, computed->steps);
            EXPECT_EQ(known->dense(), computed->dense());
            EXPECT_EQ(known->total.nan, computed->total.nan);
            EXPECT_EQ(known->total.negInf, computed->total.negInf);
            // A series without one of the records: the tensors are passed over, same matrix.
            RecordSeries partial;
            for (std::size_t r = 0; r + 1 < w->records.size(); ++r)
                partial.push_back(w->records[r]);
            stages.clear();
            auto fallback =
                stepHistograms(rank, "w", backend, o, steps, diag, progress, nullptr, &partial);
            ASSERT_TRUE(fallback.isOk());
            EXPECT_EQ(ranged(), !steps.last.has_value()); // only the last record is missing
            EXPECT_EQ(fallback->dense(), computed->dense());
        }
}

TEST(Engine, StepHistogramOfStepsThatGoBackAfterARestart) {
    // Rank 0's gsteps: every 2nd, then a restart back to 4, then steps in between and again.
    // Rank 1's: every 4th, then again from 4 on. Rank 2's: as far apart as int64 allows (what a
    // damaged file can hold).
    constexpr std::int64_t kFar = 9'000'000'000'000'000'000;
    const std::vector<std::vector<std::int64_t>> steps = {
        {10, 12, 14, 16, 4, 6, 13, 14, 15, 11, 12},
        {0, 4, 8, 12, 4, 8, 12, 16},
        {-kFar, kFar, 0, kFar - 1, kFar, -kFar}};
    TempDir dir;
    for (int rank = 0; rank < 3; ++rank) {
        const auto& written = steps[std::size_t(rank)];
        xdl::WriterOptions o;
        o.outputDir = dir.str();
        o.rank = rank;
        auto w = xdl::FileSeriesWriter::create(o, {"w"});
        ASSERT_TRUE(w.isOk()) << w.status().toString();
        xdl::RecordEncoder enc;
        std::int64_t t = 1700000000000;
        for (std::int64_t g : written) {
            enc.begin(g, g);
            std::vector<float> wv(8);
            for (int i = 0; i < 8; ++i)
                wv[std::size_t(i)] = float(g) + 0.25f * float(i);
            const std::int64_t shape[] = {8};
            enc.addColumn(Dtype::Float, shape,
                          xdl::Bytes(reinterpret_cast<const std::uint8_t*>(wv.data()), 32));
            ASSERT_TRUE(enc.finish(++t).isOk());
            ASSERT_TRUE((*w)->write(enc.framed(), g, g, t).isOk());
        }
        ASSERT_TRUE((*w)->close().isOk());
    }
    Diagnostics diag;
    auto run = openRun(dir.str(), diag);
    CpuBackend backend;
    HistogramOptions o;
    o.bins = 20, o.lo = 0.0, o.hi = 20.0; // bin b holds [b, b + 1)
    // Each record puts 4 values in the bin of its gstep and 4 in the next one.
    const auto expectedRows = [&](int rank, std::int64_t from, std::int64_t to) {
        std::map<std::int64_t, std::vector<std::uint64_t>> rows;
        for (std::int64_t g : steps[std::size_t(rank)]) {
            if (g < from || g > to) continue;
            auto& row = rows.try_emplace(g, std::vector<std::uint64_t>(20, 0)).first->second;
            row[std::size_t(g)] += 4, row[std::size_t(g) + 1] += 4;
        }
        return rows;
    };
    const auto expectRows = [](const HistogramMatrix& m, const auto& rows) {
        ASSERT_EQ(m.rows.size(), rows.size());
        std::size_t r = 0;
        for (const auto& [g, counts] : rows) {
            EXPECT_EQ(m.steps[r], g);
            EXPECT_EQ(m.rows[r].counts, counts) << "gstep " << g;
            ++r;
        }
    };
    auto m = stepHistograms(run.ranks()[0], "w", backend, o, StepRange{}, diag);
    ASSERT_TRUE(m.isOk()) << m.status().toString();
    expectRows(*m, expectedRows(0, 0, 100)); // 4, 6, 10, 11, ..., 16
    auto again = stepHistograms(run.ranks()[1], "w", backend, o, StepRange{}, diag);
    ASSERT_TRUE(again.isOk()) << again.status().toString();
    expectRows(*again, expectedRows(1, 0, 100)); // 0, 4, ..., 16
    // Three rows of three steps: {4, 6, 10}, {11, 12, 13}, {14, 15, 16}.
    o.maxRows = 3;
    auto merged = stepHistograms(run.ranks()[0], "w", backend, o, StepRange{}, diag);
    ASSERT_TRUE(merged.isOk());
    expectMergedRows(*m, *merged, 3);
    EXPECT_EQ(merged->steps, (std::vector<std::int64_t>{4, 11, 14}));
    EXPECT_EQ(merged->lastSteps, (std::vector<std::int64_t>{10, 13, 16}));
    // A step range across the restart.
    o.maxRows = 0;
    StepRange range;
    ASSERT_TRUE(parseStepRange("5:12", range).isOk());
    auto part = stepHistograms(run.ranks()[0], "w", backend, o, range, diag);
    ASSERT_TRUE(part.isOk());
    expectRows(*part, expectedRows(0, 5, 12)); // 6, 10, 11, 12 (twice)
    // Rank 2: four steps; the values of all but gstep 0 lie beyond the bins.
    auto far = stepHistograms(run.ranks()[2], "w", backend, o, StepRange{}, diag);
    ASSERT_TRUE(far.isOk()) << far.status().toString();
    EXPECT_EQ(far->steps, (std::vector<std::int64_t>{-kFar, 0, kFar - 1, kFar}));
    EXPECT_EQ(far->stepCounts, (std::vector<std::uint32_t>{1, 1, 1, 1}));
    std::vector<std::uint64_t> totals, outside;
    for (const auto& row : far->rows)
        totals.push_back(row.total()), outside.push_back(row.below + row.above);
    EXPECT_EQ(totals, (std::vector<std::uint64_t>{16, 8, 8, 16}));
    EXPECT_EQ(outside, (std::vector<std::uint64_t>{16, 0, 8, 16}));
}

TEST(Engine, CompareRuns) {
    TempDir a, b;
    writeRun(a.str(), baseValue);
    writeRun(b.str(),
             [](int rank, std::int64_t g, int i) {
                 const float v = baseValue(rank, g, i);
                 if (g == 1 && i == 2) return std::nextafter(v, 100.0f); // within tolerance
                 if (g == 3 && i == 0) return v + 1.0f;                  // beyond
                 if (g == 4 && i == 5) return std::numeric_limits<float>::quiet_NaN();
                 return v;
             },
             {"w"});
    Diagnostics diag;
    auto ra = openRun(a.str(), diag);
    auto rb = openRun(b.str(), diag);
    auto d = compareRanks(ra.ranks()[0], rb.ranks()[0], CompareOptions{}, diag);
    ASSERT_TRUE(d.isOk()) << d.status().toString();
    EXPECT_EQ(d->keysOnlyA, std::vector<std::string>{"n"});
    EXPECT_TRUE(d->keysOnlyB.empty());
    ASSERT_EQ(d->keys.size(), 1u);
    const KeyDiff& k = d->keys[0];
    ASSERT_EQ(k.steps.size(), 5u);
    EXPECT_EQ(k.firstDiffExact, 1);
    EXPECT_EQ(k.firstDiffTolerance, 3);
    EXPECT_TRUE(k.steps[0].bitExact);
    EXPECT_FALSE(k.steps[1].bitExact);
    EXPECT_TRUE(k.steps[1].withinTolerance);
    EXPECT_DOUBLE_EQ(k.steps[3].maxAbs, 1.0);
    EXPECT_DOUBLE_EQ(k.steps[3].maxRel, 1.0 / 2.5);
    EXPECT_EQ(k.firstNanOnlyB, 4);
    EXPECT_FALSE(k.firstNanOnlyA.has_value());
    EXPECT_EQ(k.steps[4].nanOnlyB, 1u);

    // Rank 0 against rank 1 aligned by lstep: rank 1 has no lstep 12.
    CompareOptions lo;
    lo.align = StepAlign::Lstep;
    auto r01 = compareRanks(ra.ranks()[0], ra.ranks()[1], lo, diag);
    ASSERT_TRUE(r01.isOk());
    EXPECT_EQ(r01->keys[0].stepsOnlyA, std::vector<std::int64_t>{12});
    EXPECT_EQ(r01->keys[0].firstDiffExact, 10);
}

// Relative alignment: B restarted at gstep 1000 with the same values; by gstep nothing lines up,
// relative to each side's first gstep everything does, and a change shows at its offset.
TEST(Engine, CompareRunsRelativeAlignment) {
    EXPECT_EQ(parseStepAlign("relative"), StepAlign::Relative);
    EXPECT_STREQ(stepAlignName(StepAlign::Relative), "relative");
    EXPECT_FALSE(parseStepAlign("index").has_value());
    TempDir a, b;
    writeRun(a.str(), baseValue, {"w"});
    writeRun(
        b.str(),
        [](int rank, std::int64_t g, int i) {
            return g == 3 && i == 1 ? baseValue(rank, g, i) + 0.5f : baseValue(rank, g, i);
        },
        {"w"}, 1000);
    Diagnostics diag;
    auto ra = openRun(a.str(), diag);
    auto rb = openRun(b.str(), diag);
    EXPECT_EQ(stepOrigin(rb.ranks()[0], StepAlign::Relative), 1000);
    EXPECT_EQ(stepOrigin(rb.ranks()[0], StepAlign::Gstep), 0);
    EXPECT_EQ(alignedStep(1003, 13, StepAlign::Relative, 1000), 3);
    EXPECT_EQ(alignedStep(1003, 13, StepAlign::Lstep, 0), 13);

    auto byGstep = compareRanks(ra.ranks()[0], rb.ranks()[0], CompareOptions{}, diag);
    ASSERT_TRUE(byGstep.isOk());
    EXPECT_TRUE(byGstep->keys[0].steps.empty());
    EXPECT_EQ(byGstep->keys[0].stepsOnlyA.size(), 5u);
    EXPECT_EQ(byGstep->keys[0].stepsOnlyB.size(), 5u);

    CompareOptions rel;
    rel.align = StepAlign::Relative;
    auto d = compareRanks(ra.ranks()[0], rb.ranks()[0], rel, diag);
    ASSERT_TRUE(d.isOk());
    const KeyDiff& k = d->keys[0];
    ASSERT_EQ(k.steps.size(), 5u);
    EXPECT_EQ(k.steps.front().step, 0);
    EXPECT_EQ(k.steps.back().step, 4);
    EXPECT_TRUE(k.stepsOnlyA.empty());
    EXPECT_TRUE(k.stepsOnlyB.empty());
    EXPECT_EQ(k.firstDiffExact, 3);
    EXPECT_EQ(k.firstDiffTolerance, 3);
    EXPECT_DOUBLE_EQ(k.steps[3].maxAbs, 0.5);

    // Rank 1 of A (which skips gstep 2) against rank 1 of B: gaps keep their offsets.
    auto d1 = compareRanks(ra.ranks()[1], rb.ranks()[1], rel, diag);
    ASSERT_TRUE(d1.isOk());
    ASSERT_EQ(d1->keys[0].steps.size(), 4u);
    EXPECT_EQ(d1->keys[0].steps[2].step, 3);
    EXPECT_EQ(d1->keys[0].firstDiffExact, 3);
}

} // namespace
} // namespace xt::analysis
