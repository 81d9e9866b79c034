#include "core/analysis/non_finite.h"

#include <map>

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
