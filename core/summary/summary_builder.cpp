#include "core/summary/summary_builder.h"

#include "core/analysis/tensor_kernels.h"
#include "core/base/diagnostic_codes.h"
#include "core/base/fd_io.h"

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace xt::summary {

namespace {

// Pages behind the work are dropped every this many bytes.
constexpr std::uint64_t kReleaseEvery = 32ull << 20;
constexpr std::uint64_t kProgressEvery = 16ull << 20;
// Index diagnostics kept in a summary (the list of a badly damaged part stays small).
constexpr std::size_t kMaxStoredDiagnostics = 256;
// A first build with more columns than this writes them to a file as it goes (112 B each in
// memory: a part of 250 MB of 200 B records has ~600 MB of them), in stretches of kSpillEvery.
constexpr std::size_t kSpillAbove = std::size_t(1) << 20;
constexpr std::size_t kSpillEvery = std::size_t(1) << 16; // 7 MB at a time

Sketch sketchOf(const xdl::TensorView& t, const analysis::TensorStats& st) {
    Sketch sk{};
    if (st.min == st.max) {
        sk[0] = std::uint32_t(st.finite);
        return sk;
    }
    const analysis::BinLayout layout{kSketchBins, st.min, st.max};
    const analysis::BinParams bp = analysis::BinParams::from(layout);
    std::uint32_t slots[kSketchBins + analysis::kExtraSlots] = {};
    analysis::addSlotCounts(t, bp, slots);
    std::copy_n(slots, kSketchBins, sk.begin());
    return sk;
}

} // namespace

std::uint64_t headPrint(std::span<const std::uint8_t> bytes) {
    return fingerprint(bytes.first(std::min<std::size_t>(bytes.size(), PartIdentity::kPrintBytes)));
}

std::uint64_t tailPrint(std::span<const std::uint8_t> bytes) {
    return fingerprint(bytes.last(std::min<std::size_t>(bytes.size(), PartIdentity::kPrintBytes)));
}

SummaryBuilder::SummaryBuilder(PartSummary& summary) : m_s(summary) {
    for (std::size_t i = 0; i < m_s.shapes.size(); ++i) {
        const auto& sh = m_s.shapes[i];
        m_shapes.emplace(
            std::string(reinterpret_cast<const char*>(sh.dims.data()), std::size_t(sh.rank) * 8),
            std::uint32_t(i));
    }
}

std::uint32_t SummaryBuilder::shapeIndex(const xdl::Shape& shape) {
    auto [it, added] = m_shapes.try_emplace(
        std::string(reinterpret_cast<const char*>(shape.dims.data()), std::size_t(shape.rank) * 8),
        std::uint32_t(m_s.shapes.size()));
    if (added) m_s.shapes.push_back(shape);
    return it->second;
}

void SummaryBuilder::add(std::size_t record, xdl::Bytes message, Diagnostics& diag,
                         const std::string& file) {
    const xdl::RecordEntry& e = m_s.records[record];
    auto& start = m_s.columnStart;
    start.resize(record + 1); // a record of a cancelled extension may be redone
    const Status decoded = xdl::decodeRecord(message, m_view);
    if (!decoded || m_view.columns.size() != e.columnCount) {
        m_s.damagedRecords.push_back(record);
        start.push_back(start.back());
        diag.add(codes::kDamagedRecord, file, e.offset - 4, std::int64_t(record),
                 decoded ? "columns do not decode" : "columns do not decode: " + decoded.message());
        return;
    }
    for (std::size_t c = 0; c < m_view.columns.size(); ++c) {
        const xdl::ColumnView& col = m_view.columns[c];
        ColumnSummary cs;
        // Empty data has no position of its own: the record's is used.
        cs.dataOffset =
            e.offset + (col.data.empty() ? 0 : std::uint64_t(col.data.data() - message.data()));
        cs.dataLength = col.data.size();
        cs.wireDtype = std::int32_t(col.wireDtype);
        cs.shape = shapeIndex(col.shape);
        const xdl::ColumnProblem problem = col.check();
        if (problem != xdl::ColumnProblem::None) {
            cs.state = ColumnState::Damaged;
            cs.problem = std::uint8_t(problem);
            diag.add(codes::kDamagedColumn, file, e.offset - 4, std::int64_t(record),
                     (c < m_s.keys.size() ? "key '" + m_s.keys[c] + "'"
                                          : "column " + std::to_string(c)) +
                         ": " + xdl::columnProblemName(problem));
        } else if (col.isEmpty()) {
            cs.state = ColumnState::Empty;
        } else {
            const xdl::TensorView t(col.dtype(), col.shape, col.data);
            cs.stats = analysis::tensorStats(t);
            if (cs.stats.count >= kSketchMinElements && cs.stats.hasFinite()) {
                cs.sketch = std::uint32_t(m_s.sketches.size());
                m_s.sketches.push_back(sketchOf(t, cs.stats));
            }
        }
        m_s.columns.built().push_back(cs);
    }
    start.push_back(m_s.columns.size());
    m_s.countColumns(record);
}

namespace {

// Adds the column statistics of records from `first` on to `s`, releasing the pages read, and
// spilling its columns to a file in spillDir on a large first build. Cancelled from the
// callback (the caller rolls back).
Status summarizeRecords(PartSummary& s, std::size_t first, const MappedFile& file,
                        Diagnostics& diag, const ProgressCallback& progress,
                        const std::string& spillDir) {
    const xdl::Bytes bytes = file.bytes();
    // The columns to come are known from the index: reserved at once, a first build does not
    // hold a vector and its doubled copy (records of small tensors have ~100 B of summary per
    // column); a growing part's extensions still grow the vectors geometrically.
    std::size_t newColumns = 0;
    std::size_t counted = first; // records in place (a spilled index): given back behind
    for (std::size_t r = first; r < s.records.size(); ++r) {
        newColumns += s.records[r].columnCount;
        s.records.releaseBehind(r + 1, counted); // the last record's call releases the rest
    }
    const UniqueFd spill(first == 0 && newColumns > kSpillAbove && !spillDir.empty()
                             ? openUnlinkedFile(spillDir, ".columns")
                             : -1);
    auto reserve = [](auto& v, std::size_t n) {
        if (n > v.capacity()) v.reserve(std::max(n, v.size() + v.size() / 2));
    };
    reserve(s.columns.built(),
            spill.get() >= 0 ? kSpillEvery + 256 : s.columns.size() + newColumns);
    reserve(s.columnStart, s.records.size() + 1);
    SummaryBuilder builder(s);
    std::uint64_t releasedTo =
        first ? s.records[first - 1].offset + s.records[first - 1].length : 0;
    std::uint64_t nextReport = releasedTo + kProgressEvery;
    std::size_t spilledTo = first;         // records whose columns are in the file
    std::size_t recordsReleasedTo = first; // records in place (a spilled index) read for now
    for (std::size_t r = first; r < s.records.size(); ++r) {
        const xdl::RecordEntry& e = s.records[r];
        builder.add(r, bytes.subspan(e.offset, e.length), diag, file.path());
        if (spill.get() >= 0 && s.columns.built().size() >= kSpillEvery) {
            XT_RETURN_IF_ERROR(s.spillColumns(spill.get(), spilledTo));
            spilledTo = r + 1;
        }
        const std::uint64_t end = e.offset + e.length;
        if (end >= releasedTo + kReleaseEvery) {
            file.release(releasedTo, end - releasedTo);
            releasedTo = end;
        }
        s.records.releaseBehind(r + 1, recordsReleasedTo);
        if (end >= nextReport) {
            nextReport = end + kProgressEvery;
            if (!reportProgress(progress, end, bytes.size(), "summarizing"))
                return Status(ErrorCode::Cancelled, "summarizing " + file.path() + " cancelled");
        }
    }
    if (s.scannedTo > releasedTo) file.release(releasedTo, s.scannedTo - releasedTo);
    if (spill.get() >= 0) {
        XT_RETURN_IF_ERROR(s.spillColumns(spill.get(), spilledTo));
        XT_RETURN_IF_ERROR(s.mapSpilledColumns(spill.get()));
    }
    reportProgress(progress, bytes.size(), bytes.size(), "summarizing");
    return Status::ok();
}

} // namespace

Status extendSummary(PartSummary& s, const MappedFile& file, bool final, Diagnostics& diag,
                     const ProgressCallback& progress, const std::string& spillDir,
                     const xdl::IndexState* readerIndex) {
    const xdl::Bytes bytes = file.bytes();
    if (s.scannedTo > bytes.size() || s.columnStart.size() != s.records.size() + 1)
        return Status(ErrorCode::InvalidArgument, "summary of " + file.path() +
                                                      " does not fit the file (it covers " +
                                                      std::to_string(s.scannedTo) + " of " +
                                                      std::to_string(bytes.size()) + " bytes)");
    s.materialize(); // to be added to
    // What to go back to when cancelled.
    const std::size_t oldRecords = s.records.size(), oldColumns = s.columns.size();
    const std::size_t oldShapes = s.shapes.size(), oldSketches = s.sketches.size();
    const std::size_t oldDamaged = s.damagedRecords.size();
    const PartSummary oldHead = [&] {
        PartSummary h;
        h.identity = s.identity;
        h.hasHeader = s.hasHeader, h.startChecked = s.startChecked, h.tailReported = s.tailReported;
        h.headerLength = s.headerLength, h.scannedTo = s.scannedTo, h.keys = s.keys;
        return h;
    }();
    auto rollback = [&] {
        s.records.own(); // borrowed (a reader's records, a spilled index): copied
        s.records.built().resize(oldRecords);
        if (oldColumns)
            s.columns.built().resize(oldColumns);
        else
            s.columns = {}; // spilled ones included
        s.columnStart.resize(oldRecords + 1);
        s.shapes.resize(oldShapes);
        s.sketches.resize(oldSketches);
        s.damagedRecords.resize(oldDamaged);
        s.recountTotals();
        s.identity = oldHead.identity;
        s.hasHeader = oldHead.hasHeader, s.startChecked = oldHead.startChecked;
        s.tailReported = oldHead.tailReported, s.headerLength = oldHead.headerLength;
        s.scannedTo = oldHead.scannedTo, s.keys = oldHead.keys;
    };

    // 1. The record index, continued from the summary's state (or the given index, for a new
    // one) over the new bytes.
    xdl::IndexState seed;
    if (readerIndex && oldRecords == 0 && s.scannedTo == 0 &&
        readerIndex->scannedTo <= bytes.size()) {
        seed = *readerIndex;
    } else {
        xdl::RecordList records = std::move(s.records.built());
        s.records.built().clear();
        seed = s.indexState(); // the scan state, without the records taken out
        seed.records = std::move(records);
    }
    xdl::IndexOptions indexOptions;
    indexOptions.spillDir = spillDir; // a new part's records, as its columns
    xdl::RecordIndex index = xdl::RecordIndex::restore(file.path(), std::move(seed), indexOptions);
    std::uint64_t releasedTo = s.scannedTo;
    const ProgressCallback indexing = [&](const ProgressReport& r) {
        if (r.done >= releasedTo + kReleaseEvery) { // the scan never looks back
            file.release(releasedTo, r.done - releasedTo);
            releasedTo = r.done;
        }
        return reportProgress(progress, r.done, r.total, "indexing");
    };
    Diagnostics indexDiag;
    const Status indexed = index.extend(bytes, indexDiag, indexing);
    // finish() reports a cut-off tail to the caller only: a reader opened from the summary
    // finishes its index itself and reports it again, as a fresh scan would.
    const std::uint64_t scanned = index.scannedTo();
    const bool scanReported = index.tailReported();
    if (indexed && final) index.finish(bytes, diag);
    xdl::IndexState state = index.takeState();
    if (state.scannedTo == scanned) state.tailReported = scanReported;
    if (!state.mapped.empty())
        s.records = RecordTable::borrowed(state.mapped, state.keep); // nothing added to them
    else
        s.records.built() = std::move(state.records);
    if (!indexed) {
        rollback();
        return indexed;
    }
    s.keys = std::move(state.keys);
    s.hasHeader = state.hasHeader;
    s.startChecked = state.startChecked;
    s.tailReported = state.tailReported;
    s.headerLength = state.headerLength;
    s.scannedTo = state.scannedTo;
    file.release(releasedTo, bytes.size() - std::min<std::uint64_t>(releasedTo, bytes.size()));

    // 2. Statistics and sketches of the new records' columns.
    if (Status st = summarizeRecords(s, oldRecords, file, diag, progress, spillDir); !st) {
        rollback();
        return st;
    }

    for (Diagnostic d : indexDiag.items()) {
        if (s.indexDiagnostics.size() >= kMaxStoredDiagnostics) break;
        d.file.clear();
        s.indexDiagnostics.push_back(std::move(d));
    }
    diag.merge(indexDiag);
    s.identity.size = bytes.size();
    s.identity.headPrint = headPrint(bytes);
    s.identity.tailPrint = tailPrint(bytes);
    return Status::ok();
}

} // namespace xt::summary
