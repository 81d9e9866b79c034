#pragma once
// The overview of a part summary (docs/SUMMARY-FORMAT.md, section 9): per block of records, the
// ranges of their steps and times and, per column, the ranges of each statistic; per column, its
// totals. About 0.1 B a record, checksummed on its own: a run of tens of millions of records shows
// its structure and every key's curves at screen resolution from it, without reading the records
// and columns (summaryOverview, then the full parse in the background).

#include "core/summary/part_summary.h"

#include <array>
#include <cstdint>
#include <span>
#include <vector>

namespace xt::summary {

inline constexpr std::uint32_t kOverviewBlock = 4096; // records per block
// The statistics a cell holds the range of, in RecordSeries::Field order (Count to L2).
inline constexpr std::size_t kOverviewFields = 10;

// Records [b * blockRecords, ...) of a part: the ranges of their steps and times, and the gsteps
// of the first and the last.
struct OverviewBlock {
    std::int64_t g0 = 0, g1 = 0, gFirst = 0, gLast = 0, l0 = 0, l1 = 0, t0 = 0, t1 = 0;
    bool operator==(const OverviewBlock&) const = default;
};

// One column over one block: its data columns, how many of them hold a NaN or an Inf, and per
// statistic the least and the greatest value (min to l2: of the columns with a finite element;
// lo > hi when there is none).
struct OverviewCell {
    std::uint32_t data = 0, nonFinite = 0;
    std::array<double, kOverviewFields> lo{}, hi{};
    bool operator==(const OverviewCell&) const = default;
    bool hasFinite() const { return lo[5] <= hi[5]; } // of the min field
};

struct Overview {
    std::uint32_t blockRecords = kOverviewBlock;
    std::uint64_t records = 0;
    std::vector<OverviewBlock> blocks;
    std::vector<ColumnTotals> totals; // per column of a record
    std::vector<OverviewCell> cells;  // column by column: cell(c, b) = cells[c * blocks + b]

    std::size_t columns() const { return totals.size(); }
    const OverviewCell& cell(std::size_t column, std::size_t block) const {
        return cells[column * blocks.size() + block];
    }
    // Blocks of `records` records; bytes of the section's payload for them, of `columns` columns.
    static std::uint64_t blocksFor(std::uint64_t records) {
        return (records + kOverviewBlock - 1) / kOverviewBlock;
    }
    static std::uint64_t encodedBytes(std::uint64_t records, std::size_t columns);
};

// Computes an overview from a part's records and columns, given in record order: addRecord for
// every record, then add for each of its columns.
class OverviewBuilder {
public:
    OverviewBuilder(std::uint64_t records, std::size_t columns);
    void addRecord(std::uint64_t record, const xdl::RecordEntry& e);
    void add(std::uint64_t record, std::size_t column, const ColumnSummary& c,
             std::span<const xdl::Shape> shapes);
    Overview finish();

private:
    Overview m_o;
};

} // namespace xt::summary
