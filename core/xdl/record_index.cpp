#include "core/xdl/record_index.h"

#include "core/base/diagnostic_codes.h"
#include "core/base/fd_io.h"
#include "core/base/file_arena.h"
#include "core/base/mapped_file.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <mutex>
#include <new>
#include <system_error>
#include <thread>

#include <sys/mman.h>

namespace xt::xdl {

namespace {
constexpr std::uint64_t kProgressEvery = 16ull << 20;
// A file is scanned by two threads when its records are at most this large on average, once
// this many have been seen (see IndexOptions::splitBytes).
constexpr std::uint64_t kSplitMaxMeanRecord = 4096;
constexpr std::size_t kRecordsBeforeSplit = 8;
constexpr std::uint64_t kFirstScanBytes = 1u << 20; // on one thread, to learn the mean
// How far past the middle of a step the second thread looks for a record to start at.
constexpr std::uint64_t kResyncWindow = 64u << 10;

// First byte of a Record: the tag of gstep, lstep, column or timestamp.
bool isRecordStartByte(std::uint8_t b) {
    return b == 0x08 || b == 0x10 || b == 0x1a || b == 0x20;
}

// A spill file is mapped past the records written so far, so that the mapping covers later ones
// without being made again (records() ends at the last record written: no page past the file's
// end is read). Snapshots of the index keep it while they read it.
constexpr std::size_t kSpillReserveBytes = std::size_t(64) << 20; // the least mapping
} // namespace

struct IndexSpill {
    explicit IndexSpill(int fd) : fd(fd) {}
    UniqueFd fd;
    std::mutex mutex; // for `written` and `claimed`: indexes of several snapshots may extend it
    std::size_t written = 0; // records in the file
    bool claimed = false;    // an index is appending to it (RecordIndex::m_appending)
    std::shared_ptr<const FileMapping> mapping;
};

RecordIndex::RecordIndex(std::string file, IndexOptions options)
    : m_file(std::move(file)), m_options(options) {}

RecordIndex RecordIndex::restore(std::string file, IndexState state, IndexOptions options) {
    RecordIndex index(std::move(file), options);
    index.m_records = std::move(state.records);
    if (!state.mapped.empty() || state.spill) {
        index.m_mapped = state.mapped;
        index.m_keep = std::move(state.keep);
        index.m_spill = std::move(state.spill);
    }
    index.m_keys = std::move(state.keys);
    index.m_hasHeader = state.hasHeader;
    index.m_startChecked = state.startChecked;
    index.m_headerLength = state.headerLength;
    index.m_pos = state.scannedTo;
    if (state.tailReported) index.m_reportedTailAt = state.scannedTo;
    return index;
}

IndexState RecordIndex::scanState() const {
    IndexState s;
    s.keys = m_keys;
    s.hasHeader = m_hasHeader;
    s.startChecked = m_startChecked;
    s.tailReported = tailReported();
    s.headerLength = m_headerLength;
    s.scannedTo = m_pos;
    return s;
}

std::uint64_t IndexState::meanRecordBytes() const {
    return xdl::meanRecordBytes(headerLength, scannedTo, std::max(records.size(), mapped.size()));
}

IndexState RecordIndex::takeState() {
    IndexState s = scanState();
    s.records = std::move(m_records);
    s.mapped = m_mapped;
    s.keep = std::move(m_keep);
    s.spill = std::move(m_spill);
    *this = RecordIndex(std::move(m_file), m_options);
    return s;
}

IndexState RecordIndex::state() const {
    RecordIndex copy = *this;
    return copy.takeState();
}

IndexState RecordIndex::view() const {
    IndexState s = scanState();
    s.mapped = records();
    if (!m_mapped.empty()) s.keep = m_keep;
    return s;
}

void RecordIndex::releaseRecords(std::size_t passed, std::size_t& releasedTo) const {
    // The records before are given back once more: faults in a piece can map pages of the one
    // before again (large folios of the page cache).
    const std::size_t from = releasedTo - std::min(releasedTo, kReleaseRecords);
    releaseMappedPages(m_mapped.data(), m_mapped.size_bytes(), from * sizeof(RecordEntry),
                       (passed - from) * sizeof(RecordEntry));
    releasedTo = passed;
}

bool RecordIndex::plausibleRecordAt(Bytes bytes, std::uint64_t pos, bool allowIncomplete) const {
    if (pos == bytes.size()) return true; // a clean end of file
    if (pos > bytes.size()) return false;
    if (bytes.size() - pos < 4) return allowIncomplete;
    std::uint32_t len = readLength(bytes.data() + pos);
    if (len == 0 || len > m_options.maxRecordBytes) return false;
    if (bytes.size() - pos == 4) return allowIncomplete; // the prefix is all there is so far
    std::uint8_t first = bytes[pos + 4];
    if (bytes.size() - pos - 4 < len)
        return allowIncomplete && (isRecordStartByte(first) || first == 0x0a);
    Bytes msg = bytes.subspan(pos + 4, len);
    if (looksLikeHeader(msg)) { // a repeated header (concatenated files) is a valid neighbour
        std::vector<std::string> keys;
        return decodeHeader(msg, keys).isOk();
    }
    RecordHead head;
    return decodeRecordHead(msg, head).isOk();
}

std::uint64_t RecordIndex::resync(Bytes bytes, std::uint64_t from) const {
    // A position is accepted when a well-formed message starts there and another one (or the end
    // of the file, or an incomplete message) follows it: two in a row rarely happen by chance.
    for (std::uint64_t q = from; q + 5 <= bytes.size(); ++q) {
        std::uint8_t first = bytes[q + 4];
        if (!isRecordStartByte(first) && first != 0x0a) continue;
        if (!plausibleRecordAt(bytes, q, false)) continue;
        std::uint64_t next = q + 4 + readLength(bytes.data() + q);
        if (plausibleRecordAt(bytes, next, true)) return q;
    }
    return bytes.size();
}

void RecordIndex::flushZeroRun(Diagnostics& diag) {
    if (m_zeroRunCount == 0) return;
    diag.add(codes::kZeroLength, m_file, m_zeroRunStart, static_cast<std::int64_t>(recordCount()),
             std::to_string(m_zeroRunCount) +
                 " zero-length record(s) skipped (a zero-filled region?)");
    m_zeroRunCount = 0;
}

bool RecordIndex::checkStart(Bytes msg, std::uint64_t pos, Diagnostics& diag) {
    m_startChecked = true;
    if (looksLikeHeader(msg)) {
        Status st = decodeHeader(msg, m_keys);
        if (st.isOk()) {
            m_hasHeader = true;
            m_headerLength = 4 + msg.size();
            return true;
        }
        diag.add(codes::kBadHeader, m_file, pos, -1, "malformed header: " + st.message());
        m_keys.clear();
    } else {
        diag.add(codes::kMissingHeader, m_file, 0, -1,
                 "the file does not start with a header; key names are unknown");
    }
    return false;
}

std::optional<std::uint64_t> RecordIndex::skipBadLength(Bytes bytes, std::uint64_t pos,
                                                        std::uint32_t len, Diagnostics& diag) {
    const std::uint64_t size = bytes.size();
    std::uint64_t q = resync(bytes, pos + 1);
    if (q >= size && m_reportedTailAt == pos) return std::nullopt; // reported on an earlier call
    if (q >= size) m_reportedTailAt = pos;
    diag.add(codes::kBadLength, m_file, pos, static_cast<std::int64_t>(recordCount()),
             "length prefix " + std::to_string(len) + " exceeds the " +
                 std::to_string(m_options.maxRecordBytes) + "-byte record limit; " +
                 (q < size ? "skipped " + std::to_string(q - pos) + " bytes to the next record"
                           : "no further record found"));
    if (q >= size) return std::nullopt; // may be a live file whose next records are not here yet
    return q;
}

std::uint64_t RecordIndex::skipDamaged(Bytes bytes, std::uint64_t pos, Bytes msg, const Status& why,
                                       Diagnostics& diag) {
    const std::uint64_t size = bytes.size();
    const auto recordNo = static_cast<std::int64_t>(recordCount());
    const std::uint64_t next = pos + 4 + msg.size();
    std::vector<std::string> strayKeys;
    if (looksLikeHeader(msg) && decodeHeader(msg, strayKeys).isOk()) {
        diag.add(codes::kUnexpectedHeader, m_file, pos, recordNo,
                 "a header in the middle of the file was skipped");
        return next;
    }
    // The record is malformed. If its length leads to another record, only its content is
    // damaged: skip it. Otherwise the length itself is suspect: resynchronise.
    if (plausibleRecordAt(bytes, next, true)) {
        diag.add(codes::kMalformedRecord, m_file, pos, recordNo,
                 "record skipped: " + why.message());
        return next;
    }
    std::uint64_t q = resync(bytes, pos + 1);
    diag.add(codes::kMalformedRecord, m_file, pos, recordNo,
             why.message() + "; " +
                 (q < size ? "skipped " + std::to_string(q - pos) + " bytes to the next record"
                           : "no further record found"));
    // Past the end when nothing readable follows: the same damage is not reported again.
    return q >= size ? size : q;
}

// The records of the second thread's last step, accepted and appended by this thread at the
// start of the next step (while the second thread scans on) or at the end, and a spare buffer
// for the second thread's next step: its pages are touched once per extend(), not every step.
// This thread's share of a step follows the two threads' times: it also appends the records.
struct RecordIndex::SplitScan {
    RecordList pending;
    RecordList spare;
    double firstShare = 0.5;
};

std::size_t RecordIndex::recordCount() const {
    return (m_appending ? m_spill->written : m_mapped.size()) + m_records.size();
}

void RecordIndex::ownRecords() {
    if (m_spill && claimSpill()) return; // appended to
    m_spill.reset();                     // grown by another index since: not ours to append to
    if (m_mapped.empty()) return;
    const std::span<const RecordEntry> from = m_mapped;
    const std::shared_ptr<const void> keep = std::move(m_keep);
    m_mapped = {};
    if (!m_options.spillDir.empty() && from.size() >= m_options.spillAbove && startSpill()) {
        for (std::size_t i = 0; i < from.size(); i += kSpillRecords) {
            const auto some = from.subspan(i, std::min(kSpillRecords, from.size() - i));
            if (!writeSpill(some)) {
                m_records.assign(some.begin(), from.end());
                return unspill();
            }
            if (keep) // in a file mapping (IndexState::keep): read once
                releaseMappedPages(from.data(), from.size_bytes(), i * sizeof(RecordEntry),
                                   some.size_bytes());
        }
        return;
    }
    m_records.assign(from.begin(), from.end());
}

bool RecordIndex::claimSpill() {
    std::lock_guard lock(m_spill->mutex);
    if (m_spill->claimed || m_spill->written != m_mapped.size()) return false;
    m_spill->claimed = m_appending = true;
    return true;
}

void RecordIndex::releaseSpill() {
    if (!m_appending) return;
    std::lock_guard lock(m_spill->mutex);
    m_spill->claimed = m_appending = false;
}

bool RecordIndex::startSpill() {
    const int fd = openUnlinkedFile(m_options.spillDir, ".records");
    if (fd < 0) {
        m_options.spillDir.clear(); // in memory, as without a folder
        return false;
    }
    m_spill = std::make_shared<IndexSpill>(fd);
    m_spill->claimed = m_appending = true;
    return true;
}

bool RecordIndex::writeSpill(std::span<const RecordEntry> records) {
    IndexSpill& spill = *m_spill;
    if (!writeFully(spill.fd.get(), records.data(), records.size_bytes(), "").isOk()) return false;
    std::lock_guard lock(spill.mutex);
    spill.written += records.size();
    return true;
}

bool RecordIndex::mapSpill() {
    IndexSpill& spill = *m_spill;
    const std::size_t bytes = spill.written * sizeof(RecordEntry);
    if (!spill.mapping || spill.mapping->length() < bytes) {
        auto mapping =
            FileMapping::map(spill.fd.get(), std::max(bytes + bytes / 2, kSpillReserveBytes));
        if (!mapping) return false;
        spill.mapping = std::move(mapping);
    }
    m_mapped = {reinterpret_cast<const RecordEntry*>(spill.mapping->data()), spill.written};
    m_keep = spill.mapping;
    return true;
}

void RecordIndex::spillRecords(bool map) {
    if (m_options.spillDir.empty() || (!m_appending && m_records.size() < m_options.spillAbove))
        return;
    if (!m_appending && !startSpill()) return;
    if (!m_records.empty()) {
        if (!writeSpill(m_records)) return unspill();
        m_records.clear();
    }
    if (!map) return; // more to come: the capacity is used again
    if (!mapSpill()) return unspill();
    // A scan leaves megabytes of capacity behind (its split steps' records); an index of each
    // part of a large run kept them all.
    RecordList().swap(m_records);
}

void RecordIndex::unspill() {
    RecordList staged = std::move(m_records);
    m_records.clear();
    if (m_spill->written > 0) {
        if (!mapSpill()) throw std::bad_alloc(); // no address space left for the records
        m_records.reserve(m_mapped.size() + staged.size());
        m_records.assign(m_mapped.begin(), m_mapped.end());
    }
    m_records.insert(m_records.end(), staged.begin(), staged.end());
    m_mapped = {};
    m_keep.reset();
    m_appending = false; // the spill stays claimed: no index appends after a failed write
    m_spill.reset();
    m_options.spillDir.clear(); // in memory from here on
}

Status RecordIndex::extend(Bytes bytes, Diagnostics& diag, const ProgressCallback& progress) {
    if (bytes.size() > m_pos) ownRecords(); // records will be added
    const Status scanned = scanAll(bytes, diag, progress);
    spillRecords(true);
    releaseSpill();
    return scanned;
}

Status RecordIndex::scanAll(Bytes bytes, Diagnostics& diag, const ProgressCallback& progress) {
    const std::uint64_t size = bytes.size();
    // The start (header) and the first records are scanned on this thread: then the records'
    // mean size says whether a second thread pays.
    const std::uint64_t step = m_options.splitBytes;
    const std::uint64_t stopAt = step == 0 ? UINT64_MAX : m_pos + std::min(step, kFirstScanBytes);
    XT_RETURN_IF_ERROR(scan(bytes, stopAt, diag, progress));
    bool stopped = m_pos < stopAt; // at the end, at damage or at an incomplete record
    SplitScan split;
    bool dense = false; // small records: every page is read
    while (!stopped && worthSplitting(size, recordCount() + split.pending.size())) {
        dense = true;
        const std::uint64_t stepEnd = std::min(size, m_pos + 2 * step);
        scanStepInTwo(bytes, stepEnd, diag, split);
        stopped = m_pos < stepEnd;
        if (!reportProgress(progress, m_pos, size, "indexing")) {
            appendPending(split);
            return {ErrorCode::Cancelled, "indexing " + m_file + " cancelled"};
        }
    }
    appendPending(split);
    if (dense && !stopped) populateMappedPages(bytes.data(), size, m_pos, size - m_pos);
    if (!stopped) XT_RETURN_IF_ERROR(scan(bytes, UINT64_MAX, diag, progress));
    flushZeroRun(diag);
    reportProgress(progress, m_pos, size, "indexing");
    return Status::ok();
}

bool RecordIndex::worthSplitting(std::uint64_t size, std::size_t records) const {
    const std::uint64_t step = m_options.splitBytes;
    if (step == 0 || !m_startChecked || records < kRecordsBeforeSplit) return false;
    if (m_pos >= size || size - m_pos < step) return false;
    const std::uint64_t mean = meanRecordBytes(m_headerLength, m_pos, records);
    return mean <= kSplitMaxMeanRecord && std::thread::hardware_concurrency() > 1;
}

void RecordIndex::appendPending(SplitScan& split) {
    m_records.insert(m_records.end(), split.pending.begin(), split.pending.end());
    split.pending.clear();
    if (m_records.size() >= kSpillRecords) spillRecords(false);
}

void RecordIndex::scanStepInTwo(Bytes bytes, std::uint64_t end, Diagnostics& diag,
                                SplitScan& split) {
    using Clock = std::chrono::steady_clock;
    const auto mid =
        m_pos + static_cast<std::uint64_t>(static_cast<double>(end - m_pos) * split.firstShare);
    // The next plausible record past the middle, before the step's end and not far past the
    // middle (a long payload has no record start to find).
    const Bytes near = bytes.first(std::min({end, mid + kResyncWindow}));
    const std::uint64_t q = resync(near, mid);
    RecordIndex second(m_file, m_options);
    Diagnostics secondDiag;
    Clock::duration secondTime{};
    std::thread thread;
    if (q < near.size()) {
        // The second index continues from q as a restored one does, with this one's header.
        IndexState from;
        from.keys = m_keys;
        from.hasHeader = m_hasHeader;
        from.startChecked = true;
        from.headerLength = m_headerLength;
        from.scannedTo = q;
        IndexOptions options = m_options;
        options.spillDir.clear(); // its records go to this index
        second = restore(m_file, std::move(from), options);
        second.m_reserveAhead = false;
        const std::size_t records = recordCount() + split.pending.size();
        const std::uint64_t mean = meanRecordBytes(m_headerLength, m_pos, records);
        second.m_records = std::move(split.spare);
        second.m_records.clear();
        second.m_records.reserve(static_cast<std::size_t>((end - q) / mean * 9 / 8 + 64));
        try {
            thread = std::thread([&] {
                const Clock::time_point t0 = Clock::now();
                populateMappedPages(bytes.data(), bytes.size(), q, end - q);
                (void)second.scan(bytes, end, secondDiag, {});
                secondTime = Clock::now() - t0;
            });
        } catch (const std::system_error&) {
            // no thread to be had: this one scans the whole step
        }
    }
    const Clock::time_point t0 = Clock::now();
    appendPending(split); // the last step's records go first
    // Each thread maps its pages in one call before it reads them (populateMappedPages).
    const std::uint64_t mine = thread.joinable() ? q : end;
    populateMappedPages(bytes.data(), bytes.size(), m_pos, mine - std::min(m_pos, mine));
    (void)scan(bytes, mine, diag, {});
    if (!thread.joinable()) return;
    const Clock::duration firstTime = Clock::now() - t0;
    thread.join();
    if (firstTime.count() > 0 && secondTime.count() > 0) // move the middle toward equal times
        split.firstShare =
            std::clamp(split.firstShare * std::sqrt(std::chrono::duration<double>(secondTime) /
                                                    std::chrono::duration<double>(firstTime)),
                       0.2, 0.8);
    split.spare = std::move(second.m_records);
    if (m_pos < q) return; // stopped at damage: a scan through the step stops there too
    if (m_pos != q || !secondDiag.empty()) {
        // The second thread started inside a record, or met damage whose diagnostics need this
        // thread's record numbers: this thread scans on through the step.
        (void)scan(bytes, end, diag, {});
        return;
    }
    flushZeroRun(diag); // zeros before q end there, as in a scan through q
    std::swap(split.pending, split.spare);
    m_pos = second.m_pos;
    m_zeroRunStart = second.m_zeroRunStart;
    m_zeroRunCount = second.m_zeroRunCount;
}

Status RecordIndex::scan(Bytes bytes, std::uint64_t stopAt, Diagnostics& diag,
                         const ProgressCallback& progress) {
    const std::uint64_t size = bytes.size();
    std::uint64_t pos = m_pos;
    std::uint64_t nextReport = pos + kProgressEvery;
    std::uint64_t prefetched = 0; // bytes before this are in the cache or on their way
    RecordHead head;

    while (size - pos >= 4 && pos < stopAt) {
        if (pos >= nextReport) {
            nextReport = pos + kProgressEvery;
            m_pos = pos;
            if (!reportProgress(progress, pos, size, "indexing"))
                return {ErrorCode::Cancelled, "indexing " + m_file + " cancelled"};
        }
        // The scan is a chain of dependent loads; pull the next 2 kB into the cache early, every
        // line of them (one line a record left most record heads to wait for memory).
        prefetched = std::max(prefetched, pos & ~std::uint64_t(63));
        for (const std::uint64_t ahead = std::min(pos + 2048, size); prefetched < ahead;
             prefetched += 64)
            __builtin_prefetch(bytes.data() + prefetched);
        const std::uint32_t len = readLength(bytes.data() + pos);

        if (!m_startChecked && pos == 0 && len == 0) { // `00 00 00 00`: an empty Header
            m_startChecked = m_hasHeader = true;
            m_headerLength = 4;
            diag.add(codes::kEmptyHeader, m_file, 0, -1, "the header names no keys");
            pos = 4;
            continue;
        }
        if (len == 0) {
            if (m_zeroRunCount++ == 0) m_zeroRunStart = pos;
            pos += 4;
            continue;
        }
        flushZeroRun(diag);

        if (len > m_options.maxRecordBytes) {
            const std::optional<std::uint64_t> next = skipBadLength(bytes, pos, len, diag);
            if (!next) break;
            pos = *next;
            continue;
        }
        if (size - pos - 4 < len) break; // incomplete: still being written, or truncated

        Bytes msg = bytes.subspan(pos + 4, len);
        if (!m_startChecked && checkStart(msg, pos, diag)) {
            pos += 4 + len;
            continue;
        }

        Status st = decodeRecordHead(msg, head);
        if (!st.isOk()) {
            pos = skipDamaged(bytes, pos, msg, st, diag);
            continue;
        }
        if (m_hasHeader && head.columnCount != m_keys.size())
            diag.add(codes::kColumnCountMismatch, m_file, pos,
                     static_cast<std::int64_t>(recordCount()),
                     std::to_string(head.columnCount) + " columns for " +
                         std::to_string(m_keys.size()) + " keys");
        if (m_reserveAhead && m_records.size() == 64 && m_records.capacity() < size / 64) {
            // Reserve for the whole file from the average record size seen so far (for what is
            // kept in memory before it is spilled, with a spill folder).
            const std::uint64_t avg = meanRecordBytes(m_headerLength, pos, 64);
            std::uint64_t n = size / avg + size / avg / 16 + 64;
            if (!m_options.spillDir.empty()) n = std::min<std::uint64_t>(n, kSpillRecords + 64);
            m_records.reserve(static_cast<std::size_t>(n));
        }
        m_records.push_back(
            RecordEntry{pos + 4, len, head.columnCount, head.gstep, head.lstep, head.timestamp});
        if (m_records.size() >= kSpillRecords && !m_options.spillDir.empty()) spillRecords(false);
        pos += 4 + len;
    }
    m_pos = pos;
    return Status::ok();
}

void RecordIndex::finish(Bytes bytes, Diagnostics& diag) {
    reportTail(bytes, diag);
    keepInArena();
}

void RecordIndex::keepInArena() {
    if (!m_options.finishedArena || !m_mapped.empty() || m_records.empty()) return;
    auto kept = m_options.finishedArena->keep(std::as_bytes(std::span(m_records)));
    if (!kept) return;
    m_mapped = {reinterpret_cast<const RecordEntry*>(kept->bytes.data()), m_records.size()};
    m_keep = std::move(kept->keep);
    RecordList().swap(m_records);
}

void RecordIndex::reportTail(Bytes bytes, Diagnostics& diag) {
    flushZeroRun(diag);
    if (m_pos >= bytes.size() || m_reportedTailAt == m_pos) return;
    m_reportedTailAt = m_pos;
    std::uint64_t tail = bytes.size() - m_pos;
    const auto recordNo = static_cast<std::int64_t>(recordCount());
    if (tail < 4) {
        diag.add(codes::kTruncatedRecord, m_file, m_pos, recordNo,
                 "file ends inside a length prefix (" + std::to_string(tail) +
                     " of 4 bytes); earlier records are intact");
        return;
    }
    std::uint32_t len = readLength(bytes.data() + m_pos);
    // The file is complete, so a length running past its end is either a cut-off last record
    // or a damaged prefix with good records after it.
    std::uint64_t q = resync(bytes, m_pos + 1);
    if (q < bytes.size()) {
        diag.add(codes::kBadLength, m_file, m_pos, recordNo,
                 "length prefix " + std::to_string(len) +
                     " runs past the end of the file; skipped " + std::to_string(q - m_pos) +
                     " bytes to the next record");
        m_pos = q;
        (void)extend(bytes, diag);
        reportTail(bytes, diag);
        return;
    }
    diag.add(codes::kTruncatedRecord, m_file, m_pos, recordNo,
             "file ends inside a record: " + std::to_string(tail - 4) + " of " +
                 std::to_string(len) +
                 " bytes present (the writer was interrupted?); earlier records are intact");
}

} // namespace xt::xdl
