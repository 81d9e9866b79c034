#include "core/analysis/key_stats.h"

#include "core/analysis/parallel_loop.h"
#include "core/base/diagnostic_codes.h"
#include "core/summary/run_summary.h"

#include <algorithm>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>

namespace xt::analysis {

namespace {

constexpr std::size_t kMaxBatchTensors = 1 << 16;

struct Pending {
    std::size_t series;
    RecordStats head;
};

// For each part of a rank, which series each column feeds (-1: key filtered out).
std::vector<std::vector<int>> columnSeries(const xdl::RankReader& rank,
                                           const std::unordered_map<std::string, int>& seriesOf) {
    std::vector<std::vector<int>> out;
    for (const auto& part : rank.parts()) {
        std::vector<int> cols;
        for (const auto& k : part->keys()) {
            auto it = seriesOf.find(k);
            cols.push_back(it == seriesOf.end() ? -1 : it->second);
        }
        out.push_back(std::move(cols));
    }
    return out;
}

bool wanted(const KeyStatsOptions& o, std::string_view key) {
    return !o.keyFilter || o.keyFilter(key);
}

// The records [from, to) of `rank` that options ask for.
std::pair<std::size_t, std::size_t> recordRange(const xdl::RankReader& rank,
                                                const KeyStatsOptions& o) {
    const auto from = o.fromRecord.find(rank.rank());
    const auto to = o.toRecord.find(rank.rank());
    const std::size_t end =
        to == o.toRecord.end() ? rank.recordCount() : std::min(to->second, rank.recordCount());
    return {std::min(from == o.fromRecord.end() ? 0 : from->second, end), end};
}

// The bytes of the records computeKeyStats reads (for its progress).
std::uint64_t bytesToRead(const xdl::RunReader& run, const KeyStatsOptions& options) {
    std::uint64_t total = 0;
    for (const auto& rank : run.ranks()) {
        if (options.rank && rank.rank() != *options.rank) continue;
        const auto [from, to] = recordRange(rank, options);
        if (from == 0 && to == rank.recordCount()) {
            for (const auto& part : rank.parts())
                total += part->part().size;
        } else {
            for (std::size_t rec = from; rec < to; ++rec)
                total += rank.entry(rec).length + 4;
        }
    }
    return total;
}

// Appends the statistics a valid summary holds for record `rec` (the part's record `inPart`)
// to the series its columns feed (`series` indexed by cols[c]).
void addFromSummary(const summary::PartSummary& s, std::size_t inPart, const xdl::PartReader& part,
                    std::size_t rec, const std::vector<int>& cols, KeySeries* series,
                    Diagnostics& diag) {
    const xdl::RecordEntry& e = part.index().records()[inPart];
    const auto columns = s.columnsOf(inPart);
    for (std::size_t c = 0; c < columns.size() && c < cols.size(); ++c) {
        if (cols[c] < 0) continue;
        const summary::ColumnSummary& col = columns[c];
        if (col.state == summary::ColumnState::Damaged) {
            diag.add(codes::kDamagedColumn, part.part().path, e.offset - 4, std::int64_t(rec),
                     "key '" + part.keys()[c] +
                         "': " + columnProblemName(xdl::ColumnProblem(col.problem)));
            continue;
        }
        if (col.state == summary::ColumnState::Empty) continue;
        series[cols[c]].records.push_back(
            RecordStats{rec, e.gstep, e.lstep, e.timestamp, col.stats});
    }
}

// The series `options` asks of `rank`, empty, and for each of its parts which series each
// column feeds.
struct RankSeries {
    std::vector<KeySeries> series;
    std::vector<std::vector<int>> columns;
};
RankSeries startSeries(const xdl::RankReader& rank, const KeyStatsOptions& options) {
    RankSeries out;
    std::unordered_map<std::string, int> seriesOf;
    for (const auto& key : rank.keys()) {
        if (!wanted(options, key)) continue;
        seriesOf.emplace(key, int(out.series.size()));
        out.series.push_back(KeySeries{rank.rank(), key, {}});
    }
    if (!out.series.empty()) out.columns = columnSeries(rank, seriesOf);
    return out;
}

// Whether every record of `rank` that options ask for has its statistics in a summary.
bool summarisedWhole(const xdl::RankReader& rank, const KeyStatsOptions& options) {
    if (!options.summaries || (options.rank && rank.rank() != *options.rank)) return false;
    for (const auto& part : rank.parts()) {
        const summary::PartSummary* s = options.summaries->find(*part);
        if (!s || !s->damagedRecords.empty()) return false;
    }
    return true;
}

// The series of such a rank, from its summaries alone (no tensor byte, no backend).
std::vector<KeySeries> seriesFromSummaries(const xdl::RankReader& rank,
                                           const KeyStatsOptions& options, Diagnostics& diag) {
    RankSeries out = startSeries(rank, options);
    if (out.series.empty()) return {};
    std::vector<const summary::PartSummary*> summaryOf;
    for (const auto& part : rank.parts())
        summaryOf.push_back(options.summaries->find(*part));
    std::vector<std::size_t> released(summaryOf.size());
    const auto [from, to] = recordRange(rank, options);
    for (std::size_t rec = from; rec < to; ++rec) {
        const std::size_t partIdx = rank.partOf(rec);
        const auto& part = *rank.parts()[partIdx];
        const std::size_t inPart = rec - rank.partStart(partIdx);
        summaryOf[partIdx]->releaseBehind(inPart, released[partIdx]);
        addFromSummary(*summaryOf[partIdx], inPart, part, rec, out.columns[partIdx],
                       out.series.data(), diag);
    }
    for (std::size_t p = 0; p < summaryOf.size(); ++p)
        summaryOf[p]->releaseBehind(summaryOf[p]->recordCount(), released[p]);
    return std::move(out.series);
}

} // namespace

std::uint64_t estimateWorkBytes(const xdl::RunReader& run, const KeyStatsOptions& options) {
    std::uint64_t bytes = 0;
    for (const auto& rank : run.ranks()) {
        if (options.rank && rank.rank() != *options.rank) continue;
        for (const auto& part : rank.parts())
            if (!options.summaries || !options.summaries->find(*part)) bytes += part->part().size;
    }
    return bytes;
}

Result<std::vector<KeySeries>> computeKeyStats(const xdl::RunReader& run, Backend& backend,
                                               const KeyStatsOptions& options, Diagnostics& diag,
                                               const ProgressCallback& progress) {
    std::vector<KeySeries> all;
    const std::uint64_t totalBytes = bytesToRead(run, options);
    std::uint64_t doneBytes = 0;
    std::vector<xdl::TensorView> batch;
    std::vector<Pending> pending;
    std::vector<TensorStats> results;
    std::uint64_t batchBytes = 0;
    // The bytes of the records in the batch: done with once it is flushed.
    struct Span {
        const xdl::PartReader* part;
        std::uint64_t begin, end;
    };
    std::vector<Span> read;

    // Ranks whose statistics all come from summaries are read at once, several at a time.
    const auto& ranks = run.ranks();
    std::vector<std::size_t> whole;
    for (std::size_t r = 0; r < ranks.size(); ++r)
        if (summarisedWhole(ranks[r], options)) whole.push_back(r);
    std::vector<std::optional<std::vector<KeySeries>>> ready(ranks.size());
    std::vector<Diagnostics> readyDiag(ranks.size());
    ParallelLoop(whole.size() > 1 ? 0 : 1).run(whole.size(), [&](std::size_t i, unsigned) {
        ready[whole[i]] = seriesFromSummaries(ranks[whole[i]], options, readyDiag[whole[i]]);
    });

    for (std::size_t r = 0; r < ranks.size(); ++r) {
        const auto& rank = ranks[r];
        if (options.rank && rank.rank() != *options.rank) continue;
        if (ready[r]) {
            for (auto& s : *ready[r])
                all.push_back(std::move(s));
            diag.merge(readyDiag[r]);
            continue;
        }
        const std::size_t first = all.size();
        RankSeries started = startSeries(rank, options);
        if (started.series.empty()) continue;
        for (auto& s : started.series)
            all.push_back(std::move(s));
        const auto& colSeries = started.columns;
        std::vector<const summary::PartSummary*> summaryOf;
        for (const auto& part : rank.parts())
            summaryOf.push_back(options.summaries ? options.summaries->find(*part) : nullptr);

        auto flush = [&]() -> Status {
            if (batch.empty()) return Status::ok();
            results.resize(batch.size());
            XT_RETURN_IF_ERROR(backend.computeStats(batch, results));
            for (std::size_t i = 0; i < batch.size(); ++i) {
                RecordStats r = pending[i].head;
                r.stats = results[i];
                all[first + pending[i].series].records.push_back(r);
            }
            batch.clear();
            pending.clear();
            batchBytes = 0;
            for (const Span& s : read)
                s.part->file().release(s.begin, s.end - s.begin);
            read.clear();
            if (!reportProgress(progress, doneBytes, totalBytes, "statistics"))
                return Status(ErrorCode::Cancelled, "cancelled");
            return Status::ok();
        };

        std::vector<std::size_t> released(rank.parts().size()); // summary pages given back
        xdl::RecordView view;
        const auto [from, to] = recordRange(rank, options);
        for (std::size_t rec = from; rec < to; ++rec) {
            const std::size_t partIdx = rank.partOf(rec);
            const auto& part = *rank.parts()[partIdx];
            const xdl::RecordEntry& e = rank.entry(rec);
            const auto& cols = colSeries[partIdx];
            doneBytes += e.length + 4;
            const std::size_t inPart = std::size_t(&e - part.index().records().data());
            if (const summary::PartSummary* s = summaryOf[partIdx]; s && !s->isDamaged(inPart)) {
                XT_RETURN_IF_ERROR(flush()); // earlier records first: series stay in order
                s->releaseBehind(inPart, released[partIdx]);
                addFromSummary(*s, inPart, part, rec, cols, &all[first], diag);
                continue;
            }
            if (read.empty() || read.back().part != &part)
                read.push_back({&part, e.offset - 4, e.offset + e.length});
            read.back().end = e.offset + e.length;
            Status st = rank.decode(rec, view);
            if (!st) {
                diag.add(codes::kDamagedRecord, part.part().path, e.offset - 4, std::int64_t(rec),
                         st.message());
                continue;
            }
            for (std::size_t c = 0; c < view.columns.size() && c < cols.size(); ++c) {
                if (cols[c] < 0) continue;
                const xdl::ColumnView& col = view.columns[c];
                const xdl::ColumnProblem problem = col.check();
                if (problem != xdl::ColumnProblem::None) {
                    diag.add(codes::kDamagedColumn, part.part().path, e.offset - 4,
                             std::int64_t(rec),
                             "key '" + part.keys()[c] + "': " + columnProblemName(problem));
                    continue;
                }
                if (col.isEmpty()) continue;
                batch.emplace_back(col.dtype(), col.shape, col.data);
                pending.push_back(
                    {std::size_t(cols[c]), RecordStats{rec, e.gstep, e.lstep, e.timestamp, {}}});
                batchBytes += col.data.size();
                if (batchBytes >= options.batchBytes || batch.size() >= kMaxBatchTensors)
                    XT_RETURN_IF_ERROR(flush());
            }
        }
        XT_RETURN_IF_ERROR(flush());
        for (std::size_t p = 0; p < summaryOf.size(); ++p)
            if (summaryOf[p]) summaryOf[p]->releaseBehind(summaryOf[p]->recordCount(), released[p]);
    }
    return all;
}

} // namespace xt::analysis
