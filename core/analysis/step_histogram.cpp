#include "core/analysis/step_histogram.h"

#include "core/summary/run_summary.h"

#include <algorithm>
#include <charconv>
#include <map>
#include <string>

namespace xt::analysis {

namespace {

constexpr std::uint64_t kBatchBytes = 256ull << 20;

bool parseInt(std::string_view s, std::int64_t& v) {
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    return ec == std::errc() && p == s.data() + s.size();
}

// Calls fn(batch span, offset) for consecutive batches of about kBatchBytes.
template <class F> Status forBatches(const std::vector<xdl::TensorView>& views, F&& fn) {
    std::size_t begin = 0;
    while (begin < views.size()) {
        std::size_t end = begin;
        std::uint64_t bytes = 0;
        while (end < views.size() && (end == begin || bytes < kBatchBytes))
            bytes += views[end++].bytes().size();
        XT_RETURN_IF_ERROR(fn(std::span(views).subspan(begin, end - begin), begin));
        begin = end;
    }
    return Status::ok();
}

// The finite min/max over the given records' tensors of `key` from summaries; false when a
// record's part is not covered.
bool rangeFromSummaries(const xdl::RankReader& rank, std::string_view key,
                        const std::vector<std::size_t>& records,
                        const summary::RunSummaries& summaries, StatsAccumulator& range) {
    const xdl::PartReader* lastPart = nullptr;
    const summary::PartSummary* s = nullptr;
    int column = -1;
    for (std::size_t record : records) {
        const xdl::PartReader& part = *rank.parts()[rank.partOf(record)];
        if (&part != lastPart) {
            lastPart = &part;
            s = summaries.find(part);
            column = part.columnOf(key);
        }
        const xdl::RecordEntry& e = rank.entry(record);
        const std::size_t inPart = std::size_t(&e - part.index().records().data());
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
    return true;
}

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
                                       const summary::RunSummaries* summaries) {
    std::vector<xdl::TensorView> views;
    std::vector<std::int64_t> gsteps;
    std::vector<std::size_t> records;
    rank.forEachTensor(key, diag, [&](std::size_t record, const xdl::TensorView& t) {
        const std::int64_t g = rank.entry(record).gstep;
        if (steps.contains(g) && !t.empty()) {
            views.push_back(t);
            gsteps.push_back(g);
            records.push_back(record);
        }
        return true;
    });
    if (views.empty())
        return Status(ErrorCode::NotFound, "no record of rank " + std::to_string(rank.rank()) +
                                               " holds data for key '" + std::string(key) +
                                               "' in the step range");
    std::uint64_t total = 0, done = 0;
    for (const auto& v : views)
        total += v.bytes().size();
    StatsAccumulator range;
    // An automatic range needs a first pass over the tensors unless the summaries know it.
    const bool rangePass =
        !options.lo && !(summaries && rangeFromSummaries(rank, key, records, *summaries, range));
    const std::uint64_t passes = rangePass ? 2 : 1;
    if (rangePass) {
        range = StatsAccumulator{};
        std::vector<TensorStats> stats;
        XT_RETURN_IF_ERROR(forBatches(views, [&](std::span<const xdl::TensorView> b, std::size_t) {
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
            if (!reportProgress(progress, done, total * passes, "histogram range"))
                return Status(ErrorCode::Cancelled, "cancelled");
            return Status::ok();
        }));
    }
    TensorStats rangeStats;
    rangeStats.finite = range.finite;
    rangeStats.min = range.min;
    rangeStats.max = range.max;
    auto layout = makeBinLayout(options, rangeStats);
    if (!layout) return layout.status();

    std::map<std::int64_t, Histogram> rows;
    std::vector<Histogram> hists;
    XT_RETURN_IF_ERROR(
        forBatches(views, [&](std::span<const xdl::TensorView> b, std::size_t offset) {
            hists.assign(b.size(), Histogram(*layout));
            XT_RETURN_IF_ERROR(backend.histogram(b, *layout, hists));
            for (std::size_t i = 0; i < b.size(); ++i) {
                auto it = rows.try_emplace(gsteps[offset + i], *layout).first;
                it->second.merge(hists[i]);
                done += b[i].bytes().size();
            }
            if (!reportProgress(progress, done, total * passes, "histogram"))
                return Status(ErrorCode::Cancelled, "cancelled");
            return Status::ok();
        }));

    HistogramMatrix m;
    m.layout = *layout;
    m.total = Histogram(*layout);
    for (auto& [g, h] : rows) {
        m.steps.push_back(g);
        m.total.merge(h);
        m.rows.push_back(std::move(h));
    }
    return m;
}

} // namespace xt::analysis
