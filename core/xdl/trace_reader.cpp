#include "core/xdl/trace_reader.h"

#include "core/base/diagnostic_codes.h"

#include <algorithm>

namespace xt::xdl {

namespace {
// How far an index scan runs ahead of the pages it releases.
constexpr std::uint64_t kReleaseEvery = 16ull << 20;
constexpr std::uint64_t kSparseScanRecordBytes = 64 << 10;

// The mean length of the first few messages after the first (the header), by their length
// prefixes alone: a hint for how to read the file, 0 when there are none.
std::uint64_t firstRecordsMeanBytes(Bytes bytes) {
    std::uint64_t pos = 0, sum = 0;
    int n = -1; // the first message is not counted
    while (n < 4 && bytes.size() - pos >= 4) {
        const std::uint64_t len = readLength(bytes.data() + pos);
        if (n >= 0) sum += len;
        ++n;
        if (bytes.size() - pos - 4 < len) break;
        pos += 4 + len;
    }
    return n > 0 ? sum / std::uint64_t(n) : 0;
}
} // namespace

std::string describeLocation(const PartReader& part, const RecordEntry& e) {
    return part.part().displayPath() + ":" + std::to_string(e.offset - 4);
}

// ---- PartReader ----

PartReader::PartReader(PartFile part, MappedFile file, const ReaderOptions& options)
    : m_part(std::move(part)), m_file(std::move(file)),
      m_index(m_part.displayPath(), options.index), m_options(options) {}

Result<std::unique_ptr<PartReader>> PartReader::open(PartFile part, Diagnostics& diag,
                                                     const ProgressCallback& progress,
                                                     const ReaderOptions& options) {
    return openWith(std::move(part), nullptr, diag, progress, options);
}

Result<std::unique_ptr<PartReader>> PartReader::open(PartFile part, IndexState seed,
                                                     Diagnostics& diag,
                                                     const ProgressCallback& progress,
                                                     const ReaderOptions& options) {
    return openWith(std::move(part), &seed, diag, progress, options);
}

Result<std::unique_ptr<PartReader>> PartReader::openWith(PartFile part, IndexState* seed,
                                                         Diagnostics& diag,
                                                         const ProgressCallback& progress,
                                                         const ReaderOptions& options) {
    // The scan touches a record's length prefix and the head of each of its columns. In records
    // of 64 kB and more that is a few pages of each, and reading ahead would read the whole file
    // from disk (twice as long for a cold 10 GB run of 1 MB records): those are scanned reading
    // only what is touched, everything else front to back. A seeded index reads only the tail.
    // Smaller records are read whole, by the scan and by every pass over them: their mapping is
    // placed for scans. A seed's records give their mean length before the file is mapped;
    // otherwise the first length prefixes do, and the mapping is placed again. A part whose
    // records will all be read whole (ReaderOptions::readsWhole) is placed for scans at once.
    const std::uint64_t seededMean = seed ? seed->meanRecordBytes() : 0;
    const bool seedKnows = seededMean > 0;
    const bool seededSmall = seedKnows && seededMean < kSparseScanRecordBytes;
    XT_ASSIGN_OR_RETURN(MappedFile file,
                        MappedFile::open(part.path, seededSmall || options.readsWhole
                                                        ? MapPlacement::Scans
                                                        : MapPlacement::Lookups));
    part.size = file.size();
    const bool smallRecords =
        seedKnows ? seededSmall : firstRecordsMeanBytes(file.bytes()) < kSparseScanRecordBytes;
    if (smallRecords) XT_RETURN_IF_ERROR(file.place(MapPlacement::Scans)); // no-op when there
    const bool sparse = !seed && !smallRecords;
    if (!seed) file.advise(sparse ? MappedFile::Access::Sparse : MappedFile::Access::Sequential);
    std::unique_ptr<PartReader> reader(new PartReader(std::move(part), std::move(file), options));
    if (seed && seed->scannedTo <= reader->m_part.size)
        reader->m_index =
            RecordIndex::restore(reader->m_part.displayPath(), std::move(*seed), options.index);
    const std::uint64_t from = reader->m_index.scannedTo();
    const std::uint64_t to = std::max(from, std::min(reader->m_part.size, options.scanBytes));
    reader->m_previewOnly = to < reader->m_part.size;
    XT_RETURN_IF_ERROR(reader->ensure(from, to - from));
    // The scan touches every record, and the kernel maps the cached pages around each touch:
    // pages the scan has passed leave this process (they stay in the page cache), so opening a
    // large part does not leave it resident.
    std::uint64_t releasedTo = from;
    const ProgressCallback scanProgress = [&](const ProgressReport& r) {
        if (r.done >= releasedTo + kReleaseEvery) {
            reader->m_file.release(releasedTo, r.done - releasedTo);
            releasedTo = r.done;
        }
        return reportProgress(progress, r.done, r.total, r.stage);
    };
    const std::uint64_t reportedBefore = diag.total();
    XT_RETURN_IF_ERROR(reader->m_index.extend(reader->bytes().first(to), diag, scanProgress));
    reader->m_file.release(releasedTo, to - std::min(releasedTo, to));
    if (sparse) reader->m_file.advise(MappedFile::Access::Sequential); // tensors are read whole
    if (reader->m_index.hasHeader()) reader->setKeys(reader->m_index.keys());
    if (!reader->m_previewOnly) reader->finishIfComplete(diag);
    reader->m_cleanScan = from == 0 && diag.total() == reportedBefore;
    return reader;
}

void PartReader::finishIdle(Diagnostics& diag) {
    m_idle = true;
    m_index.finish(bytes(), diag);
    finishIfComplete(diag);
}

bool PartReader::dataBehindMeta() const {
    return m_options.live && !m_idle && !reachesMeta();
}

bool PartReader::reachesMeta() const {
    if (m_part.metaState != MetaState::Finalised) return true;
    const auto& r = m_index.records();
    if (r.empty()) return m_part.meta.gstepEnd < 0 && m_part.meta.lstepEnd < 0;
    return r.back().gstep >= m_part.meta.gstepEnd && r.back().lstep >= m_part.meta.lstepEnd;
}

bool PartReader::finished() const {
    return !m_previewOnly && m_part.metaState == MetaState::Finalised && !dataBehindMeta();
}

void PartReader::finishIfComplete(Diagnostics& diag) {
    const bool finalised = finished();
    if (!m_options.live || finalised) m_index.finish(bytes(), diag);
    if (!finalised || m_metaChecked) return;
    m_metaChecked = true;
    MetaInfo fromRecords;
    if (const auto& r = m_index.records(); !r.empty())
        fromRecords = MetaInfo{r.front().lstep, r.back().lstep,      r.front().gstep,
                               r.back().gstep,  r.front().timestamp, r.back().timestamp};
    if (!(fromRecords == m_part.meta))
        diag.add(codes::kMetaMismatch, m_part.displayPath() + ".meta", Diagnostic::kNoOffset, -1,
                 "meta says gstep " + std::to_string(m_part.meta.gstepBegin) + ".." +
                     std::to_string(m_part.meta.gstepEnd) + ", lstep " +
                     std::to_string(m_part.meta.lstepBegin) + ".." +
                     std::to_string(m_part.meta.lstepEnd) + "; the records say gstep " +
                     std::to_string(fromRecords.gstepBegin) + ".." +
                     std::to_string(fromRecords.gstepEnd) + ", lstep " +
                     std::to_string(fromRecords.lstepBegin) + ".." +
                     std::to_string(fromRecords.lstepEnd) + " (or the timestamps differ)");
}

Status PartReader::ensure(std::uint64_t offset, std::uint64_t length) const {
    if (!m_part.fetcher || length == 0) return Status::ok();
    return m_part.fetcher->ensure(offset, length);
}

Result<bool> PartReader::refresh(Diagnostics& diag) {
    XT_ASSIGN_OR_RETURN(const bool grown, m_file.refresh());
    m_cleanScan = false; // what it reports goes to the caller only
    if (grown) XT_RETURN_IF_ERROR(ensure(m_index.scannedTo(), m_file.size() - m_index.scannedTo()));
    MetaState before = m_part.metaState;
    Diagnostics metaDiag; // a damaged meta is reported when its state changes, not every poll
    readMeta(m_part, metaDiag);
    if (m_part.metaState != before) diag.merge(metaDiag);
    m_part.size = m_file.size();
    std::size_t records = m_index.records().size();
    XT_RETURN_IF_ERROR(m_index.extend(bytes(), diag));
    if (m_keys.empty() && m_index.hasHeader()) setKeys(m_index.keys());
    finishIfComplete(diag);
    return grown || before != m_part.metaState || records != m_index.records().size();
}

void PartReader::setKeys(std::vector<std::string> keys) {
    m_keys = std::move(keys);
    m_columnOf.clear();
    for (std::size_t i = 0; i < m_keys.size(); ++i)
        m_columnOf.emplace(m_keys[i], static_cast<int>(i)); // first column wins on duplicates
}

int PartReader::columnOf(std::string_view key) const {
    auto it = m_columnOf.find(std::string(key));
    return it == m_columnOf.end() ? -1 : it->second;
}

// ---- RankReader ----

RankReader::RankReader(int rank, std::vector<std::shared_ptr<PartReader>> parts, Diagnostics& diag,
                       bool checkSteps)
    : m_rank(rank), m_parts(std::move(parts)) {
    rebuild(diag);
    if (checkSteps) this->checkSteps(0, diag);
}

void RankReader::addPart(std::shared_ptr<PartReader> part, Diagnostics& diag) {
    std::size_t before = recordCount();
    m_parts.push_back(std::move(part));
    rebuild(diag);
    checkSteps(before, diag);
}

void RankReader::rebuild(Diagnostics& diag) {
    // Parts without a header borrow the keys of a sibling (every part repeats the same header).
    const PartReader* donor = nullptr;
    for (const auto& p : m_parts)
        if (p->index().hasHeader()) {
            donor = p.get();
            break;
        }
    for (auto& p : m_parts) {
        if (p->index().hasHeader() || !p->keys().empty() || p->index().records().empty()) continue;
        std::uint32_t columns = p->index().records().front().columnCount;
        if (donor && donor->keys().size() == columns) {
            p->setKeys(donor->keys());
            diag.add(codes::kKeysBorrowed, p->part().displayPath(), Diagnostic::kNoOffset, -1,
                     "key names taken from " + donor->part().displayPath());
        } else {
            std::vector<std::string> names;
            for (std::uint32_t i = 0; i < columns; ++i)
                names.push_back("column" + std::to_string(i));
            p->setKeys(std::move(names));
        }
    }
    m_partStart.assign(1, 0);
    m_keys.clear();
    for (const auto& p : m_parts) {
        m_partStart.push_back(m_partStart.back() + p->index().records().size());
        for (const auto& k : p->keys())
            if (std::find(m_keys.begin(), m_keys.end(), k) == m_keys.end()) m_keys.push_back(k);
    }
}

void RankReader::checkSteps(std::size_t from, Diagnostics& diag) {
    if (from >= recordCount()) return;
    std::int64_t before = from > 0 ? entry(from - 1).gstep : 0; // the gstep of record i - 1
    for (std::size_t p = partOf(from); p < m_parts.size(); ++p) {
        const PartReader& part = *m_parts[p];
        const auto records = part.index().records();
        std::size_t r = from > m_partStart[p] ? from - m_partStart[p] : 0;
        std::size_t released = r; // entries given back behind the pass
        for (; r < records.size(); ++r) {
            const RecordEntry& e = records[r];
            const std::size_t i = m_partStart[p] + r;
            if (e.gstep < 0 || e.lstep < 0)
                diag.add(codes::kNegativeStep, part.part().displayPath(), e.offset - 4,
                         static_cast<std::int64_t>(r),
                         "gstep " + std::to_string(e.gstep) + ", lstep " + std::to_string(e.lstep));
            if (i > 0 && e.gstep < before)
                diag.add(codes::kStepsBackwards, part.part().displayPath(), e.offset - 4,
                         static_cast<std::int64_t>(r),
                         "rank " + std::to_string(m_rank) + ": gstep goes back from " +
                             std::to_string(before) + " to " + std::to_string(e.gstep) +
                             " (a restarted job?)");
            before = e.gstep;
            part.index().releaseBehind(r, released);
        }
        part.index().releaseBehind(records.size(), released);
    }
}

std::uint64_t RankReader::recordBytes(std::size_t from, std::size_t to) const {
    to = std::min(to, recordCount());
    std::uint64_t bytes = 0;
    for (std::size_t p = from < to ? partOf(from) : m_parts.size(); p < m_parts.size(); ++p) {
        if (m_partStart[p] >= to) break;
        const auto records = m_parts[p]->index().records();
        const std::size_t end = std::min(to - m_partStart[p], records.size());
        const std::size_t first = from > m_partStart[p] ? from - m_partStart[p] : 0;
        if (first < end)
            bytes +=
                records[end - 1].offset + records[end - 1].length - (records[first].offset - 4);
    }
    return bytes;
}

std::size_t RankReader::recordAfterBytes(std::size_t from, std::uint64_t bytes) const {
    if (from >= recordCount()) return recordCount();
    for (std::size_t p = partOf(from); p < m_parts.size(); ++p) {
        const auto records = m_parts[p]->index().records();
        const std::size_t first = from > m_partStart[p] ? from - m_partStart[p] : 0;
        if (first >= records.size()) continue;
        const std::uint64_t start = records[first].offset - 4;
        const std::uint64_t span = records.back().offset + records.back().length - start;
        if (span < bytes) {
            bytes -= span;
            continue;
        }
        // The first record that ends at or past `bytes` from the start ends the range.
        const auto last = std::partition_point(
            records.begin() + std::ptrdiff_t(first), records.end(),
            [&](const RecordEntry& e) { return e.offset + e.length - start < bytes; });
        return m_partStart[p] + std::size_t(last - records.begin()) + 1;
    }
    return recordCount();
}

std::size_t RankReader::partOf(std::size_t record) const {
    auto it = std::upper_bound(m_partStart.begin(), m_partStart.end(), record);
    return static_cast<std::size_t>(it - m_partStart.begin()) - 1;
}

const RecordEntry& RankReader::entry(std::size_t record) const {
    std::size_t p = partOf(record);
    return m_parts[p]->index().records()[record - m_partStart[p]];
}

Status RankReader::decode(std::size_t record, RecordView& out) const {
    const PartReader& part = *m_parts[partOf(record)];
    const RecordEntry& e = entry(record);
    Status st = part.ensure(e.offset, e.length);
    if (st) st = decodeRecord(part.message(e), out);
    if (!st) return {st.code(), describeLocation(part, e) + ": " + st.message()};
    return st;
}

Result<TensorView> RankReader::tensor(std::size_t record, std::string_view key) const {
    if (record >= recordCount())
        return Status(ErrorCode::NotFound, "record " + std::to_string(record) + " out of range");
    const PartReader& part = *m_parts[partOf(record)];
    int col = part.columnOf(key);
    if (col < 0)
        return Status(ErrorCode::NotFound,
                      "key '" + std::string(key) + "' is not in " + part.part().displayPath());
    RecordView view;
    XT_RETURN_IF_ERROR(decode(record, view));
    const RecordEntry& e = entry(record);
    if (static_cast<std::size_t>(col) >= view.columns.size())
        return Status(ErrorCode::Corrupt, describeLocation(part, e) + ": record has " +
                                              std::to_string(view.columns.size()) +
                                              " columns; key '" + std::string(key) +
                                              "' is column " + std::to_string(col));
    const ColumnView& c = view.columns[static_cast<std::size_t>(col)];
    ColumnProblem problem = c.check();
    if (problem != ColumnProblem::None)
        return Status(ErrorCode::Corrupt, describeLocation(part, e) + ": key '" + std::string(key) +
                                              "': " + columnProblemName(problem) + " (dtype " +
                                              std::to_string(c.wireDtype) + ", shape " +
                                              c.shape.toString() + ", " +
                                              std::to_string(c.data.size()) + " bytes)");
    return TensorView(c.dtype(), c.shape, c.data);
}

void RankReader::forEachTensor(
    std::string_view key, Diagnostics& diag,
    const std::function<bool(std::size_t, const TensorView&)>& fn) const {
    for (std::size_t i = 0; i < recordCount(); ++i) {
        auto t = tensor(i, key);
        if (!t) {
            if (t.status().code() != ErrorCode::NotFound) {
                const RecordEntry& e = entry(i);
                const PartReader& part = *m_parts[partOf(i)];
                // IoError: the bytes of a remote part could not be fetched.
                const bool unavailable = t.status().code() == ErrorCode::IoError;
                diag.add(unavailable ? codes::kUnavailableRecord : codes::kBadColumn,
                         part.part().displayPath(), e.offset - 4,
                         static_cast<std::int64_t>(i - m_partStart[partOf(i)]),
                         t.status().message());
            }
            continue;
        }
        if (t->empty()) continue;
        if (!fn(i, *t)) return;
    }
}

void ReleaseBehind::passed(std::size_t record) {
    constexpr std::uint64_t kStep = 4 << 20;
    const PartReader* part = m_rank->parts()[m_rank->partOf(record)].get();
    const RecordEntry& e = m_rank->entry(record);
    if (part != m_part) {
        flush();
        m_part = part;
        m_from = m_before = e.offset - 4;
    }
    // The index entries passed go too, where they are left in a file (a summary's).
    part->index().releaseBehind(std::size_t(&e - part->index().records().data()), m_entries);
    m_to = std::max(m_to, e.offset + e.length);
    if (m_to - m_from >= kStep) {
        // The piece before is given back once more: faults in this one can map its pages again
        // (large folios of the page cache).
        m_part->file().release(m_before, m_to - m_before);
        m_before = m_from, m_from = m_to;
    }
}

void ReleaseBehind::flush() {
    if (m_part && m_to > m_before) m_part->file().release(m_before, m_to - m_before);
    if (m_part) m_part->index().releaseBehind(m_part->index().records().size(), m_entries);
    m_part = nullptr;
    m_before = m_from = m_to = 0;
    m_entries = 0;
}

std::optional<std::size_t> RankReader::findGstep(std::int64_t gstep) const {
    for (std::size_t i = 0; i < recordCount(); ++i)
        if (entry(i).gstep == gstep) return i;
    return std::nullopt;
}

Result<bool> RankReader::refresh(Diagnostics& diag) {
    std::size_t before = recordCount();
    bool changed = false;
    for (auto& p : m_parts) {
        XT_ASSIGN_OR_RETURN(const bool grew, p->refresh(diag));
        changed = changed || grew;
    }
    if (changed) {
        rebuild(diag);
        checkSteps(before, diag);
    }
    return changed;
}

// ---- RunReader ----

Result<RunReader> RunReader::open(const RunFiles& files, Diagnostics& diag,
                                  const ProgressCallback& progress, const ReaderOptions& options) {
    RunReader run;
    run.m_files = files;
    std::uint64_t total = 0, done = 0;
    for (const auto& r : files.ranks)
        for (const auto& p : r.parts)
            total += p.size;
    for (const auto& r : files.ranks) {
        std::vector<std::shared_ptr<PartReader>> parts;
        for (const auto& p : r.parts) {
            ProgressCallback partProgress;
            if (progress)
                partProgress = [&](const ProgressReport& rep) {
                    return progress(ProgressReport{done + rep.done, total, rep.stage});
                };
            auto part = PartReader::open(p, diag, partProgress, options);
            done += p.size;
            if (!part) {
                if (part.status().code() == ErrorCode::Cancelled) return part.status();
                diag.add(codes::kUnreadablePart, p.displayPath(), Diagnostic::kNoOffset, -1,
                         part.status().message());
                continue;
            }
            parts.push_back(std::move(*part));
        }
        run.m_ranks.emplace_back(r.rank, std::move(parts), diag);
    }
    return run;
}

RunReader RunReader::fromRanks(RunFiles files, std::vector<RankReader> ranks) {
    RunReader run;
    run.m_files = std::move(files);
    run.m_ranks = std::move(ranks);
    return run;
}

const RankReader* RunReader::rank(int r) const {
    for (const auto& rr : m_ranks)
        if (rr.rank() == r) return &rr;
    return nullptr;
}

std::vector<std::string> RunReader::keys() const {
    std::vector<std::string> out;
    for (const auto& r : m_ranks)
        for (const auto& k : r.keys())
            if (std::find(out.begin(), out.end(), k) == out.end()) out.push_back(k);
    return out;
}

} // namespace xt::xdl
