#include "core/xdl/key_summary.h"

#include "core/base/diagnostic_codes.h"

#include <algorithm>
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

// Counts the records of `run` from fromRecord[rank] on into `out` (keys missing are appended).
Status accumulate(std::vector<KeySummary>& out, const RunReader& run,
                  const std::map<int, std::size_t>& fromRecord, Diagnostics& diag,
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
    std::uint64_t total = 0, done = 0;
    for (const auto& r : run.ranks())
        total += r.recordCount() - firstOf(r);

    RecordView view;
    std::vector<ColumnFacts> facts;
    const PartReader* slotsOf = nullptr;
    std::vector<std::size_t> slots; // of the columns of part slotsOf
    std::vector<KeySummary> partColumns;
    for (const auto& rank : run.ranks()) {
        ReleaseBehind decoded(rank);
        for (std::size_t i = firstOf(rank); i < rank.recordCount(); ++i, ++done) {
            if ((done & 0xffff) == 0 && !reportProgress(progress, done, total, "reading columns"))
                return Status(ErrorCode::Cancelled, "key summary cancelled");
            const PartReader& part = *rank.parts()[rank.partOf(i)];
            const std::size_t partRecords = part.index().records().size();
            if (partKeys && i == rank.partStart(rank.partOf(i)) && partKeys(part, partColumns)) {
                const auto& keys = part.keys();
                for (std::size_t c = 0; c < partColumns.size() && c < keys.size(); ++c)
                    merge(out[slot.at(keys[c])], partColumns[c]);
                i += partRecords - 1; // the part's records are counted
                done += partRecords - 1;
                continue;
            }
            const RecordEntry& e = rank.entry(i);
            auto recordNo = static_cast<std::int64_t>(&e - part.index().records().data());
            if (!factsSource || !factsSource(part, std::size_t(recordNo), facts)) {
                Status st = part.ensure(e.offset, e.length);
                if (st) st = decodeRecord(part.message(e), view);
                if (!st) { // IoError: the bytes of a remote part could not be fetched
                    diag.add(st.code() == ErrorCode::IoError ? codes::kUnavailableRecord
                                                             : codes::kMalformedRecord,
                             part.part().path, e.offset - 4, recordNo, st.message());
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
            const auto& keys = part.keys();
            if (slotsOf != &part) { // a lookup per part, not per column
                slotsOf = &part;
                slots.clear();
                for (const auto& k : keys)
                    slots.push_back(slot.at(k));
            }
            for (std::size_t c = 0; c < facts.size() && c < keys.size(); ++c) {
                KeySummary& s = out[slots[c]];
                const ColumnFacts& col = facts[c];
                if (col.problem != ColumnProblem::None) {
                    ++s.damagedRecords;
                    diag.add(problemCode(col.problem), part.part().path, e.offset - 4, recordNo,
                             "key '" + keys[c] + "': " + columnProblemName(col.problem) +
                                 " (dtype " + std::to_string(col.wireDtype) + ", shape " +
                                 col.shape.toString() + ", " + std::to_string(col.dataBytes) +
                                 " bytes)");
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
    XT_RETURN_IF_ERROR(accumulate(out, run, {}, diag, progress, factsSource, parts));
    return out;
}

Status extendKeySummaries(std::vector<KeySummary>& keys, const RunReader& run,
                          const std::map<int, std::size_t>& fromRecord, Diagnostics& diag) {
    return accumulate(keys, run, fromRecord, diag, {}, {}, {});
}

} // namespace xt::xdl
