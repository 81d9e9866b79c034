#include "widgets/logic/layer_cache.h"

#include <algorithm>
#include <cmath>

namespace xt::view {

using timeline::InstantScope;
using timeline::kNoIndex;
using timeline::TraceStore;

namespace {
constexpr std::size_t kSlicesPerPass = std::size_t(1) << 16;
}

Result<LayerCache> buildLayerCache(const TraceStore& s, const ProgressCallback& progress) {
    LayerCache c;
    const auto inst = s.instants();
    const auto flows = s.flows();
    const auto start = s.sliceStart();
    // Units: instants, flows, counter points, slices.
    std::uint64_t total = inst.size() + flows.size() + 2 * s.sliceCount(), done = 0;
    for (const auto& series : s.counters())
        total += series.values.size();
    const Status cancelled(ErrorCode::Cancelled, "indexing cancelled");
    auto step = [&](std::uint64_t n) {
        return reportProgress(progress, done += n, total, "indexing");
    };

    c.instantsByThread.resize(s.threads().size());
    c.instantsByProcess.resize(s.processes().size());
    for (std::uint32_t i = 0; i < inst.size(); ++i) {
        if (inst[i].scope == InstantScope::Global)
            c.globalInstants.push_back(i);
        else if (inst[i].scope == InstantScope::Process || inst[i].thread == kNoIndex)
            c.instantsByProcess[inst[i].process].push_back(i);
        else
            c.instantsByThread[inst[i].thread].push_back(i);
    }
    auto byTs = [&](std::uint32_t a, std::uint32_t b) { return inst[a].ts < inst[b].ts; };
    for (auto& v : c.instantsByThread)
        std::sort(v.begin(), v.end(), byTs);
    for (auto& v : c.instantsByProcess)
        std::sort(v.begin(), v.end(), byTs);
    std::sort(c.globalInstants.begin(), c.globalInstants.end(), byTs);
    if (!step(inst.size())) return cancelled;

    for (std::uint32_t f = 0; f < flows.size(); ++f)
        if (flows[f].fromSlice != kNoIndex && flows[f].toSlice != kNoIndex) {
            c.flowsByFrom.push_back(f);
            c.flowsByTo.push_back(f);
        }
    std::sort(c.flowsByFrom.begin(), c.flowsByFrom.end(), [&](std::uint32_t a, std::uint32_t b) {
        return start[flows[a].fromSlice] < start[flows[b].fromSlice];
    });
    std::sort(c.flowsByTo.begin(), c.flowsByTo.end(), [&](std::uint32_t a, std::uint32_t b) {
        return start[flows[a].toSlice] < start[flows[b].toSlice];
    });
    if (!step(flows.size())) return cancelled;

    for (const auto& series : s.counters()) {
        double lo = 0, hi = 0;
        for (double v : series.values)
            if (std::isfinite(v)) {
                lo = std::min(lo, v);
                hi = std::max(hi, v);
            }
        c.counterMin.push_back(lo);
        c.counterMax.push_back(hi);
        if (!step(series.values.size())) return cancelled;
    }

    c.overview.assign(LayerCache::kOverviewBuckets, 0);
    const bool timed = s.beginTime() != timeline::kNoTime && s.endTime() > s.beginTime();
    const double scale =
        timed ? double(LayerCache::kOverviewBuckets) / double(s.endTime() - s.beginTime() + 1) : 0;
    for (std::size_t b = 0; b < start.size(); b += kSlicesPerPass) {
        const std::size_t e = std::min(start.size(), b + kSlicesPerPass);
        if (timed)
            for (std::size_t i = b; i < e; ++i)
                ++c.overview[std::min<std::size_t>(
                    LayerCache::kOverviewBuckets - 1,
                    std::size_t(double(start[i] - s.beginTime()) * scale))];
        if (!step(e - b)) return cancelled;
    }

    auto extend = [&c](std::int64_t a, std::int64_t b) {
        c.dataBegin = c.dataBegin == timeline::kNoTime ? a : std::min(c.dataBegin, a);
        c.dataEnd = c.dataEnd == timeline::kNoTime ? b : std::max(c.dataEnd, b);
    };
    const auto dur = s.sliceDuration();
    for (std::size_t b = 0; b < start.size(); b += kSlicesPerPass) {
        const std::size_t e = std::min(start.size(), b + kSlicesPerPass);
        for (std::size_t i = b; i < e; ++i)
            extend(start[i], start[i] + dur[i]);
        if (!step(e - b)) return cancelled;
    }
    for (const auto& series : s.counters())
        if (!series.ts.empty()) extend(series.ts.front(), series.ts.back());
    for (const auto& i : s.instants())
        if (i.scope != timeline::InstantScope::Global) extend(i.ts, i.ts);
    if (c.dataBegin == timeline::kNoTime && s.beginTime() != timeline::kNoTime)
        extend(s.beginTime(), s.endTime());
    return c;
}

} // namespace xt::view
