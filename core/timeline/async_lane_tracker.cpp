#include "core/timeline/async_lane_tracker.h"

#include "core/base/diagnostic_codes.h"

#include <algorithm>

namespace xt::timeline {

void AsyncLaneTracker::begin(AsyncKind kind, std::uint32_t process, StringId cat, std::uint64_t id,
                             const AsyncSpan& span) {
    open(kind)[{process, cat, id}].push_back(span);
}

bool AsyncLaneTracker::end(AsyncKind kind, std::uint32_t process, StringId cat, std::uint64_t id,
                           std::int64_t ts) {
    OpenMap& o = open(kind);
    auto it = o.find({process, cat, id});
    if (it == o.end() || it->second.empty()) return false;
    AsyncSpan a = it->second.back();
    it->second.pop_back();
    a.end = std::max(ts, a.start);
    finished(process, a);
    return true;
}

void AsyncLaneTracker::finished(std::uint32_t process, const AsyncSpan& span) {
    if (process >= m_done.size()) m_done.resize(process + 1);
    m_done[process].push_back(span);
}

void AsyncLaneTracker::closeOpen(std::int64_t traceEnd, std::uint64_t record,
                                 const ImportWarn& warn) {
    for (OpenMap* o : {&m_open, &m_openLegacy}) {
        for (auto& [key, stack] : *o) {
            for (AsyncSpan& a : stack) {
                a.end = std::max(traceEnd, a.start);
                finished(std::get<0>(key), a);
                warn(codes::kUnterminatedAsync, Diagnostic::kNoOffset, record,
                     "async begin without end: closed at trace end");
            }
        }
        *o = {};
    }
}

std::size_t AsyncLaneTracker::spanCount() const {
    std::size_t n = 0;
    for (const auto& spans : m_done)
        n += spans.size();
    return n;
}

std::vector<AsyncLane> AsyncLaneTracker::takeLanes(std::uint32_t process) {
    std::vector<AsyncLane> out;
    if (process >= m_done.size()) return out;
    std::vector<AsyncSpan> list = std::move(m_done[process]);
    m_done[process] = {};
    std::stable_sort(list.begin(), list.end(), [](const AsyncSpan& a, const AsyncSpan& b) {
        if (a.name != b.name) return a.name < b.name;
        if (a.start != b.start) return a.start < b.start;
        return a.order < b.order;
    });
    std::size_t i = 0;
    while (i < list.size()) {
        std::size_t j = i;
        while (j < list.size() && list[j].name == list[i].name)
            ++j;
        const std::size_t first = out.size();
        std::vector<std::int64_t> laneEnd;
        for (std::size_t k = i; k < j; ++k) {
            std::size_t lane = 0;
            while (lane < laneEnd.size() && laneEnd[lane] > list[k].start)
                ++lane;
            if (lane == laneEnd.size()) {
                laneEnd.push_back(0);
                out.push_back(AsyncLane{list[i].name, {}});
            }
            laneEnd[lane] = list[k].end;
            out[first + lane].spans.push_back(list[k]);
        }
        i = j;
    }
    return out;
}

} // namespace xt::timeline
