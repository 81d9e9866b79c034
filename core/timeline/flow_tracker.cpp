#include "core/timeline/flow_tracker.h"

#include "core/base/diagnostic_codes.h"

#include <algorithm>
#include <unordered_map>

namespace xt::timeline {

void FlowTracker::bind(const SliceLookup& slices, std::span<const std::int64_t> sliceStart,
                       std::span<const StringId> sliceName, HugePageVector<Flow>& out,
                       std::uint64_t& record, const ImportWarn& warn) {
    bindV1(slices, out, record, warn);
    bindV2(sliceStart, sliceName, out, record, warn);
}

// A t or f outside a chain waits for the next s of its id and binds to it: an arrow back in
// time (TF dataflow into an op that starts before its producer ends), or is dropped as
// catapult does.
void FlowTracker::bindV1(const SliceLookup& slices, HugePageVector<Flow>& out,
                         std::uint64_t& record, const ImportWarn& warn) {
    auto phRank = [](char c) { return c == 's' ? 0 : (c == 't' ? 1 : 2); };
    std::sort(m_points.begin(), m_points.end(), [&](const FlowPoint& a, const FlowPoint& b) {
        if (a.cat != b.cat) return a.cat < b.cat;
        if (a.name != b.name) return a.name < b.name;
        if (a.id != b.id) return a.id < b.id;
        if (a.ts != b.ts) return a.ts < b.ts;
        if (phRank(a.ph) != phRank(b.ph)) return phRank(a.ph) < phRank(b.ph);
        return a.order < b.order;
    });
    std::uint32_t prev = kNoIndex;
    bool inChain = false;
    std::vector<std::pair<std::uint32_t, std::uint32_t>> waiting; // (slice, order) before an s
    auto withoutStart = [&](std::uint32_t order) {
        record = order;
        warn(codes::kFlowWithoutStart, Diagnostic::kNoOffset, record,
             "flow step or end without a start: skipped");
    };
    auto dropWaiting = [&] {
        for (const auto& w : waiting)
            withoutStart(w.second);
        waiting.clear();
    };
    for (std::size_t i = 0; i < m_points.size(); ++i) {
        const FlowPoint& p = m_points[i];
        if (i == 0 || p.cat != m_points[i - 1].cat || p.name != m_points[i - 1].name ||
            p.id != m_points[i - 1].id) {
            dropWaiting();
            inChain = false; // a new (cat, name, id)
        }
        std::uint32_t slice =
            p.enclosing ? slices.enclosing(p.thread, p.ts) : slices.next(p.thread, p.ts);
        if (slice == kNoIndex && !p.enclosing) slice = slices.enclosing(p.thread, p.ts);
        record = p.order;
        if (slice == kNoIndex) {
            warn(codes::kUnboundFlow, Diagnostic::kNoOffset, record,
                 "flow event with no slice to attach to: skipped");
            if (p.ph == 'f') inChain = false;
            continue;
        }
        if (p.ph == 's') {
            for (const auto& [to, order] : waiting) {
                out.push_back(Flow{slice, to, p.name, p.cat});
                record = order;
                warn(codes::kBackwardsFlow, Diagnostic::kNoOffset, record,
                     "flow step or end before its start: bound to the start that follows it");
            }
            waiting.clear();
            prev = slice;
            inChain = true;
            continue;
        }
        if (!inChain) {
            if (m_chromeCompatible)
                withoutStart(p.order);
            else
                waiting.emplace_back(slice, p.order);
            continue;
        }
        out.push_back(Flow{prev, slice, p.name, p.cat});
        prev = slice;
        if (p.ph == 'f') inChain = false;
    }
    dropWaiting();
    m_points = HugePageVector<FlowPoint>();
}

void FlowTracker::bindV2(std::span<const std::int64_t> sliceStart,
                         std::span<const StringId> sliceName, HugePageVector<Flow>& out,
                         std::uint64_t record, const ImportWarn& warn) {
    std::stable_sort(m_bindable.begin(), m_bindable.end(),
                     [&](const Bindable& a, const Bindable& b) {
                         return sliceStart[a.slice] < sliceStart[b.slice];
                     });
    std::unordered_map<StringId, std::uint32_t> lastOut;
    for (const Bindable& s : m_bindable) {
        if (s.flags & kFlowIn) {
            auto it = lastOut.find(s.bindId);
            if (it != lastOut.end())
                out.push_back(Flow{it->second, s.slice, sliceName[it->second], 0});
            else
                warn(codes::kFlowWithoutStart, Diagnostic::kNoOffset, record,
                     "flow_in with no earlier flow_out");
        }
        if (s.flags & kFlowOut) lastOut[s.bindId] = s.slice;
    }
    m_bindable = HugePageVector<Bindable>();
}

} // namespace xt::timeline
