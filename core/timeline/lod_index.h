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

// The one level-of-detail structure of a store: every track split into depth rows, and the same
// rows coarsened, their slices shorter than a grain (default: the trace's span / 65536) merged
// into blocks (a block spans less than two grains; longer slices stay alone). A window whose
// fold width is at least 4 grains folds the coarse rows, O(entries) however many millions of
// tiny slices are underneath, and gives the same picture; narrower windows fold the full rows.
class LodIndex {
public:
    // Both levels, O(slices). Built off the GUI thread (the loaders).
    static LodIndex build(const TraceStore& store, std::int64_t grainNs = 0);

    // Visible items of one track, row by row (depth 0 first), from the level the window needs;
    // `count` is always the number of real slices an item stands for.
    void query(const TraceStore& store, std::uint32_t track, const LodQuery& q,
               std::vector<LodItem>& out) const;
    // The full rows, whatever the window.
    void queryFull(const TraceStore& store, std::uint32_t track, const LodQuery& q,
                   std::vector<LodItem>& out) const;
    // Whether query() answers `q` from the coarse rows.
    bool coarseCovers(const LodQuery& q) const;

    std::size_t rowCount(std::uint32_t track) const {
        return m_rowBegin[track + 1] - m_rowBegin[track];
    }
    std::int64_t grain() const { return m_grain; }
    std::size_t coarseEntries() const { return m_cStart.size(); }

private:
    void buildCoarse(const TraceStore& store, std::int64_t grainNs);
    void queryCoarse(std::uint32_t track, const LodQuery& q, std::vector<LodItem>& out) const;

    std::vector<std::uint32_t> m_rowBegin;  // per track: first row; size tracks + 1
    std::vector<std::uint32_t> m_rowOffset; // per row: first entry in m_slices; size rows + 1
    std::vector<std::uint32_t> m_slices;    // slice indices grouped by row
    std::vector<std::int64_t> m_starts;     // their starts, contiguous per row for the searches
    // The coarse rows (the same rows as above).
    std::int64_t m_grain = 1;
    std::vector<std::uint32_t> m_cOffset; // per row: first coarse entry; size rows + 1
    std::vector<std::int64_t> m_cStart, m_cDur;
    std::vector<std::uint32_t> m_cSlice; // the real slice, kNoIndex for a merged block
    std::vector<std::uint64_t> m_cCum;   // slices before each entry in its row (entries + rows)
    std::vector<std::uint32_t> m_iota;   // 0, 1, 2... (entry indices for foldRow)
};

} // namespace xt::timeline
