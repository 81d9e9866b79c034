#pragma once
// Level of detail: what a track shows in [t0, t1) at a given pixel width. Each depth row of a
// track holds non-overlapping slices sorted by start, so its ends are sorted too and the
// visible range is two binary searches away. Slices narrower than `minPx` are merged into
// folded blocks; a slice at least `minPx` wide is always returned on its own. The work per row
// is O(visible pixels x log n), independent of how many slices are hidden.

#include "core/timeline/trace_store.h"

#include <cstdint>
#include <span>
#include <vector>

namespace xt::timeline {

struct LodItem {
    std::int64_t start = 0;
    std::int64_t end = 0;
    std::uint32_t slice = kNoIndex; // kNoIndex for a folded block
    std::uint32_t count = 1;        // slices represented (1 for a single slice)
    std::uint16_t depth = 0;
    bool folded() const { return slice == kNoIndex; }
};

struct LodQuery {
    std::int64_t t0 = 0, t1 = 0; // visible time window, ns
    double widthPx = 1000;       // pixels across [t0, t1)
    double minPx = 1.0;          // narrower slices are folded
};

// One row: `row` lists slice indices (into `durs`), sorted by start, non-overlapping;
// `rowStarts[k]` is the start of slice row[k]. Appends the visible items to `out`. Pure.
void foldRow(std::span<const std::uint32_t> row, std::span<const std::int64_t> rowStarts,
             std::span<const std::int64_t> durs, std::uint16_t depth, const LodQuery& q,
             std::vector<LodItem>& out);

class LodIndex {
public:
    // Splits every track into depth rows. O(slices).
    static LodIndex build(const TraceStore& store);

    // Visible items of one track, row by row (depth 0 first).
    void query(const TraceStore& store, std::uint32_t track, const LodQuery& q,
               std::vector<LodItem>& out) const;

    std::size_t rowCount(std::uint32_t track) const {
        return m_rowBegin[track + 1] - m_rowBegin[track];
    }

private:
    std::vector<std::uint32_t> m_rowBegin;  // per track: first row; size tracks + 1
    std::vector<std::uint32_t> m_rowOffset; // per row: first entry in m_slices; size rows + 1
    std::vector<std::uint32_t> m_slices;    // slice indices grouped by row
    std::vector<std::int64_t> m_starts;     // their starts, contiguous per row for the searches
};

} // namespace xt::timeline
