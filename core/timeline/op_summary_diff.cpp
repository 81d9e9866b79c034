#include "core/timeline/op_summary_diff.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <unordered_map>

namespace xt::timeline {

const char* opPresenceName(OpPresence p) {
    switch (p) {
    case OpPresence::Both:
        return "both";
    case OpPresence::OnlyBaseline:
        return "only_a";
    case OpPresence::OnlyCandidate:
        return "only_b";
    }
    return "?";
}

std::optional<double> OpDiffRow::relativeChange() const {
    if (totalA == 0) return std::nullopt;
    return static_cast<double>(totalB - totalA) / static_cast<double>(totalA);
}

namespace {

std::vector<OpStat> summarize(const TraceStore& store, const TimeWindow& w,
                              const std::vector<std::uint32_t>& tracks, bool byCategory) {
    OpSummaryOptions o;
    o.byCategory = byCategory;
    o.t0 = w.t0;
    o.t1 = w.t1;
    o.tracks = tracks;
    return opSummary(store, o);
}

double sortValue(const OpDiffRow& r, OpDiffSortKey k) {
    switch (k) {
    case OpDiffSortKey::TotalDelta:
        return static_cast<double>(r.totalDelta());
    case OpDiffSortKey::SelfDelta:
        return static_cast<double>(r.selfDelta());
    case OpDiffSortKey::AvgDelta:
        return r.avgDelta();
    case OpDiffSortKey::CountDelta:
        return static_cast<double>(r.countDelta());
    case OpDiffSortKey::Relative:
        return r.relativeChange().value_or(std::numeric_limits<double>::infinity());
    case OpDiffSortKey::TotalA:
        return static_cast<double>(r.totalA);
    case OpDiffSortKey::TotalB:
        return static_cast<double>(r.totalB);
    case OpDiffSortKey::Name:
        return 0;
    }
    return 0;
}

} // namespace

OpDiff diffOpStats(const TraceStore& baseline, const std::vector<OpStat>& a,
                   const TraceStore& candidate, const std::vector<OpStat>& b,
                   const OpDiffOptions& o) {
    OpDiff d;
    std::unordered_map<std::string, std::size_t> rowOf;
    auto excluded = [&](std::string_view name) {
        return std::find(o.excludeNames.begin(), o.excludeNames.end(), name) !=
               o.excludeNames.end();
    };
    auto rowFor = [&](const TraceStore& st, const OpStat& s) -> OpDiffRow& {
        std::string name(st.str(s.name));
        std::string cat(o.byCategory ? st.str(s.cat) : std::string_view{});
        // Key: name, NUL, category.
        std::string key = name;
        key += '\0';
        key += cat;
        auto [it, inserted] = rowOf.try_emplace(std::move(key), d.rows.size());
        if (inserted) {
            OpDiffRow r;
            r.name = std::move(name);
            r.cat = std::move(cat);
            d.rows.push_back(std::move(r));
        }
        return d.rows[it->second];
    };
    for (const OpStat& s : a) {
        if (excluded(baseline.str(s.name))) continue;
        OpDiffRow& r = rowFor(baseline, s);
        r.countA += s.count;
        r.totalA += s.totalNs;
        r.selfA += s.selfNs;
    }
    for (const OpStat& s : b) {
        if (excluded(candidate.str(s.name))) continue;
        OpDiffRow& r = rowFor(candidate, s);
        r.countB += s.count;
        r.totalB += s.totalNs;
        r.selfB += s.selfNs;
    }
    for (OpDiffRow& r : d.rows) {
        r.avgA = r.countA ? static_cast<double>(r.totalA) / static_cast<double>(r.countA) : 0.0;
        r.avgB = r.countB ? static_cast<double>(r.totalB) / static_cast<double>(r.countB) : 0.0;
        r.presence = r.countA == 0   ? OpPresence::OnlyCandidate
                     : r.countB == 0 ? OpPresence::OnlyBaseline
                                     : OpPresence::Both;
        d.totalA += r.totalA;
        d.totalB += r.totalB;
        d.countA += r.countA;
        d.countB += r.countB;
        d.onlyA += r.presence == OpPresence::OnlyBaseline;
        d.onlyB += r.presence == OpPresence::OnlyCandidate;
    }
    // Ties (and the Name key) by name then category, ascending, so the order is deterministic.
    std::sort(d.rows.begin(), d.rows.end(), [&](const OpDiffRow& x, const OpDiffRow& y) {
        if (o.sortBy != OpDiffSortKey::Name) {
            const double vx = sortValue(x, o.sortBy), vy = sortValue(y, o.sortBy);
            if (vx != vy) return o.descending ? vx > vy : vx < vy;
            if (x.name != y.name) return x.name < y.name;
            return x.cat < y.cat;
        }
        if (x.name != y.name) return o.descending ? x.name > y.name : x.name < y.name;
        return o.descending ? x.cat > y.cat : x.cat < y.cat;
    });
    if (o.limit && d.rows.size() > o.limit) d.rows.resize(o.limit);
    return d;
}

OpDiff diffOpSummaries(const TraceStore& baseline, const TraceStore& candidate,
                       const OpDiffOptions& o) {
    return diffOpStats(baseline, summarize(baseline, o.windowA, o.tracksA, o.byCategory), candidate,
                       summarize(candidate, o.windowB, o.tracksB, o.byCategory), o);
}

std::optional<TimeWindow> findStepWindow(const TraceStore& store, std::string_view stepName) {
    const StringId id = store.strings().find(stepName);
    if (id == StringTable::kNotFound) return std::nullopt;
    const auto names = store.sliceName();
    const auto start = store.sliceStart();
    std::optional<TimeWindow> best;
    for (std::uint32_t s = 0; s < store.sliceCount(); ++s) {
        if (names[s] != id) continue;
        if (!best || start[s] < best->t0) best = TimeWindow{start[s], store.sliceEnd(s)};
    }
    return best;
}

} // namespace xt::timeline
