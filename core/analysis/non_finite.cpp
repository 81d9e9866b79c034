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
        std::size_t base = 0; // the rank's number of the part's first record
        for (const auto& part : rank.parts()) {
            const auto& records = part->index().records();
            const summary::PartSummary* s = summaries.find(*part);
            std::vector<NonFiniteFirst*> ofColumn;
            for (const auto& k : part->keys()) {
                const auto it = slot.find(k);
                ofColumn.push_back(it == slot.end() ? nullptr : &found[it->second]);
            }
            std::size_t released = 0;
            for (std::size_t r = 0; s && r < records.size(); ++r) {
                s->releaseBehind(r, released);
                if (s->isDamaged(r)) continue;
                const auto columns = s->columnsOf(r);
                for (std::size_t c = 0; c < columns.size() && c < ofColumn.size(); ++c) {
                    NonFiniteFirst* f = ofColumn[c];
                    if (!f || (f->nan && f->inf)) continue;
                    const summary::ColumnSummary col = columns[c];
                    if (col.state != summary::ColumnState::Data) continue;
                    const xdl::RecordEntry& e = records[r];
                    if (!f->nan && col.stats.nan)
                        f->nan = FirstOccurrence{base + r, e.gstep, e.lstep, col.stats.nan};
                    if (!f->inf && col.stats.inf)
                        f->inf = FirstOccurrence{base + r, e.gstep, e.lstep, col.stats.inf};
                }
            }
            if (s) s->releaseBehind(records.size(), released);
            base += records.size();
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
