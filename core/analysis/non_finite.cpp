#include "core/analysis/non_finite.h"

#include "core/summary/run_summary.h"

#include <map>
#include <unordered_map>

namespace xt::analysis {

std::vector<NonFiniteFirst> findFirstNonFinite(const std::vector<KeySeries>& series) {
    std::vector<NonFiniteFirst> out;
    for (const auto& s : series) {
        NonFiniteFirst f{s.rank, s.key, std::nullopt, std::nullopt};
        for (const auto& r : s.records) {
            if (!f.nan && r.stats.nan)
                f.nan = FirstOccurrence{r.record, r.gstep, r.lstep, r.stats.nan};
            if (!f.inf && r.stats.inf)
                f.inf = FirstOccurrence{r.record, r.gstep, r.lstep, r.stats.inf};
            if (f.nan && f.inf) break;
        }
        if (f.nan || f.inf) out.push_back(std::move(f));
    }
    return out;
}

std::vector<NonFiniteFirst> findFirstNonFinite(const xdl::RunReader& run,
                                               const summary::RunSummaries& summaries) {
    std::vector<NonFiniteFirst> out;
    for (const auto& rank : run.ranks()) {
        std::vector<NonFiniteFirst> found;
        std::unordered_map<std::string, std::size_t> slot;
        for (const auto& key : rank.keys()) {
            slot.emplace(key, found.size());
            found.push_back({rank.rank(), key, std::nullopt, std::nullopt});
        }
        for (std::size_t p = 0; p < rank.parts().size(); ++p) {
            const xdl::PartReader& part = *rank.parts()[p];
            const summary::PartSummary* s = summaries.find(part);
            if (!s) continue;
            const auto& records = part.index().records();
            const auto first = [&](std::uint64_t record, std::uint64_t elements) {
                const xdl::RecordEntry& e = records[record];
                return FirstOccurrence{rank.partStart(p) + record, e.gstep, e.lstep, elements};
            };
            // The summary's totals: counted when it was read or built.
            for (std::size_t c = 0; c < s->totals.size() && c < part.keys().size(); ++c) {
                NonFiniteFirst& f = found[slot.at(part.keys()[c])];
                const summary::ColumnTotals& t = s->totals[c];
                if (!f.nan && t.firstNan != summary::kNoRecord)
                    f.nan = first(t.firstNan, t.nanElements);
                if (!f.inf && t.firstInf != summary::kNoRecord)
                    f.inf = first(t.firstInf, t.infElements);
            }
        }
        for (auto& f : found)
            if (f.nan || f.inf) out.push_back(std::move(f));
    }
    return out;
}

std::vector<NonFiniteByKey> firstNonFiniteByKey(const std::vector<NonFiniteFirst>& perRank) {
    std::vector<NonFiniteByKey> out;
    std::map<std::string, std::size_t> index;
    auto better = [](const std::optional<FirstOccurrence>& cand, int candRank,
                     const std::optional<FirstOccurrence>& cur, int curRank) {
        if (!cand) return false;
        if (!cur) return true;
        return cand->gstep < cur->gstep || (cand->gstep == cur->gstep && candRank < curRank);
    };
    for (const auto& f : perRank) {
        auto [it, fresh] = index.try_emplace(f.key, out.size());
        if (fresh) out.push_back(NonFiniteByKey{f.key, std::nullopt, std::nullopt, -1, -1});
        NonFiniteByKey& k = out[it->second];
        if (better(f.nan, f.rank, k.nan, k.nanRank)) {
            k.nan = f.nan;
            k.nanRank = f.rank;
        }
        if (better(f.inf, f.rank, k.inf, k.infRank)) {
            k.inf = f.inf;
            k.infRank = f.rank;
        }
    }
    return out;
}

} // namespace xt::analysis
