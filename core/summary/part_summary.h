#pragma once
// The summary of one XDL part file: its record index and, for every column of every record, where
// the column's bytes are, its dtype and shape, its statistics (as the CPU backend computes them)
// and a coarse histogram sketch. Summaries are what a run opens from: the cost of opening follows
// the number of records, not the bytes. The file format is docs/SUMMARY-FORMAT.md.

#include "core/analysis/tensor_stats.h"
#include "core/base/status.h"
#include "core/xdl/record_index.h"

#include <array>
#include <cstdint>
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
// (all in bin 0 when min == max): enough for an approximate histogram-over-steps.
using Sketch = std::array<std::uint32_t, kSketchBins>;

struct PartSummary {
    PartIdentity identity;
    // The RecordIndex state the summary covers (records up to identity.size).
    bool hasHeader = false;
    std::uint64_t headerLength = 0;
    std::vector<std::string> keys; // from the part's header; empty without one
    std::vector<xdl::RecordEntry> records;
    // Columns of record r are columns[columnStart[r] .. columnStart[r + 1]).
    std::vector<std::uint64_t> columnStart{0};
    std::vector<ColumnSummary> columns;
    std::vector<xdl::Shape> shapes; // distinct shapes, referenced by ColumnSummary::shape
    std::vector<Sketch> sketches;

    std::size_t recordCount() const { return records.size(); }
    std::span<const ColumnSummary> columnsOf(std::size_t record) const {
        return {columns.data() + columnStart[record], columns.data() + columnStart[record + 1]};
    }
};

// The summary file's bytes (versioned, checksummed) and back. parseSummary reports any damage,
// truncation or version mismatch as Corrupt/Unsupported with `name` and the byte offset.
std::string serializeSummary(const PartSummary& s);
Result<PartSummary> parseSummary(std::span<const std::uint8_t> bytes, const std::string& name);

} // namespace xt::summary
