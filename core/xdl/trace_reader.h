#pragma once
// Reading an XDL run: each part file is mapped and indexed (PartReader); a rank joins its parts
// into one record sequence (RankReader); a run holds its ranks (RunReader). Records are decoded
// on demand from the mapped bytes; tensors are views, never copies.

#include "core/base/mapped_file.h"
#include "core/xdl/record_index.h"
#include "core/xdl/run_discovery.h"
#include "core/xdl/tensor_view.h"

#include <functional>
#include <memory>
#include <optional>
#include <string_view>
#include <unordered_map>

namespace xt::xdl {

struct ReaderOptions {
    IndexOptions index;
    // Live runs: an incomplete trailing record of an unfinalised part is awaited, not reported.
    bool live = false;
    // A preview of a large part: only the records within its first scanBytes bytes are indexed.
    // The rest is neither scanned nor checked (its tail, its meta), and the part is not finished.
    std::uint64_t scanBytes = UINT64_MAX;
    // Every record will be read whole (an export): each part is mapped for scans whatever its
    // records' size. Large records are otherwise mapped for lookups, and on this project's VMs a
    // pass over 512 MB of 1 MiB records cached in 2 MiB folios took 3-6x as long so.
    bool readsWhole = false;
};

class PartReader {
public:
    static Result<std::unique_ptr<PartReader>> open(PartFile part, Diagnostics& diag,
                                                    const ProgressCallback& progress = {},
                                                    const ReaderOptions& options = {});
    // Opens with the index restored from `seed` (a stored summary's), scanning only the bytes
    // beyond seed.scannedTo. A seed that does not fit the file (longer than it) is dropped and
    // the whole file is scanned.
    static Result<std::unique_ptr<PartReader>> open(PartFile part, IndexState seed,
                                                    Diagnostics& diag,
                                                    const ProgressCallback& progress = {},
                                                    const ReaderOptions& options = {});
    // Picks up appended bytes and a meta written since the last call. True when anything changed.
    Result<bool> refresh(Diagnostics& diag);
    // Live runs: the writer looks gone (no growth for a while), so a trailing incomplete record
    // is reported now (once per position). Records completed later are still picked up.
    void finishIdle(Diagnostics& diag);
    // Live runs: the meta is finalised but the records indexed so far end before the steps it
    // names (a mirror can copy a finalised meta before the part's last bytes), so more are
    // awaited; the meta is checked against the records once they reach it or the part is idle.
    bool dataBehindMeta() const;
    // The records indexed reach the steps a finalised meta names (true without one); unlike
    // dataBehindMeta, also for an idle part.
    bool reachesMeta() const;
    // The meta is finalised and nothing more is awaited (see dataBehindMeta).
    bool finished() const;
    // Only a prefix of the part was indexed (ReaderOptions::scanBytes).
    bool previewOnly() const { return m_previewOnly; }

    const PartFile& part() const { return m_part; }
    const RecordIndex& index() const { return m_index; }
    // Its index is its own scan of the part from the start, which reported nothing: a summary
    // build of the file unchanged since (file().mtimeNs()) can start from it (RecordIndex::view)
    // instead of scanning it again.
    bool cleanScan() const { return m_cleanScan; }
    // Makes bytes [offset, offset + length) readable: the part's fetcher (a remote part) brings
    // them in; nothing to do for a local file. Every read of the part's bytes is preceded by it
    // (open and refresh for what they index, RankReader::decode for a record).
    Status ensure(std::uint64_t offset, std::uint64_t length) const;
    // The mapped bytes: only ranges ensure() covered may be read.
    Bytes bytes() const { return m_file.bytes(); }
    const MappedFile& file() const { return m_file; }
    // A record's bytes; none for an entry beyond the file (records not checked yet: a run shown
    // from its summaries' overviews), which then does not decode.
    Bytes message(const RecordEntry& e) const {
        const Bytes b = bytes();
        return e.offset <= b.size() && e.length <= b.size() - e.offset
                   ? b.subspan(e.offset, e.length)
                   : Bytes{};
    }
    // Key names of this part's columns (from its header, or borrowed: see RankReader).
    const std::vector<std::string>& keys() const { return m_keys; }
    int columnOf(std::string_view key) const;

private:
    friend class RankReader;
    PartReader(PartFile part, MappedFile file, const ReaderOptions& options);
    static Result<std::unique_ptr<PartReader>> openWith(PartFile part, IndexState* seed,
                                                        Diagnostics& diag,
                                                        const ProgressCallback& progress,
                                                        const ReaderOptions& options);
    void setKeys(std::vector<std::string> keys);
    void finishIfComplete(Diagnostics& diag);

    PartFile m_part;
    MappedFile m_file;
    RecordIndex m_index;
    ReaderOptions m_options;
    std::vector<std::string> m_keys;
    std::unordered_map<std::string, int> m_columnOf;
    bool m_metaChecked = false;
    bool m_idle = false; // finishIdle was called
    bool m_cleanScan = false;
    bool m_previewOnly = false;
};

// A rank's parts are shared: a newer snapshot of a followed run holds the finished parts of the
// one before, which no longer change. Only the reader that opened a part refreshes it.
class RankReader {
public:
    // Reports negative steps and steps that go back (a pass over the records) unless
    // !checkSteps: a run shown at once from its summaries' overviews, whose full open reports them.
    RankReader(int rank, std::vector<std::shared_ptr<PartReader>> parts, Diagnostics& diag,
               bool checkSteps = true);

    int rank() const { return m_rank; }
    const std::vector<std::shared_ptr<PartReader>>& parts() const { return m_parts; }
    // Keys in column order of the first part, then keys that later parts add.
    const std::vector<std::string>& keys() const { return m_keys; }

    std::size_t recordCount() const { return m_partStart.empty() ? 0 : m_partStart.back(); }
    const RecordEntry& entry(std::size_t record) const;
    std::size_t partOf(std::size_t record) const;
    std::size_t partStart(std::size_t part) const { return m_partStart[part]; } // its 1st record
    Status decode(std::size_t record, RecordView& out) const;
    // The tensor of `key` in `record`. NotFound when that record's part has no such key;
    // Corrupt (with file and offset) when the column is damaged. Empty columns are empty views.
    Result<TensorView> tensor(std::size_t record, std::string_view key) const;
    // Calls fn(record, tensor) for each record holding `key` with data, in order; stops when fn
    // returns false. Damaged columns are reported to diag and skipped.
    void forEachTensor(std::string_view key, Diagnostics& diag,
                       const std::function<bool(std::size_t, const TensorView&)>& fn) const;
    // The first record with this global step.
    std::optional<std::size_t> findGstep(std::int64_t gstep) const;
    // The bytes records [from, to) span in their parts, length prefixes included (a damaged
    // stretch between two of them too). Reads two entries a part, not the records between.
    std::uint64_t recordBytes(std::size_t from, std::size_t to) const;
    // The end of the shortest range of records from `from` (at least one) whose recordBytes
    // reach `bytes`, or recordCount(). A binary search in each part's index.
    std::size_t recordAfterBytes(std::size_t from, std::uint64_t bytes) const;

    // Re-reads growing parts (live runs); true when records were added.
    Result<bool> refresh(Diagnostics& diag);
    void addPart(std::shared_ptr<PartReader> part, Diagnostics& diag);

private:
    void rebuild(Diagnostics& diag);
    void checkSteps(std::size_t from, Diagnostics& diag);

    int m_rank;
    std::vector<std::shared_ptr<PartReader>> m_parts;
    std::vector<std::size_t> m_partStart; // record number of each part's first record, + total
    std::vector<std::string> m_keys;
};

// Gives back the pages of a rank's records read in ascending order (MappedFile::release), a few
// MB at a time: a record smaller than a page holds no page of its own, so giving back each
// record's bytes as it is passed keeps every page of a file of small records. Index entries left
// in a file (a summary's) are given back as they are passed too.
class ReleaseBehind {
public:
    explicit ReleaseBehind(const RankReader& rank) : m_rank(&rank) {}
    ~ReleaseBehind() { flush(); }
    ReleaseBehind(const ReleaseBehind&) = delete;
    ReleaseBehind& operator=(const ReleaseBehind&) = delete;
    void passed(std::size_t record);
    void flush();

private:
    const RankReader* m_rank;
    const PartReader* m_part = nullptr;
    std::uint64_t m_from = 0, m_to = 0; // bytes of m_part passed and not given back
    std::uint64_t m_before = 0;         // where the piece before m_from starts
    std::size_t m_entries = 0;          // index entries of m_part given back
};

class RunReader {
public:
    static Result<RunReader> open(const RunFiles& files, Diagnostics& diag,
                                  const ProgressCallback& progress = {},
                                  const ReaderOptions& options = {});
    // A run of ranks opened by the caller (e.g. from summaries), in `files`' rank order.
    static RunReader fromRanks(RunFiles files, std::vector<RankReader> ranks);

    const RunFiles& files() const { return m_files; }
    const std::vector<RankReader>& ranks() const { return m_ranks; }
    std::vector<RankReader>& ranks() { return m_ranks; }
    const RankReader* rank(int r) const;
    std::vector<std::string> keys() const; // union over ranks, in first-seen order

private:
    RunFiles m_files;
    std::vector<RankReader> m_ranks;
};

// Where a column of a record lives, for diagnostics: "file:offset".
std::string describeLocation(const PartReader& part, const RecordEntry& e);

} // namespace xt::xdl
