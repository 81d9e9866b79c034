#include "core/analysis/step_histogram.h"

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
                                       const ProgressCallback& progress) {
    std::vector<xdl::TensorView> views;
    std::vector<std::int64_t> gsteps;
    rank.forEachTensor(key, diag, [&](std::size_t record, const xdl::TensorView& t) {
        const std::int64_t g = rank.entry(record).gstep;
        if (steps.contains(g) && !t.empty()) {
            views.push_back(t);
            gsteps.push_back(g);
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
    const bool autoRange = !options.lo;
    const std::uint64_t passes = autoRange ? 2 : 1;

    StatsAccumulator range;
    if (autoRange) {
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
    XT_ASSIGN_OR_RETURN(const BinLayout layout, makeBinLayout(options, rangeStats));

    std::map<std::int64_t, Histogram> rows;
    std::vector<Histogram> hists;
    XT_RETURN_IF_ERROR(
        forBatches(views, [&](std::span<const xdl::TensorView> b, std::size_t offset) {
            hists.assign(b.size(), Histogram(layout));
            XT_RETURN_IF_ERROR(backend.histogram(b, layout, hists));
            for (std::size_t i = 0; i < b.size(); ++i) {
                auto it = rows.try_emplace(gsteps[offset + i], layout).first;
                it->second.merge(hists[i]);
                done += b[i].bytes().size();
            }
            if (!reportProgress(progress, done, total * passes, "histogram"))
                return Status(ErrorCode::Cancelled, "cancelled");
            return Status::ok();
        }));

    HistogramMatrix m;
    m.layout = layout;
    m.total = Histogram(layout);
    for (auto& [g, h] : rows) {
        m.steps.push_back(g);
        m.total.merge(h);
        m.rows.push_back(std::move(h));
    }
    return m;
}

} // namespace xt::analysis
