#include "core/analysis/key_stats.h"

#include "core/analysis/parallel_loop.h"
#include "core/base/diagnostic_codes.h"
#include "core/summary/run_summary.h"

#include <algorithm>
#include <atomic>
#include <mutex>
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
            total += rank.recordBytes(from, to);
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

// What a takeKeyStats tap keeps of one summary: its key's statistics per record (numbered in the
// part), and the records whose column of it is damaged.
class TakenStats final : public summary::ColumnSink {
public:
    struct Taken {
        std::string key;
        std::size_t column = 0; // of the key in the part
        RecordSeries series;
        std::vector<std::pair<std::size_t, std::uint8_t>> damaged; // record, xdl::ColumnProblem
    };

    explicit TakenStats(std::string key) { m_taken.key = std::move(key); }
    int select(std::span<const std::string> keys) override {
        for (std::size_t c = 0; c < keys.size(); ++c)
            if (m_taken.key.empty() || keys[c] == m_taken.key) {
                m_taken.key = keys[c];
                m_taken.column = c;
                return int(c);
            }
        return -1;
    }
    void add(std::size_t record, const xdl::RecordEntry& e,
             const summary::ColumnSummary& c) override {
        if (c.state == summary::ColumnState::Data)
            m_taken.series.push_back(RecordStats{record, e.gstep, e.lstep, e.timestamp, c.stats});
        else if (c.state == summary::ColumnState::Damaged)
            m_taken.damaged.emplace_back(record, c.problem);
    }
    void finish(std::size_t records) override { m_records = records; }

    // What was taken of a summary of `records` records, once; nullopt after.
    std::optional<Taken> take(std::size_t records) {
        std::lock_guard lock(m_lock);
        if (std::exchange(m_spent, true) || m_records != records) {
            m_taken = {};
            return std::nullopt;
        }
        return std::exchange(m_taken, {});
    }
    std::size_t waiting() {
        std::lock_guard lock(m_lock);
        return m_spent ? 0 : m_taken.series.size() + m_taken.damaged.size();
    }

private:
    std::mutex m_lock;
    Taken m_taken;
    std::size_t m_records = ~std::size_t(0); // set when the parse checked every column
    bool m_spent = false;
};

TakenStats* takenOf(const summary::PartSummary* s) {
    return s ? dynamic_cast<TakenStats*>(s->taken.get()) : nullptr;
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

// The summary options.summaries holds of each part of `rank` (null where none).
std::vector<const summary::PartSummary*> summariesOf(const xdl::RankReader& rank,
                                                     const KeyStatsOptions& options) {
    std::vector<const summary::PartSummary*> out;
    for (const auto& part : rank.parts())
        out.push_back(options.summaries ? options.summaries->find(*part) : nullptr);
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

// Drops what takeKeyStats taps took of the summaries of `rank`'s parts.
void dropTaken(const std::vector<const summary::PartSummary*>& summaryOf) {
    for (const summary::PartSummary* s : summaryOf)
        if (TakenStats* t = takenOf(s)) (void)t->take(0);
}

// Fills the series of `out` that a takeKeyStats tap took whole, from every part of `rank` (all
// its records asked for), and leaves its column out of `out.columns`: no pass reads it again.
// What was taken is used here or dropped.
void useTaken(const xdl::RankReader& rank,
              const std::vector<const summary::PartSummary*>& summaryOf, bool wholeRank,
              RankSeries& out, Diagnostics& diag) {
    std::vector<TakenStats::Taken> taken;
    for (const summary::PartSummary* s : summaryOf) {
        TakenStats* t = takenOf(s);
        auto got = t ? t->take(s->recordCount()) : std::nullopt;
        if (got) taken.push_back(std::move(*got));
    }
    if (!wholeRank || taken.size() != summaryOf.size()) return;
    int series = -1;
    for (std::size_t p = 0; p < taken.size(); ++p) {
        const auto& cols = out.columns[p];
        const int s = taken[p].column < cols.size() ? cols[taken[p].column] : -1;
        if (s < 0 || (p > 0 && s != series)) return;
        series = s;
    }
    KeySeries& to = out.series[std::size_t(series)];
    for (std::size_t p = 0; p < taken.size(); ++p) {
        const std::size_t start = rank.partStart(p);
        const auto& part = *rank.parts()[p];
        for (const auto& [inPart, problem] : taken[p].damaged)
            diag.add(codes::kDamagedColumn, part.part().path,
                     part.index().records()[inPart].offset - 4, std::int64_t(start + inPart),
                     "key '" + taken[p].key +
                         "': " + columnProblemName(xdl::ColumnProblem(problem)));
        if (to.records.empty() && start == 0) {
            to.records = std::move(taken[p].series);
        } else {
            for (RecordStats r : taken[p].series) {
                r.record += start;
                to.records.push_back(r);
            }
            taken[p].series.clear(); // not held beside its copy while the next parts are added
        }
        out.columns[p][taken[p].column] = -1;
    }
}

// The series of such a rank, from its summaries alone (no tensor byte, no backend).
std::vector<KeySeries> seriesFromSummaries(const xdl::RankReader& rank,
                                           const KeyStatsOptions& options, Diagnostics& diag) {
    RankSeries out = startSeries(rank, options);
    const auto summaryOf = summariesOf(rank, options);
    if (out.series.empty()) {
        dropTaken(summaryOf);
        return {};
    }
    const auto [from, to] = recordRange(rank, options);
    useTaken(rank, summaryOf, from == 0 && to == rank.recordCount(), out, diag);
    const auto feeds = [](const std::vector<int>& cols) {
        return std::any_of(cols.begin(), cols.end(), [](int s) { return s >= 0; });
    };
    if (!std::any_of(out.columns.begin(), out.columns.end(), feeds)) return std::move(out.series);
    std::vector<std::size_t> released(summaryOf.size());
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

// The series `options` asks of `rank` where summaries do not give them all: records decoded and
// their columns handed to the backend in batches, summaries taken where they cover a part.
// `advance(bytes)` counts the bytes of records done (false: cancelled).
Status readRank(const xdl::RankReader& rank, Backend& backend, const KeyStatsOptions& options,
                std::vector<KeySeries>& out, Diagnostics& diag,
                const std::function<bool(std::uint64_t)>& advance) {
    const auto summaryOf = summariesOf(rank, options);
    dropTaken(summaryOf);
    RankSeries started = startSeries(rank, options);
    if (started.series.empty()) return Status::ok();
    out = std::move(started.series);
    const auto& colSeries = started.columns;
    std::vector<xdl::TensorView> batch;
    std::vector<Pending> pending;
    std::vector<TensorStats> results;
    std::uint64_t batchBytes = 0, doneBytes = 0;
    // The bytes of the records in the batch: done with once it is flushed.
    struct Span {
        const xdl::PartReader* part;
        std::uint64_t begin, end;
    };
    std::vector<Span> read;

    auto flush = [&]() -> Status {
        if (batch.empty()) return Status::ok();
        results.resize(batch.size());
        XT_RETURN_IF_ERROR(backend.computeStats(batch, results));
        for (std::size_t i = 0; i < batch.size(); ++i) {
            RecordStats r = pending[i].head;
            r.stats = results[i];
            out[pending[i].series].records.push_back(r);
        }
        batch.clear();
        pending.clear();
        batchBytes = 0;
        for (const Span& s : read)
            s.part->file().release(s.begin, s.end - s.begin);
        read.clear();
        if (!advance(std::exchange(doneBytes, 0))) return Status(ErrorCode::Cancelled, "cancelled");
        return Status::ok();
    };

    std::vector<std::size_t> released(rank.parts().size()); // summary pages given back
    // The records passed in each part, and how far their index's pages are given back (where
    // it is in a mapping: a spilled index, a summary's records).
    std::vector<std::size_t> passed(rank.parts().size()), indexReleased(rank.parts().size());
    xdl::RecordView view;
    const auto [from, to] = recordRange(rank, options);
    for (std::size_t rec = from; rec < to; ++rec) {
        const std::size_t partIdx = rank.partOf(rec);
        const auto& part = *rank.parts()[partIdx];
        const xdl::RecordEntry& e = rank.entry(rec);
        const auto& cols = colSeries[partIdx];
        doneBytes += e.length + 4;
        const std::size_t inPart = std::size_t(&e - part.index().records().data());
        part.index().releaseBehind(inPart, indexReleased[partIdx]);
        passed[partIdx] = inPart + 1;
        if (const summary::PartSummary* s = summaryOf[partIdx]; s && !s->isDamaged(inPart)) {
            XT_RETURN_IF_ERROR(flush()); // earlier records first: series stay in order
            s->releaseBehind(inPart, released[partIdx]);
            addFromSummary(*s, inPart, part, rec, cols, out.data(), diag);
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
                diag.add(codes::kDamagedColumn, part.part().path, e.offset - 4, std::int64_t(rec),
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
    for (std::size_t p = 0; p < summaryOf.size(); ++p) {
        if (summaryOf[p]) summaryOf[p]->releaseBehind(summaryOf[p]->recordCount(), released[p]);
        rank.parts()[p]->index().releaseBehind(passed[p], indexReleased[p]);
    }
    return Status::ok();
}

} // namespace

std::function<std::shared_ptr<summary::ColumnSink>()> takeKeyStats(std::string key) {
    return [key = std::move(key)] { return std::make_shared<TakenStats>(key); };
}

std::size_t takenRecords(const summary::PartSummary& s) {
    TakenStats* t = takenOf(&s);
    return t ? t->waiting() : 0;
}

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
    const auto& ranks = run.ranks();
    std::vector<std::vector<KeySeries>> series(ranks.size());
    std::vector<Diagnostics> rankDiag(ranks.size());
    std::vector<Status> failed(ranks.size());
    // Ranks whose statistics all come from summaries, then the others, several at a time. The
    // CPU backend may be called from several threads (its loop is a oneTBB arena); another
    // backend is called from one.
    std::vector<std::size_t> whole, decoded;
    for (std::size_t r = 0; r < ranks.size(); ++r) {
        if (options.rank && ranks[r].rank() != *options.rank) continue;
        (summarisedWhole(ranks[r], options) ? whole : decoded).push_back(r);
    }
    ParallelLoop(whole.size() > 1 ? 0 : 1).run(whole.size(), [&](std::size_t i, unsigned) {
        series[whole[i]] = seriesFromSummaries(ranks[whole[i]], options, rankDiag[whole[i]]);
    });
    const std::uint64_t totalBytes = bytesToRead(run, options);
    std::uint64_t doneBytes = 0;
    std::mutex progressLock;
    std::atomic<bool> cancelled{false};
    const auto advance = [&](std::uint64_t bytes) {
        std::lock_guard lock(progressLock);
        doneBytes += bytes;
        if (!cancelled && !reportProgress(progress, doneBytes, totalBytes, "statistics"))
            cancelled = true;
        return !cancelled;
    };
    const bool together = decoded.size() > 1 && backend.kind() == BackendKind::Cpu;
    ParallelLoop loop(together ? 0 : 1);
    // Ranks read together share the batch's bytes: no more of the files is mapped in at once
    // than when one rank is read at a time.
    KeyStatsOptions each = options;
    each.batchBytes = std::max<std::uint64_t>(1, options.batchBytes / loop.slots());
    loop.run(decoded.size(), [&](std::size_t i, unsigned) {
        const std::size_t r = decoded[i];
        if (!cancelled)
            failed[r] = readRank(ranks[r], backend, each, series[r], rankDiag[r], advance);
    });
    std::vector<KeySeries> all;
    for (std::size_t r = 0; r < ranks.size(); ++r) {
        if (!failed[r]) return failed[r];
        for (auto& s : series[r])
            all.push_back(std::move(s));
        diag.merge(rankDiag[r]);
    }
    if (cancelled) return Status(ErrorCode::Cancelled, "cancelled");
    return all;
}

} // namespace xt::analysis
