#pragma once
// The summary of one XDL part file: its record index and, for every column of every record, where
// the column's bytes are, its dtype and shape, its statistics (as the CPU backend computes them)
// and a coarse histogram sketch. Summaries are what a run opens from: the cost of opening follows
// the number of records, not the bytes. The file format is docs/SUMMARY-FORMAT.md.

#include "core/analysis/tensor_stats.h"
#include "core/base/diagnostics.h"
#include "core/base/mapped_file.h"
#include "core/base/status.h"
#include "core/xdl/record_index.h"

#include <array>
#include <climits>
#include <cstdint>
#include <functional>
#include <iterator>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace xt::summary {

// What a summary was computed from. A summary is valid for a file with exactly this identity; it
// can be extended for a file that grew from it (same head, same bytes before `size`).
struct PartIdentity {
    std::string source;          // absolute path, or the hdfs:// URL of a remote part
    std::uint64_t size = 0;      // bytes of the part covered by the summary
    std::int64_t mtimeNs = 0;    // modification time of the part when summarised
    std::uint64_t headPrint = 0; // fingerprint of the first min(size, kPrintBytes) bytes
    std::uint64_t tailPrint = 0; // fingerprint of the last min(size, kPrintBytes) bytes
    static constexpr std::uint64_t kPrintBytes = 4096;
};

enum class ColumnState : std::uint8_t { Data, Empty, Damaged };

inline constexpr int kSketchBins = 32;
// Columns with fewer elements than this get no sketch.
inline constexpr std::uint64_t kSketchMinElements = 2 * kSketchBins;

inline constexpr std::uint32_t kNone = 0xffffffffu;

inline constexpr std::size_t kColumnBytes = 96; // a column's size in the file (section 5)

struct ColumnSummary {
    std::uint64_t dataOffset = 0; // of the column's data in the part file
    std::uint64_t dataLength = 0;
    std::int32_t wireDtype = 0;
    ColumnState state = ColumnState::Data;
    std::uint8_t problem = 0;     // xdl::ColumnProblem when Damaged
    std::uint32_t shape = kNone;  // index into PartSummary::shapes
    std::uint32_t sketch = kNone; // index into PartSummary::sketches, kNone without one
    analysis::TensorStats stats;  // Data columns only
};

// Counts of a column's finite elements in kSketchBins equal bins over [stats.min, stats.max]
// (numpy's bin rule; all in bin 0 when min == max): enough for an approximate
// histogram-over-steps. Only Data columns with >= kSketchMinElements elements, some finite.
using Sketch = std::array<std::uint32_t, kSketchBins>;

// The columns of a summary, in record order: built in memory (SummaryBuilder), or, for a large
// summary read from its file, left in the mapped file and decoded when read (96 bytes each: a run
// of small records has GBs of them, and holding them parsed doubled the memory of opening it).
class ColumnTable {
public:
    std::size_t size() const { return m_count + m_built.size(); }
    bool isMapped() const { return m_file != nullptr; }
    // Column i, of a record at byte `recordOffset` of the part.
    ColumnSummary at(std::size_t i, std::uint64_t recordOffset) const {
        return i < m_count ? decode(i, recordOffset) : m_built[i - m_count];
    }
    // The columns to change or add to, after any spilled (PartSummary::spillColumns); a mapped
    // table throws (PartSummary::materialize).
    std::vector<ColumnSummary>& built();
    // Gives back the mapped pages of columns [first, last) (nothing when built).
    void release(std::size_t first, std::size_t last) const;
    // A mapped table's bytes: the payload of section 5 that holds its columns.
    std::span<const std::uint8_t> encoded() const {
        return m_file->bytes().subspan(m_begin, m_count * kColumnBytes);
    }
    // `count` columns in `file` from byte `begin` on (checked by the parser).
    static ColumnTable mapped(std::shared_ptr<const MappedFile> file, std::size_t begin,
                              std::size_t count);

private:
    ColumnSummary decode(std::size_t i, std::uint64_t recordOffset) const;

    friend struct PartSummary; // spills columns
    std::vector<ColumnSummary> m_built;
    std::shared_ptr<const MappedFile> m_file;
    // The columns before m_built: in m_file from byte m_begin, or spilled and not mapped yet.
    std::size_t m_begin = 0, m_count = 0;
};

// The records of a summary (the part's record index): built in memory, or, with a mapped
// ColumnTable, left in the summary's record section, whose 40-byte entries are RecordEntry's
// layout. A part reader opened from the summary reads the same entries (IndexState::mapped).
// While a summary is built from a reader's index, they are that index's (borrowed).
class RecordTable {
public:
    std::span<const xdl::RecordEntry> view() const {
        return m_file || m_borrowed ? m_mapped : std::span<const xdl::RecordEntry>(m_built);
    }
    std::size_t size() const { return view().size(); }
    bool empty() const { return view().empty(); }
    const xdl::RecordEntry& operator[](std::size_t i) const { return view()[i]; }
    const xdl::RecordEntry& front() const { return view().front(); }
    const xdl::RecordEntry& back() const { return view().back(); }
    auto begin() const { return view().begin(); }
    auto end() const { return view().end(); }
    // The records to change or add to (a mapped or borrowed table throws: materialize).
    xdl::RecordList& built();
    bool inPlace() const { return m_file || m_borrowed; } // mapped or borrowed
    // Copies records held in place into the table (nothing to do for built ones).
    void own();
    const std::shared_ptr<const MappedFile>& file() const { return m_file; }
    // What keeps records in place readable (their file, or a borrowed table's keep); null when
    // built, or borrowed without a keep.
    std::shared_ptr<const void> keep() const {
        return m_file ? std::shared_ptr<const void>(m_file) : m_keep;
    }
    // Gives back the mapped pages of records [first, last) (nothing when built, or borrowed
    // without a keep).
    void release(std::size_t first, std::size_t last) const;
    // For a pass front to back at record `passed`: release() of [releasedTo, passed), 64 Ki
    // records at a time or at the end (as RecordIndex::releaseBehind); moves releasedTo.
    void releaseBehind(std::size_t passed, std::size_t& releasedTo) const;
    static RecordTable mapped(std::shared_ptr<const MappedFile> file,
                              std::span<const xdl::RecordEntry> records);
    // Records that stay where they are: in a file mapping held by `keep` (IndexState::keep), or,
    // without one, records that must outlive the table (or its materialize()).
    static RecordTable borrowed(std::span<const xdl::RecordEntry> records,
                                std::shared_ptr<const void> keep = {});

private:
    xdl::RecordList m_built;
    std::shared_ptr<const MappedFile> m_file;
    std::shared_ptr<const void> m_keep;         // of borrowed records
    std::span<const xdl::RecordEntry> m_mapped; // in m_file, or borrowed
    bool m_borrowed = false;
};

// The columns of one record: a range of ColumnSummary values.
class RecordColumns {
public:
    class iterator {
    public:
        using iterator_category = std::input_iterator_tag;
        using value_type = ColumnSummary;
        using difference_type = std::ptrdiff_t;
        iterator(const RecordColumns* r, std::size_t i) : m_r(r), m_i(i) {}
        ColumnSummary operator*() const { return (*m_r)[m_i]; }
        iterator& operator++() { return ++m_i, *this; }
        bool operator==(const iterator& o) const { return m_i == o.m_i; }

    private:
        const RecordColumns* m_r;
        std::size_t m_i;
    };
    RecordColumns(const ColumnTable& t, std::size_t first, std::size_t last, std::uint64_t offset)
        : m_t(&t), m_first(first), m_last(last), m_offset(offset) {}
    std::size_t size() const { return m_last - m_first; }
    ColumnSummary operator[](std::size_t c) const { return m_t->at(m_first + c, m_offset); }
    iterator begin() const { return {this, 0}; }
    iterator end() const { return {this, size()}; }

private:
    const ColumnTable* m_t;
    std::size_t m_first, m_last;
    std::uint64_t m_offset; // the record's
};

inline constexpr std::uint64_t kNoRecord = ~std::uint64_t(0);

// What one column (one key) of a part holds over its records, counted as the columns are read or
// built: key summaries and where NaN/Inf first appear then need no pass over the columns.
struct ColumnTotals {
    std::uint64_t data = 0, empty = 0, damaged = 0; // columns by state
    std::int32_t wireDtype = 0;                     // of the first data column
    std::uint32_t shape = kNone;                    // of the first data column
    bool mixedDtypes = false, varyingShape = false; // among the data columns
    // The first records (numbered in the part) with a NaN / an Inf, and how many they hold.
    std::uint64_t firstNan = kNoRecord, firstInf = kNoRecord;
    std::uint64_t nanElements = 0, infElements = 0;

    void add(const ColumnSummary& c, std::uint64_t record, std::span<const xdl::Shape> shapes);
    bool operator==(const ColumnTotals&) const = default;
};

struct Overview; // overview.h

// Where each record's columns start (record r's are [at(r), at(r + 1))), as a vector of
// records + 1 entries. While every record has the same number of columns, as records of a part
// with a header do, nothing is stored: a run of 50 M records held 400 MB of them.
class ColumnStarts {
public:
    std::size_t size() const { return m_v.empty() ? m_count : m_v.size(); }
    std::uint64_t operator[](std::size_t r) const { return m_v.empty() ? r * m_stride : m_v[r]; }
    std::uint64_t back() const { return (*this)[size() - 1]; }
    void push_back(std::uint64_t v);
    // Fewer entries (at least one); a vector's resize otherwise.
    void resize(std::size_t n);
    void reserve(std::size_t n) {
        if (!m_v.empty()) m_v.reserve(n);
    }
    std::size_t capacity() const { return m_v.empty() ? SIZE_MAX : m_v.capacity(); }
    void reset() { *this = {}; }
    // Whether the starts are held (records of varying column counts).
    bool held() const { return !m_v.empty(); }
    bool operator==(const ColumnStarts& o) const;

private:
    void hold();
    std::vector<std::uint64_t> m_v; // when held
    std::size_t m_count = 1;        // entries, when not held: at(r) = r * m_stride
    std::uint64_t m_stride = 0;
};

// Takes one key's columns from a summary file while its parse checks them: a pass over them
// afterwards would read (and fault in) GBs of columns a second time. The parse calls select()
// once with the part's keys, add() for the selected column of each record in record order, and
// finish() with the count of records once every column is checked.
class ColumnSink {
public:
    virtual ~ColumnSink() = default;
    // The column of each record to take (an index into keys); negative takes none.
    virtual int select(std::span<const std::string> keys) = 0;
    virtual void add(std::size_t record, const xdl::RecordEntry& e, const ColumnSummary& c) = 0;
    virtual void finish(std::size_t records) = 0;
};
// Makes a sink for each summary file parsed; the sink of a summary that is used goes with it
// (PartSummary::taken).
using ColumnTap = std::function<std::shared_ptr<ColumnSink>()>;

struct PartSummary {
    PartIdentity identity;
    // The RecordIndex state the summary covers (records up to scannedTo <= identity.size).
    bool hasHeader = false;
    bool startChecked = false;
    bool tailReported = false;
    std::uint64_t headerLength = 0;
    std::uint64_t scannedTo = 0;
    std::vector<std::string> keys; // from the part's header; empty without one
    RecordTable records;
    // Records whose columns do not decode (ascending); they have no columns here.
    std::vector<std::uint64_t> damagedRecords;
    // Columns of record r are columns[columnStart[r] .. columnStart[r + 1]).
    ColumnStarts columnStart;
    ColumnTable columns;
    std::vector<xdl::Shape> shapes; // distinct shapes, referenced by ColumnSummary::shape
    std::vector<Sketch> sketches;
    std::vector<ColumnTotals> totals; // per column of a record (the part's keys in order)
    // What indexing the part reported (file left empty: it is the part), replayed on open.
    std::vector<Diagnostic> indexDiagnostics;
    // What a ColumnTap took of this summary's columns as its file was parsed (null without one).
    std::shared_ptr<ColumnSink> taken;
    // The file's overview section (checked against the columns), or, from peekSummary, what
    // stands for the columns; null when the file has none.
    std::shared_ptr<const Overview> overview;

    std::size_t recordCount() const { return records.size(); }
    RecordColumns columnsOf(std::size_t record) const {
        return {columns, columnStart[record], columnStart[record + 1], records[record].offset};
    }
    // Copies mapped or borrowed records and decodes mapped columns into built ones, to be
    // extended or changed.
    void materialize();
    // A first build of a part of small records has GBs of columns: it writes them as it goes,
    // in the format's encoding, to `fd` (an unlinked file): every built column, those of the
    // records from `firstRecord` to the last with columns. Once done, it maps them to read them.
    Status spillColumns(int fd, std::size_t firstRecord);
    Status mapSpilledColumns(int fd);
    // Adds record `record`'s columns to the totals (in record order); recountTotals starts over.
    void countColumns(std::size_t record);
    void recountTotals();
    // For a pass over the records front to back: gives back the mapped pages of records
    // [*releasedTo, record) and of their columns once there are many, and moves *releasedTo.
    // `record` = recordCount() gives back the rest.
    void releaseBehind(std::size_t record, std::size_t& releasedTo) const;
    bool isDamaged(std::size_t record) const;
    const xdl::Shape& shapeOf(const ColumnSummary& c) const; // an empty shape for kNone
    // The index state, to seed a RecordIndex / PartReader (mapped records are not copied).
    xdl::IndexState indexState() const;
};

// The summary file's bytes (versioned, checksummed) and back. parseSummary reports any damage,
// truncation, inconsistency (Corrupt) or version mismatch (Unsupported) with `name` and the byte
// offset, also stored in *errorOffset when given. It allocates only in proportion to the bytes.
std::string serializeSummary(const PartSummary& s);
// The same bytes handed to `sink` in pieces of a few MB (a summary of GBs is never held whole);
// the sink's first failure is returned.
Status writeSummary(const PartSummary& s, const std::function<Status(std::string_view)>& sink);
Result<PartSummary> parseSummary(std::span<const std::uint8_t> bytes, const std::string& name,
                                 std::uint64_t* errorOffset = nullptr);
// The same from a mapped summary file, whose pages are given back as they are read. A summary
// with more than `inPlaceAbove` bytes of columns keeps them and its records in the file
// (ColumnTable, RecordTable). A `tap`'s sink is handed the columns it selects along the parse.
inline constexpr std::uint64_t kMappedColumnsAbove = 1u << 20;
Result<PartSummary> parseSummary(std::shared_ptr<const MappedFile> file, const std::string& name,
                                 std::uint64_t* errorOffset = nullptr,
                                 std::uint64_t inPlaceAbove = kMappedColumnsAbove,
                                 const ColumnTap& tap = {});

// Only what the overview section of a mapped summary file needs (docs/SUMMARY-FORMAT.md,
// section 9), checked by its own checksum: the header and the sections' places, the part's
// identity and scan state, keys, shapes, damaged records, the overview and its totals. The
// records are left in the file unchecked and there are no columns: such a summary is for showing
// a run at once, until the full parse has checked it. NotFound when the file has no overview.
Result<PartSummary> peekSummary(std::shared_ptr<const MappedFile> file, const std::string& name,
                                std::uint64_t* errorOffset = nullptr);

// The functions of the format: the checksum (CRC-32 as zlib's), FNV-1a 64 (byte-wise; names in
// the cache) and the fingerprint of PartIdentity (FNV-1a 64 over 8-byte words, then the length).
// crc32 continues from the CRC of the bytes before (zlib's crc32(crc, buf)).
std::uint32_t crc32(std::span<const std::uint8_t> bytes, std::uint32_t before = 0);
std::uint64_t fnv1a64(std::span<const std::uint8_t> bytes);
std::uint64_t fingerprint(std::span<const std::uint8_t> bytes);

} // namespace xt::summary
