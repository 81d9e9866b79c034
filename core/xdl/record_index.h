#pragma once
// The record index of one XDL data file: where each record is and its steps and timestamp,
// built by scanning length prefixes and the records' scalar fields (payloads are not read).
// It can be extended as a live file grows: an incomplete trailing record is left alone until
// it completes. Corruption is reported to a Diagnostics list and scanning resynchronises on
// the next plausible record, so good data after damage stays readable.

#include "core/base/diagnostics.h"
#include "core/base/huge_pages.h"
#include "core/base/progress.h"
#include "core/xdl/wire.h"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace xt {
class FileArena;
}

namespace xt::xdl {

struct RecordEntry {
    std::uint64_t offset = 0; // of the Record message, just after its length prefix
    std::uint32_t length = 0; // of the Record message
    std::uint32_t columnCount = 0;
    std::int64_t gstep = 0;
    std::int64_t lstep = 0;
    std::int64_t timestamp = 0;
};

// An index's records in memory: millions of them for a large part, filled as it is scanned, in
// huge pages.
using RecordList = HugePageVector<RecordEntry>;

struct IndexOptions {
    // A length prefix above this is treated as corrupt rather than as a record still to come.
    std::uint32_t maxRecordBytes = 1u << 30;
    // Files of small records are scanned by two threads, in steps of twice this many bytes: the
    // second thread starts at the next plausible record past a point inside each step, and its
    // records are kept only when the first thread's scan arrives exactly there (the result is
    // the one-thread scan's, damage included). 0 scans on one thread.
    std::uint64_t splitBytes = 16ull << 20;
    // Where the records of a large index go (empty: memory). Past spillAbove records they are
    // written, as the scan goes, to an unlinked file in this folder and read through a mapping
    // of it (records() is then IndexState::mapped, kept by the mapping): the index of a large
    // run takes page cache, which the system can write out and drop, not this process's memory.
    std::string spillDir;
    // Records held in memory before the spill starts. A followed part's indexes share their
    // spill from snapshot to snapshot (IndexState::spill), so a live reader starts it sooner.
    std::size_t spillAbove = std::size_t(1) << 16;
    // Where the records of an index go when it is finished (finish()) and holds them in memory:
    // the small finished parts of a followed run, thousands in a day, share one file there.
    std::shared_ptr<FileArena> finishedArena;
};

// A spill file of records (IndexOptions::spillDir), shared by the indexes that read it.
struct IndexSpill;

// Everything an index knows after scanning bytes [0, scannedTo): enough to continue the scan
// later (a stored summary keeps it, so reopening a part does not scan it again).
struct IndexState {
    RecordList records;
    // Or, instead of `records`, records that stay where they are (a mapped summary's record
    // section, a spilled index), kept readable by `keep`: a run of millions of small records is
    // not copied. Records with a `keep` are in a read-only file mapping, whose pages may be
    // given back (releaseMappedPages).
    std::span<const RecordEntry> mapped;
    std::shared_ptr<const void> keep;
    // The spill file whose records `mapped` are. An index restored from this state appends to it
    // (no copy) while the file ends where `mapped` does: the first index to extend it wins, and
    // one that finds it grown by another copies its records to a spill of its own.
    std::shared_ptr<IndexSpill> spill;
    std::vector<std::string> keys;
    bool hasHeader = false;
    bool startChecked = false; // the first message has been looked at (header or not)
    bool tailReported = false; // tailReported()
    std::uint64_t headerLength = 0;
    std::uint64_t scannedTo = 0;

    // The mean length of the records scanned (meanRecordBytes); 0 before any.
    std::uint64_t meanRecordBytes() const;
};

// The mean bytes a record takes, its length prefix included, where `records` records fill
// [headerLength, end) of a part, rounded up; 0 where there are none.
inline std::uint64_t meanRecordBytes(std::uint64_t headerLength, std::uint64_t end,
                                     std::uint64_t records) {
    return records > 0 && end > headerLength ? (end - headerLength + records - 1) / records : 0;
}

class RecordIndex {
public:
    explicit RecordIndex(std::string file, IndexOptions options = {});
    // An index that continues from `state`: extend() scans only from state.scannedTo on.
    static RecordIndex restore(std::string file, IndexState state, IndexOptions options = {});
    // The state, moved out (the index is left empty).
    IndexState takeState();
    // A copy of the state (to seed the index of a newer view of the same, grown file).
    IndexState state() const;
    // The state with the records left in this index (IndexState::mapped): valid while this
    // index lives unchanged, or, when they are mapped (a `keep` is given), while that is held.
    IndexState view() const;

    // Indexes the complete messages in fileBytes[scannedTo(), end). Call again with a longer
    // span when the file has grown. Returns Cancelled when progress asks to stop (the index
    // stays consistent and a later call continues).
    Status extend(Bytes fileBytes, Diagnostics& diag, const ProgressCallback& progress = {});
    // Declares that the file will not grow: a trailing incomplete record is reported, and the
    // records go to IndexOptions::finishedArena.
    void finish(Bytes fileBytes, Diagnostics& diag);

    const std::string& file() const { return m_file; }
    bool hasHeader() const { return m_hasHeader; }
    const std::vector<std::string>& keys() const { return m_keys; }
    std::uint64_t headerLength() const { return m_headerLength; }
    // Whether the records are in a spill file (IndexOptions::spillDir; maybe another index's).
    bool spilled() const { return m_spill.get() != nullptr; }
    std::span<const RecordEntry> records() const {
        return m_mapped.empty() ? std::span<const RecordEntry>(m_records) : m_mapped;
    }
    // For a pass over the records front to back, at record `passed`: gives back the pages of
    // records [*releasedTo, passed) where they are left in place (IndexState::mapped), 64 Ki
    // records at a time or at the end, and moves *releasedTo. A pass over millions of them then
    // does not keep them in; they are read again on demand. Nothing for records the index holds.
    void releaseBehind(std::size_t passed, std::size_t& releasedTo) const {
        if (!m_mapped.empty() && m_keep && passed > releasedTo &&
            (passed - releasedTo >= kReleaseRecords || passed >= m_mapped.size()))
            releaseRecords(std::min(passed, m_mapped.size()), releasedTo);
    }
    // Bytes [0, scannedTo()) are indexed; anything after is an incomplete or damaged tail.
    std::uint64_t scannedTo() const { return m_pos; }
    // Whether damage at scannedTo() has been reported already.
    bool tailReported() const { return m_reportedTailAt == m_pos; }

private:
    IndexState scanState() const; // everything but the records
    // Scans from scannedTo() while the next record starts before stopAt.
    Status scan(Bytes bytes, std::uint64_t stopAt, Diagnostics& diag,
                const ProgressCallback& progress);
    // One two-thread step over [scannedTo(), end); see IndexOptions::splitBytes.
    struct SplitScan;
    void scanStepInTwo(Bytes bytes, std::uint64_t end, Diagnostics& diag, SplitScan& split);
    void appendPending(SplitScan& split);
    bool worthSplitting(std::uint64_t size, std::size_t records) const;
    // Whether a well-formed record or header (or the end of the file) starts at pos.
    bool plausibleRecordAt(Bytes bytes, std::uint64_t pos, bool allowIncomplete) const;
    std::uint64_t resync(Bytes bytes, std::uint64_t from) const;
    void flushZeroRun(Diagnostics& diag);
    void reportTail(Bytes bytes, Diagnostics& diag); // finish() but for the arena
    void keepInArena();
    // extend()'s cold paths for the record at pos. checkStart: true when msg is the header.
    // The skips return where the scan goes on (bytes.size() or nothing: it stops there).
    bool checkStart(Bytes msg, std::uint64_t pos, Diagnostics& diag);
    std::optional<std::uint64_t> skipBadLength(Bytes bytes, std::uint64_t pos, std::uint32_t len,
                                               Diagnostics& diag);
    std::uint64_t skipDamaged(Bytes bytes, std::uint64_t pos, Bytes msg, const Status& why,
                              Diagnostics& diag);

    // Records in place (IndexState::mapped) become m_records, or go to a spill file, when the
    // scan goes on.
    void ownRecords();
    std::size_t recordCount() const; // mapped or spilled, and in m_records
    // extend() but for the spill at its end.
    Status scanAll(Bytes bytes, Diagnostics& diag, const ProgressCallback& progress);
    // IndexOptions::spillDir: m_records are written to the spill file (started when there is
    // none and IndexOptions::spillAbove are there) kSpillRecords at a time, and at the end of
    // extend(), where the mapping then covers them all (m_mapped, m_keep). A file that cannot be
    // made or written leaves the records in memory (unspill). Only the index that claimed the
    // spill for its extend() (m_appending) writes to it.
    static constexpr std::size_t kSpillRecords = std::size_t(1) << 16;
    void spillRecords(bool map);
    bool claimSpill();
    void releaseSpill();
    bool startSpill();
    bool writeSpill(std::span<const RecordEntry> records);
    bool mapSpill();
    void unspill();
    static constexpr std::size_t kReleaseRecords = std::size_t(1) << 16;
    void releaseRecords(std::size_t passed, std::size_t& releasedTo) const;

    std::string m_file;
    IndexOptions m_options;
    RecordList m_records;
    std::span<const RecordEntry> m_mapped;
    std::shared_ptr<const void> m_keep;
    std::shared_ptr<IndexSpill> m_spill; // whose records m_mapped are (IndexState::spill)
    bool m_appending = false;            // within extend(), having claimed m_spill
    std::vector<std::string> m_keys;
    bool m_hasHeader = false;
    bool m_startChecked = false;
    std::uint64_t m_headerLength = 0;
    std::uint64_t m_pos = 0;
    std::uint64_t m_zeroRunStart = 0, m_zeroRunCount = 0;
    std::uint64_t m_reportedTailAt = UINT64_MAX;
    bool m_reserveAhead = true; // reserve for the whole file from the first records' size
};

} // namespace xt::xdl
