#include "core/timeline/op_summary.h"

#include <algorithm>
#include <cstdint>
#include <unordered_map>

namespace xt::timeline {

namespace {
std::int64_t addSaturated(std::int64_t a, std::int64_t b) {
    std::int64_t r;
    if (!__builtin_add_overflow(a, b, &r)) return r;
    return b > 0 ? INT64_MAX : INT64_MIN;
}
} // namespace

std::vector<OpStat> opSummary(const TraceStore& store, const OpSummaryOptions& o) {
    const auto start = store.sliceStart();
    const auto dur = store.sliceDuration();
    const auto name = store.sliceName();
    const auto cat = store.sliceCategory();
    const auto parent = store.sliceParent();
    std::vector<std::uint32_t> tracks = o.tracks;
    if (tracks.empty())
        for (std::uint32_t t = 0; t < store.tracks().size(); ++t)
            tracks.push_back(t);

    std::unordered_map<std::uint64_t, std::size_t> rowOf;
    std::vector<OpStat> rows;
    std::vector<std::int64_t> childNs;
    for (std::uint32_t t : tracks) {
        if (t >= store.tracks().size()) continue;
        const Track& tr = store.tracks()[t];
        // Time spent in direct children, clipped to the parent (overlapping X may stick out).
        childNs.assign(tr.sliceEnd - tr.sliceBegin, 0);
        for (std::uint32_t s = tr.sliceBegin; s < tr.sliceEnd; ++s) {
            const std::uint32_t p = parent[s];
            if (p == kNoIndex) continue;
            const std::int64_t b = std::max(start[s], start[p]);
            const std::int64_t e = std::min(start[s] + dur[s], start[p] + dur[p]);
            if (e > b) childNs[p - tr.sliceBegin] = addSaturated(childNs[p - tr.sliceBegin], e - b);
        }
        for (std::uint32_t s = tr.sliceBegin; s < tr.sliceEnd; ++s) {
            if (o.t0 != kNoTime && start[s] < o.t0) continue;
            if (o.t1 != kNoTime && start[s] >= o.t1) continue;
            const StringId c = o.byCategory ? cat[s] : 0;
            const std::uint64_t key = (std::uint64_t(name[s]) << 32) | c;
            auto [it, inserted] = rowOf.try_emplace(key, rows.size());
            if (inserted) {
                OpStat st;
                st.name = name[s];
                st.cat = c;
                st.minNs = dur[s];
                st.maxNs = dur[s];
                rows.push_back(st);
            }
            OpStat& r = rows[it->second];
            ++r.count;
            // Saturating: a trace's slices can add up past int64 (durations reach 2^62 ns).
            r.totalNs = addSaturated(r.totalNs, dur[s]);
            r.selfNs = addSaturated(r.selfNs,
                                    std::max<std::int64_t>(0, dur[s] - childNs[s - tr.sliceBegin]));
            r.minNs = std::min(r.minNs, dur[s]);
            r.maxNs = std::max(r.maxNs, dur[s]);
        }
    }
    auto less = [&](const OpStat& a, const OpStat& b) {
        switch (o.sortBy) {
        case OpSortKey::Total:
            return a.totalNs < b.totalNs;
        case OpSortKey::Self:
            return a.selfNs < b.selfNs;
        case OpSortKey::Count:
            return a.count < b.count;
        case OpSortKey::Avg:
            return a.avgNs() < b.avgNs();
        case OpSortKey::Min:
            return a.minNs < b.minNs;
        case OpSortKey::Max:
            return a.maxNs < b.maxNs;
        case OpSortKey::Name:
            return store.str(a.name) < store.str(b.name);
        }
        return false;
    };
    // Ties broken by name then category so the order is deterministic.
    std::sort(rows.begin(), rows.end(), [&](const OpStat& a, const OpStat& b) {
        if (less(a, b)) return !o.descending;
        if (less(b, a)) return o.descending;
        const auto na = store.str(a.name), nb = store.str(b.name);
        if (na != nb) return na < nb;
        return store.str(a.cat) < store.str(b.cat);
    });
    if (o.limit && rows.size() > o.limit) rows.resize(o.limit);
    return rows;
}

} // namespace xt::timeline
