#include "core/analysis/step_histogram.h"

#include "core/summary/run_summary.h"

#include <algorithm>
#include <charconv>
#include <optional>
#include <string>

namespace xt::analysis {

namespace {

constexpr std::uint64_t kBatchBytes = 16ull << 20; // tensor bytes per backend call
// Tensors per backend call: each gets a histogram of its own (bins x 8 B) for the call, so a key
// of scalars would otherwise ask for millions of them at once.
constexpr std::size_t kBatchTensors = 4096;

bool parseInt(std::string_view s, std::int64_t& v) {
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    return ec == std::errc() && p == s.data() + s.size();
}

// A set of integers (record numbers, steps) as arithmetic progressions: the records of a key, or
// its steps (every 4th on each of 4 ranks, say), are mostly a few such runs, and a run of small
// records has tens of millions of them (8 B each as a vector). Values are added in any order,
// then normalized.
class Runs {
public:
    // first, first + stride, ... (count values). Differences are taken as unsigned: the steps of
    // a damaged file can be any int64, and b - a of two of them need not fit one.
    struct Run {
        std::int64_t first = 0;
        std::uint64_t stride = 1, count = 1;
        static std::uint64_t gap(std::int64_t a, std::int64_t b) { // b >= a
            return std::uint64_t(b) - std::uint64_t(a);
        }
        std::int64_t value(std::uint64_t k) const {
            return std::int64_t(std::uint64_t(first) + k * stride);
        }
        std::int64_t last() const { return value(count - 1); }
        bool holds(std::int64_t v) const {
            return v >= first && v <= last() && gap(first, v) % stride == 0;
        }
    };
    void add(std::int64_t v) {
        if (m_runs.empty()) return m_runs.push_back({v});
        Run& r = m_runs.back();
        if (r.count == 1 && v > r.first) {
            r.stride = Run::gap(r.first, v), r.count = 2;
        } else if (r.count > 1 && v > r.last() && Run::gap(r.last(), v) == r.stride) {
            ++r.count;
        } else if (!r.holds(v)) {
            m_runs.push_back({v});
        }
    }
    // Sorts the runs and makes them disjoint; count(), indexOf() and at() need it. Overlapping
    // runs (steps written again after a restart) become one where they share a stride and
    // alignment, and are otherwise taken apart and encoded again.
    void normalize() {
        std::sort(m_runs.begin(), m_runs.end(),
                  [](const Run& a, const Run& b) { return a.first < b.first; });
        std::vector<Run> out;
        for (std::size_t i = 0; i < m_runs.size();) {
            std::size_t j = i + 1;
            std::int64_t last = m_runs[i].last();
            bool aligned = true;
            for (; j < m_runs.size() && m_runs[j].first <= last; ++j) {
                const Run& r = m_runs[j];
                aligned &= (r.count == 1 || r.stride == m_runs[i].stride) &&
                           Run::gap(m_runs[i].first, r.first) % m_runs[i].stride == 0;
                last = std::max(last, r.last());
            }
            if (j == i + 1) {
                out.push_back(m_runs[i]);
            } else if (aligned) {
                const std::uint64_t stride = m_runs[i].stride;
                out.push_back(
                    {m_runs[i].first, stride, Run::gap(m_runs[i].first, last) / stride + 1});
            } else {
                std::vector<std::int64_t> values;
                for (std::size_t k = i; k < j; ++k)
                    for (std::uint64_t n = 0; n < m_runs[k].count; ++n)
                        values.push_back(m_runs[k].value(n));
                std::sort(values.begin(), values.end());
                values.erase(std::unique(values.begin(), values.end()), values.end());
                Runs again;
                for (std::int64_t v : values)
                    again.add(v);
                out.insert(out.end(), again.m_runs.begin(), again.m_runs.end());
            }
            i = j;
        }
        m_runs = std::move(out);
        m_before.assign(1, 0);
        for (const Run& r : m_runs)
            m_before.push_back(m_before.back() + r.count);
    }
    // Ascending and disjoint once normalized.
    const std::vector<Run>& runs() const { return m_runs; }
    bool empty() const { return m_runs.empty(); }
    std::size_t count() const { return m_before.back(); }
    // The place of v, one of the set's, among them.
    std::size_t indexOf(std::int64_t v) const {
        const auto it = std::upper_bound(m_runs.begin(), m_runs.end(), v,
                                         [](std::int64_t x, const Run& r) { return x < r.first; });
        const std::size_t k = std::size_t(it - m_runs.begin()) - 1;
        return m_before[k] + std::size_t(Run::gap(m_runs[k].first, v) / m_runs[k].stride);
    }
    // The i-th of the set's values.
    std::int64_t at(std::size_t i) const {
        const std::size_t k =
            std::size_t(std::upper_bound(m_before.begin(), m_before.end(), i) - m_before.begin()) -
            1;
        return m_runs[k].value(i - m_before[k]);
    }

private:
    std::vector<Run> m_runs;
    std::vector<std::size_t> m_before{0}; // values in the runs before each (normalized)
};

// Runs fn(views, records) over batches of the tensors of `key` in `records`, in order: at most
// kBatchBytes and kBatchTensors a batch. Each batch's tensors are found again: a view per record
// held for the whole key would cost ~160 B per record, and a run of small records has millions
// of them.
template <class F>
Status forBatches(const xdl::RankReader& rank, std::string_view key, const Runs& records, F&& fn) {
    std::vector<xdl::TensorView> views;
    std::vector<std::size_t> batch;
    std::uint64_t n = 0;
    const auto flush = [&] {
        Status s = views.empty() ? Status::ok()
                                 : fn(std::span<const xdl::TensorView>(views),
                                      std::span<const std::size_t>(batch));
        views.clear(), batch.clear(), n = 0;
        return s;
    };
    for (const Runs::Run& run : records.runs())
        for (std::uint64_t k = 0; k < run.count; ++k) {
            const auto r = std::size_t(run.value(k));
            auto t = rank.tensor(r, key);
            if (!t) return t.status(); // it was found before: only a failed fetch of remote bytes
            views.push_back(*t);
            batch.push_back(r);
            n += t->bytes().size();
            if (n >= kBatchBytes || views.size() >= kBatchTensors) XT_RETURN_IF_ERROR(flush());
        }
    return flush();
}

// The finite min/max over the given records' tensors of `key` from summaries; false when a
// record's part is not covered.
bool rangeFromSummaries(const xdl::RankReader& rank, std::string_view key, const Runs& records,
                        const summary::RunSummaries& summaries, StatsAccumulator& range) {
    const xdl::PartReader* lastPart = nullptr;
    const summary::PartSummary* s = nullptr;
    int column = -1;
    std::size_t released = 0; // the summary's pages are given back behind
    for (const Runs::Run& run : records.runs())
        for (std::uint64_t k = 0; k < run.count; ++k) {
            const auto record = std::size_t(run.value(k));
            const xdl::PartReader& part = *rank.parts()[rank.partOf(record)];
            if (&part != lastPart) {
                if (s) s->releaseBehind(s->recordCount(), released);
                lastPart = &part;
                s = summaries.find(part);
                column = part.columnOf(key);
                released = 0;
            }
            const xdl::RecordEntry& e = rank.entry(record);
            const std::size_t inPart = std::size_t(&e - part.index().records().data());
            if (s) s->releaseBehind(inPart, released);
            if (!s || column < 0 || s->isDamaged(inPart)) return false;
            const auto columns = s->columnsOf(inPart);
            if (std::size_t(column) >= columns.size()) return false;
            const summary::ColumnSummary& c = columns[std::size_t(column)];
            if (c.state != summary::ColumnState::Data) return false;
            if (!c.stats.hasFinite()) continue;
            range.finite += c.stats.finite;
            range.min = std::min(range.min, c.stats.min);
            range.max = std::max(range.max, c.stats.max);
        }
    if (s) s->releaseBehind(s->recordCount(), released);
    return true;
}

// The range of `records` (record numbers of the rank, ascending) from their statistics in
// `series`; false when it lacks one of them.
bool rangeFromSeries(const RecordSeries& series, const Runs& records, StatsAccumulator& range) {
    constexpr std::size_t kBlock = 1024;
    using F = RecordSeries::Field;
    std::vector<double> block(4 * kBlock);
    double *number = block.data(), *finite = number + kBlock, *lo = finite + kBlock,
           *hi = lo + kBlock;
    std::size_t at = 0, filled = 0, i = 0; // series records [at, at + filled) are in the block
    for (const Runs::Run& run : records.runs())
        for (std::uint64_t k = 0; k < run.count; ++k) {
            const auto wanted = double(run.value(k));
            for (;; ++i) {
                if (i == at + filled) {
                    at = i;
                    filled = std::min(kBlock, series.size() - i);
                    if (filled == 0) return false;
                    series.read(F::Record, at, filled, number);
                    series.read(F::Finite, at, filled, finite);
                    series.read(F::Min, at, filled, lo);
                    series.read(F::Max, at, filled, hi);
                }
                if (number[i - at] >= wanted) break;
            }
            if (number[i - at] != wanted) return false;
            if (finite[i - at] > 0) {
                range.finite += std::uint64_t(finite[i - at]);
                range.min = std::min(range.min, lo[i - at]);
                range.max = std::max(range.max, hi[i - at]);
            }
            ++i;
        }
    return true;
}

// The rows of a matrix over the given gsteps: one per distinct gstep, or the same number of
// consecutive ones merged into each of at most maxRows.
class RowPlan {
public:
    RowPlan(Runs gsteps, std::size_t maxRows) : m_steps(std::move(gsteps)) {
        m_steps.normalize();
        if (maxRows > 0 && m_steps.count() > maxRows)
            m_per = (m_steps.count() + maxRows - 1) / maxRows;
    }
    std::size_t rows() const { return (m_steps.count() + m_per - 1) / m_per; }
    // The row of a gstep that is one of the plan's.
    std::size_t rowOf(std::int64_t gstep) const { return m_steps.indexOf(gstep) / m_per; }
    // Moves `rows` (rows() of them) into m with their steps and the total.
    void fill(HistogramMatrix& m, std::vector<Histogram>&& rows) const {
        m.total = Histogram(m.layout);
        for (std::size_t r = 0; r < rows.size(); ++r) {
            const std::size_t first = r * m_per, end = std::min(first + m_per, m_steps.count());
            m.steps.push_back(m_steps.at(first));
            m.lastSteps.push_back(m_steps.at(end - 1));
            m.stepCounts.push_back(std::uint32_t(end - first));
            m.total.merge(rows[r]);
            m.rows.push_back(std::move(rows[r]));
        }
    }

private:
    Runs m_steps; // distinct, ascending
    std::size_t m_per = 1;
};

} // namespace

Status parseStepRange(std::string_view text, StepRange& out) {
    const auto colon = text.find(':');
    if (colon == std::string_view::npos)
        return Status(ErrorCode::InvalidArgument,
                      "step range must be A:B, A: or :B, got '" + std::string(text) + "'");
    StepRange r;
    const auto a = text.substr(0, colon), b = text.substr(colon + 1);
    std::int64_t v = 0;
    if (!a.empty()) {
        if (!parseInt(a, v))
            return Status(ErrorCode::InvalidArgument, "bad step '" + std::string(a) + "'");
        r.first = v;
    }
    if (!b.empty()) {
        if (!parseInt(b, v))
            return Status(ErrorCode::InvalidArgument, "bad step '" + std::string(b) + "'");
        r.last = v;
    }
    if (r.first && r.last && *r.first > *r.last)
        return Status(ErrorCode::InvalidArgument, "step range A:B needs A <= B");
    out = r;
    return Status::ok();
}

std::vector<std::uint64_t> HistogramMatrix::dense() const {
    std::vector<std::uint64_t> out;
    out.reserve(rows.size() * std::size_t(layout.bins));
    for (const auto& r : rows)
        out.insert(out.end(), r.counts.begin(), r.counts.end());
    return out;
}

Result<HistogramMatrix> stepHistograms(const xdl::RankReader& rank, std::string_view key,
                                       Backend& backend, const HistogramOptions& options,
                                       const StepRange& steps, Diagnostics& diag,
                                       const ProgressCallback& progress,
                                       const summary::RunSummaries* summaries,
                                       const RecordSeries* series) {
    Runs gsteps, records;
    std::uint64_t total = 0, done = 0; // tensor bytes
    xdl::ReleaseBehind found(rank);
    rank.forEachTensor(key, diag, [&](std::size_t record, const xdl::TensorView& t) {
        const xdl::RecordEntry& e = rank.entry(record);
        if (steps.contains(e.gstep) && !t.empty()) {
            gsteps.add(e.gstep);
            records.add(std::int64_t(record));
            total += t.bytes().size();
        }
        // Finding the tensor touched the record's tags: their pages need not stay (the batches
        // fault the tensor's bytes back in from the page cache).
        found.passed(record);
        return true;
    });
    found.flush();
    records.normalize(); // the passes below read them in ascending order
    if (records.empty())
        return Status(ErrorCode::NotFound, "no record of rank " + std::to_string(rank.rank()) +
                                               " holds data for key '" + std::string(key) +
                                               "' in the step range");
    // Once a batch is done, its records' pages leave this process (they stay in the page cache),
    // so memory does not grow with the bytes read. The whole record goes: finding the tensor
    // touched the other columns' tags, and the kernel mapped the cached pages around them.
    std::optional<xdl::ReleaseBehind> behind; // one per pass over the records
    auto release = [&](std::span<const std::size_t> batch) {
        if (!behind) behind.emplace(rank);
        for (std::size_t r : batch)
            behind->passed(r);
        if (std::int64_t(batch.back()) == records.runs().back().last()) behind.reset();
    };
    StatsAccumulator range;
    // An automatic range needs a first pass over the tensors unless the summaries or the series
    // know it.
    const auto known = [&] {
        if (summaries && rangeFromSummaries(rank, key, records, *summaries, range)) return true;
        range = StatsAccumulator{};
        return series && rangeFromSeries(*series, records, range);
    };
    const bool rangePass = !options.lo && !known();
    const std::uint64_t passes = rangePass ? 2 : 1;
    if (rangePass) {
        range = StatsAccumulator{};
        std::vector<TensorStats> stats;
        XT_RETURN_IF_ERROR(
            forBatches(rank, key, records,
                       [&](std::span<const xdl::TensorView> b, std::span<const std::size_t> batch) {
                           stats.resize(b.size());
                           XT_RETURN_IF_ERROR(backend.computeStats(b, stats));
                           for (const auto& s : stats) {
                               if (!s.hasFinite()) continue;
                               range.finite += s.finite;
                               range.min = std::min(range.min, s.min);
                               range.max = std::max(range.max, s.max);
                           }
                           for (const auto& v : b)
                               done += v.bytes().size();
                           release(batch);
                           if (!reportProgress(progress, done, total * passes, "histogram range"))
                               return Status(ErrorCode::Cancelled, "cancelled");
                           return Status::ok();
                       }));
    }
    TensorStats rangeStats;
    rangeStats.finite = range.finite;
    rangeStats.min = range.min;
    rangeStats.max = range.max;
    XT_ASSIGN_OR_RETURN(const BinLayout layout, makeBinLayout(options, rangeStats));

    const RowPlan plan(std::move(gsteps), options.maxRows);
    std::vector<Histogram> rows(plan.rows(), Histogram(layout));
    std::vector<Histogram> hists;
    XT_RETURN_IF_ERROR(
        forBatches(rank, key, records,
                   [&](std::span<const xdl::TensorView> b, std::span<const std::size_t> batch) {
                       hists.assign(b.size(), Histogram(layout));
                       XT_RETURN_IF_ERROR(backend.histogram(b, layout, hists));
                       for (std::size_t i = 0; i < b.size(); ++i) {
                           rows[plan.rowOf(rank.entry(batch[i]).gstep)].merge(hists[i]);
                           done += b[i].bytes().size();
                       }
                       release(batch);
                       if (!reportProgress(progress, done, total * passes, "histogram"))
                           return Status(ErrorCode::Cancelled, "cancelled");
                       return Status::ok();
                   }));

    HistogramMatrix m;
    m.layout = layout;
    plan.fill(m, std::move(rows));
    return m;
}

Result<HistogramMatrix> sketchStepHistograms(const xdl::RankReader& rank,
                                             const summary::RunSummaries& summaries,
                                             std::string_view key, const HistogramOptions& options,
                                             const StepRange& steps) {
    struct Item {
        std::int64_t gstep;
        TensorStats stats;
        const summary::Sketch* sketch;
    };
    std::vector<Item> items;
    StatsAccumulator range;
    for (const auto& part : rank.parts()) {
        const int c = part->columnOf(key);
        if (c < 0) continue;
        const summary::PartSummary* s = summaries.find(*part);
        if (!s) return Status(ErrorCode::Unsupported, part->part().path + " has no summary");
        const auto& records = part->index().records();
        std::size_t released = 0;
        for (std::size_t r = 0; r < records.size(); ++r) {
            s->releaseBehind(r, released);
            const auto cols = s->columnsOf(r);
            if (std::size_t(c) >= cols.size() || !steps.contains(records[r].gstep)) continue;
            const summary::ColumnSummary& col = cols[std::size_t(c)];
            if (col.state != summary::ColumnState::Data) continue;
            if (col.stats.hasFinite() && col.sketch == summary::kNone)
                return Status(ErrorCode::Unsupported,
                              "a record of '" + std::string(key) + "' has no sketch");
            const summary::Sketch* sk =
                col.sketch == summary::kNone ? nullptr : &s->sketches[col.sketch];
            items.push_back({records[r].gstep, col.stats, sk});
            if (col.stats.hasFinite()) {
                range.finite += col.stats.finite;
                range.min = std::min(range.min, col.stats.min);
                range.max = std::max(range.max, col.stats.max);
            }
        }
        s->releaseBehind(records.size(), released);
    }
    if (items.empty())
        return Status(ErrorCode::NotFound, "no record of rank " + std::to_string(rank.rank()) +
                                               " holds data for key '" + std::string(key) +
                                               "' in the step range");
    TensorStats rangeStats;
    rangeStats.finite = range.finite;
    rangeStats.min = range.min;
    rangeStats.max = range.max;
    auto layout = makeBinLayout(options, rangeStats);
    if (!layout) return layout.status();
    const double t0 = layout->transform(layout->lo), t1 = layout->transform(layout->hi);
    const double binWidth = (t1 - t0) / layout->bins;

    Runs gsteps;
    for (const Item& it : items)
        gsteps.add(it.gstep);
    const RowPlan plan(std::move(gsteps), options.maxRows);
    // Fractional counts, and the non-finite and out-of-range counts, of each row.
    std::vector<std::vector<double>> rows(plan.rows(),
                                          std::vector<double>(std::size_t(layout->bins), 0.0));
    std::vector<Histogram> extras(plan.rows(), Histogram(*layout));
    for (const Item& it : items) {
        auto& row = rows[plan.rowOf(it.gstep)];
        Histogram& extra = extras[plan.rowOf(it.gstep)];
        const TensorStats& st = it.stats;
        extra.nan += st.nan;
        extra.posInf += st.inf; // the sketch does not keep the sign of an infinity
        if (!st.hasFinite()) continue;
        const double w = (st.max - st.min) / summary::kSketchBins;
        for (int j = 0; j < summary::kSketchBins; ++j) {
            const double n = double((*it.sketch)[std::size_t(j)]);
            if (n == 0) continue;
            const double a = st.min + w * j, b = j + 1 == summary::kSketchBins ? st.max : a + w;
            // Spread evenly over [T(a), T(b)] in the coordinate the bins are linear in.
            const double ta = layout->transform(a), tb = layout->transform(b);
            if (tb <= ta) {
                row[std::size_t(layout->binOf(a))] += n;
                continue;
            }
            const int first = std::clamp(int((ta - t0) / binWidth), 0, layout->bins - 1);
            const int last = std::clamp(int((tb - t0) / binWidth), 0, layout->bins - 1);
            for (int k = first; k <= last; ++k) {
                const double lo = std::max(ta, t0 + binWidth * k);
                const double hi = std::min(tb, t0 + binWidth * (k + 1));
                if (hi > lo) row[std::size_t(k)] += n * (hi - lo) / (tb - ta);
            }
        }
    }
    for (std::size_t r = 0; r < rows.size(); ++r)
        for (std::size_t k = 0; k < rows[r].size(); ++k)
            extras[r].counts[k] = std::uint64_t(std::llround(rows[r][k]));
    HistogramMatrix m;
    m.layout = *layout;
    plan.fill(m, std::move(extras));
    return m;
}

} // namespace xt::analysis
