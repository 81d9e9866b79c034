#include "core/xdl/key_summary.h"

#include "core/base/diagnostic_codes.h"
#include "core/base/parallel_for.h"

#include <algorithm>
#include <atomic>
#include <mutex>
#include <unordered_map>

namespace xt::xdl {

namespace {
const DiagnosticCode& problemCode(ColumnProblem p) {
    switch (p) {
    case ColumnProblem::UnknownDtype:
        return codes::kUnknownDtype;
    case ColumnProblem::BadShape:
        return codes::kBadShape;
    case ColumnProblem::RankTooLarge:
        return codes::kRankTooLarge;
    case ColumnProblem::SizeMismatch:
        return codes::kSizeMismatch;
    case ColumnProblem::None:
        break;
    }
    return codes::kBadColumn;
}

// Adds a part's summary of a key to the run's (the part's records come after those counted).
void merge(KeySummary& s, const KeySummary& part) {
    s.emptyRecords += part.emptyRecords;
    s.damagedRecords += part.damagedRecords;
    if (part.records == 0) return;
    if (s.records == 0) {
        s.dtype = part.dtype;
        s.shape = part.shape;
        s.mixedDtypes = part.mixedDtypes;
        s.varyingShape = part.varyingShape;
    } else {
        s.mixedDtypes = s.mixedDtypes || part.mixedDtypes || s.dtype != part.dtype;
        s.varyingShape = s.varyingShape || part.varyingShape || !(s.shape == part.shape);
    }
    s.records += part.records;
}

// Adds the columns of one record (`facts`) to a part's summaries of its columns.
void countColumns(std::vector<KeySummary>& columns, const std::vector<ColumnFacts>& facts,
                  const PartReader& part, const RecordEntry& e, std::int64_t recordNo,
                  Diagnostics& diag) {
    const auto& keys = part.keys();
    for (std::size_t c = 0; c < facts.size() && c < keys.size(); ++c) {
        KeySummary& s = columns[c];
        const ColumnFacts& col = facts[c];
        if (col.problem != ColumnProblem::None) {
            ++s.damagedRecords;
            diag.add(problemCode(col.problem), part.part().path, e.offset - 4, recordNo,
                     "key '" + keys[c] + "': " + columnProblemName(col.problem) + " (dtype " +
                         std::to_string(col.wireDtype) + ", shape " + col.shape.toString() + ", " +
                         std::to_string(col.dataBytes) + " bytes)");
            continue;
        }
        if (col.empty) {
            ++s.emptyRecords;
            continue;
        }
        const auto dtype = static_cast<Dtype>(col.wireDtype);
        if (s.records++ == 0) {
            s.dtype = dtype;
            s.shape = col.shape;
        } else {
            s.mixedDtypes = s.mixedDtypes || *s.dtype != dtype;
            s.varyingShape = s.varyingShape || !(s.shape == col.shape);
        }
    }
}

// Records [first, last) of one part of a rank, counted per column of the part; several
// stretches are counted at once, then merged in order.
struct Stretch {
    const RankReader* rank = nullptr;
    const PartReader* part = nullptr;
    std::size_t first = 0, last = 0; // rank record numbers
    bool whole = false;              // counted by PartKeysSource (columns already set)
    std::vector<KeySummary> columns;
    Diagnostics diag;
};

// Counts the records of `run` from fromRecord[rank] to toRecord[rank] into `out` (keys missing
// are appended; ranks not listed: from the first record, to the last).
// Parts are counted in stretches of 256 Ki records on every core (a first open of 5 M records
// of ~200 B decodes each one), then merged in record order: the same summaries, diagnostics in
// the same order, as one pass front to back.
Status accumulate(std::vector<KeySummary>& out, const RunReader& run,
                  const std::map<int, std::size_t>& fromRecord,
                  const std::map<int, std::size_t>& toRecord, Diagnostics& diag,
                  const ProgressCallback& progress, const ColumnFactsSource& factsSource,
                  const PartKeysSource& partKeys) {
    std::unordered_map<std::string, std::size_t> slot;
    for (std::size_t i = 0; i < out.size(); ++i)
        slot.emplace(out[i].key, i);
    for (const auto& k : run.keys())
        if (slot.emplace(k, out.size()).second) out.emplace_back().key = k;
    auto firstOf = [&](const RankReader& rank) {
        auto it = fromRecord.find(rank.rank());
        return it == fromRecord.end() ? std::size_t(0) : std::min(it->second, rank.recordCount());
    };
    auto endOf = [&](const RankReader& rank) {
        auto it = toRecord.find(rank.rank());
        return it == toRecord.end() ? rank.recordCount() : std::min(it->second, rank.recordCount());
    };
    constexpr std::size_t kStretch = std::size_t(1) << 18;
    std::vector<Stretch> stretches;
    std::uint64_t total = 0;
    for (const auto& rank : run.ranks())
        for (std::size_t p = 0; p < rank.parts().size(); ++p) {
            const PartReader& part = *rank.parts()[p];
            const std::size_t begin = std::max(rank.partStart(p), firstOf(rank));
            const std::size_t end = std::min(rank.partStart(p + 1), endOf(rank));
            if (begin >= end) continue;
            const auto add = [&](std::size_t first, std::size_t last) -> Stretch& {
                Stretch& st = stretches.emplace_back();
                st.rank = &rank;
                st.part = &part;
                st.first = first;
                st.last = last;
                return st;
            };
            if (std::vector<KeySummary> columns; partKeys && begin == rank.partStart(p) &&
                                                 end == rank.partStart(p + 1) &&
                                                 partKeys(part, columns)) {
                Stretch& st = add(begin, end);
                st.whole = true;
                st.columns = std::move(columns);
                continue;
            }
            total += end - begin;
            for (std::size_t at = begin; at < end; at += kStretch)
                add(at, std::min(end, at + kStretch));
        }

    std::atomic<std::uint64_t> done{0};
    std::mutex progressLock;
    // A ColumnFactsSource is called in record order, on one thread (it may keep its place).
    const bool finished = parallelFor(stretches.size(), factsSource ? 1 : 0, [&](std::size_t s) {
        Stretch& st = stretches[s];
        if (st.whole) return true;
        const RankReader& rank = *st.rank;
        const PartReader& part = *st.part;
        st.columns.resize(part.keys().size());
        RecordView view;
        std::vector<ColumnFacts> facts;
        ReleaseBehind decoded(rank);
        for (std::size_t i = st.first; i < st.last; ++i) {
            const RecordEntry& e = rank.entry(i);
            auto recordNo = static_cast<std::int64_t>(&e - part.index().records().data());
            if (!factsSource || !factsSource(part, std::size_t(recordNo), facts)) {
                Status status = part.ensure(e.offset, e.length);
                if (status) status = decodeRecord(part.message(e), view);
                if (!status) { // IoError: the bytes of a remote part could not be fetched
                    st.diag.add(status.code() == ErrorCode::IoError ? codes::kUnavailableRecord
                                                                    : codes::kMalformedRecord,
                                part.part().path, e.offset - 4, recordNo, status.message());
                    continue;
                }
                facts.resize(view.columns.size());
                for (std::size_t c = 0; c < view.columns.size(); ++c) {
                    const ColumnView& col = view.columns[c];
                    facts[c] = {col.check(), col.isEmpty(), col.wireDtype, col.shape,
                                col.data.size()};
                }
                // Decoding touched the record's tags and the kernel mapped the cached pages
                // around them: they leave this process (they stay in the page cache).
                decoded.passed(i);
            }
            countColumns(st.columns, facts, part, e, recordNo, st.diag);
        }
        const std::uint64_t now = done += st.last - st.first;
        std::lock_guard lock(progressLock);
        return reportProgress(progress, now, total, "reading columns");
    });
    if (!finished) return Status(ErrorCode::Cancelled, "key summary cancelled");
    for (const Stretch& st : stretches) {
        const auto& keys = st.part->keys();
        for (std::size_t c = 0; c < st.columns.size() && c < keys.size(); ++c)
            merge(out[slot.at(keys[c])], st.columns[c]);
        diag.merge(st.diag);
    }
    reportProgress(progress, total, total, "reading columns");
    return Status::ok();
}

} // namespace

Result<std::vector<KeySummary>> summarizeKeys(const RunReader& run, Diagnostics& diag,
                                              const ProgressCallback& progress,
                                              const ColumnFactsSource& factsSource,
                                              const PartKeysSource& parts) {
    std::vector<KeySummary> out;
    XT_RETURN_IF_ERROR(accumulate(out, run, {}, {}, diag, progress, factsSource, parts));
    return out;
}

Result<std::vector<KeySummary>> summarizeKeyPrefix(const RunReader& run,
                                                   const std::map<int, std::size_t>& toRecord,
                                                   Diagnostics& diag) {
    std::vector<KeySummary> out;
    XT_RETURN_IF_ERROR(accumulate(out, run, {}, toRecord, diag, {}, {}, {}));
    return out;
}

Status extendKeySummaries(std::vector<KeySummary>& keys, const RunReader& run,
                          const std::map<int, std::size_t>& fromRecord, Diagnostics& diag) {
    return accumulate(keys, run, fromRecord, {}, diag, {}, {}, {});
}

} // namespace xt::xdl
