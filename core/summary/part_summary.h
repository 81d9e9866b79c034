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
#include <cstdint>
#include <span>
#include <string>
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

struct PartSummary {
    PartIdentity identity;
    // The RecordIndex state the summary covers (records up to scannedTo <= identity.size).
    bool hasHeader = false;
    bool startChecked = false;
    bool tailReported = false;
    std::uint64_t headerLength = 0;
    std::uint64_t scannedTo = 0;
    std::vector<std::string> keys; // from the part's header; empty without one
    std::vector<xdl::RecordEntry> records;
    // Records whose columns do not decode (ascending); they have no columns here.
    std::vector<std::uint64_t> damagedRecords;
    // Columns of record r are columns[columnStart[r] .. columnStart[r + 1]).
    std::vector<std::uint64_t> columnStart{0};
    std::vector<ColumnSummary> columns;
    std::vector<xdl::Shape> shapes; // distinct shapes, referenced by ColumnSummary::shape
    std::vector<Sketch> sketches;
    // What indexing the part reported (file left empty: it is the part), replayed on open.
    std::vector<Diagnostic> indexDiagnostics;

    std::size_t recordCount() const { return records.size(); }
    std::span<const ColumnSummary> columnsOf(std::size_t record) const {
        return {columns.data() + columnStart[record], columns.data() + columnStart[record + 1]};
    }
    bool isDamaged(std::size_t record) const;
    const xdl::Shape& shapeOf(const ColumnSummary& c) const; // an empty shape for kNone
    // A copy of the index state, to seed a RecordIndex / PartReader.
    xdl::IndexState indexState() const;
};

// The summary file's bytes (versioned, checksummed) and back. parseSummary reports any damage,
// truncation, inconsistency (Corrupt) or version mismatch (Unsupported) with `name` and the byte
// offset, also stored in *errorOffset when given. It allocates only in proportion to the bytes.
std::string serializeSummary(const PartSummary& s);
Result<PartSummary> parseSummary(std::span<const std::uint8_t> bytes, const std::string& name,
                                 std::uint64_t* errorOffset = nullptr);
// The same from a mapped summary file, whose pages are given back as they are read: a run of
// small records has summaries of GBs, and the parsed summary is what must stay.
Result<PartSummary> parseSummary(const MappedFile& file, const std::string& name,
                                 std::uint64_t* errorOffset = nullptr);

// The functions of the format: the checksum (CRC-32 as zlib's), FNV-1a 64 (byte-wise; names in
// the cache) and the fingerprint of PartIdentity (FNV-1a 64 over 8-byte words, then the length).
// crc32 continues from the CRC of the bytes before (zlib's crc32(crc, buf)).
std::uint32_t crc32(std::span<const std::uint8_t> bytes, std::uint32_t before = 0);
std::uint64_t fnv1a64(std::span<const std::uint8_t> bytes);
std::uint64_t fingerprint(std::span<const std::uint8_t> bytes);

} // namespace xt::summary
