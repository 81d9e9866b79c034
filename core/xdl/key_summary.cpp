#include "core/xdl/key_summary.h"

#include "core/base/diagnostic_codes.h"

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
} // namespace

Result<std::vector<KeySummary>> summarizeKeys(const RunReader& run, Diagnostics& diag,
                                              const ProgressCallback& progress,
                                              const ColumnFactsSource& factsSource) {
    std::vector<KeySummary> out;
    std::unordered_map<std::string, std::size_t> slot;
    for (const auto& k : run.keys()) {
        slot.emplace(k, out.size());
        out.emplace_back().key = k;
    }
    std::uint64_t total = 0, done = 0;
    for (const auto& r : run.ranks())
        total += r.recordCount();

    RecordView view;
    std::vector<ColumnFacts> facts;
    for (const auto& rank : run.ranks()) {
        for (std::size_t i = 0; i < rank.recordCount(); ++i, ++done) {
            if ((done & 0xffff) == 0 && !reportProgress(progress, done, total, "reading columns"))
                return Status(ErrorCode::Cancelled, "key summary cancelled");
            const PartReader& part = *rank.parts()[rank.partOf(i)];
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
            }
            const auto& keys = part.keys();
            for (std::size_t c = 0; c < facts.size() && c < keys.size(); ++c) {
                KeySummary& s = out[slot.at(keys[c])];
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
    return out;
}

} // namespace xt::xdl
