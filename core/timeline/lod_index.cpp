#include "core/timeline/lod_index.h"

#include <algorithm>
#include <cmath>

namespace xt::timeline {

void foldRow(std::span<const std::uint32_t> row, std::span<const std::int64_t> rowStarts,
             std::span<const std::int64_t> durs, std::uint16_t depth, const LodQuery& q,
             std::vector<LodItem>& out) {
    if (q.t1 <= q.t0 || q.widthPx <= 0 || row.empty()) return;
    const double nsPerPx = static_cast<double>(q.t1 - q.t0) / q.widthPx;
    const auto minNs = static_cast<std::int64_t>(std::ceil(nsPerPx * q.minPx));
    const std::size_t n = row.size();
    auto endAt = [&](std::size_t k) { return rowStarts[k] + durs[row[k]]; };
    // First slice ending after t0 (zero-length slices at t0 count as visible). Ends are
    // sorted because a row never overlaps itself.
    std::size_t lo = 0, hi = n;
    while (lo < hi) {
        const std::size_t mid = (lo + hi) / 2;
        const std::int64_t e = endAt(mid);
        if (e < q.t0 || (e == q.t0 && rowStarts[mid] < q.t0))
            lo = mid + 1;
        else
            hi = mid;
    }
    std::size_t i = lo;
    while (i < n && rowStarts[i] < q.t1) {
        const std::uint32_t s = row[i];
        if (durs[s] >= minNs) {
            out.push_back(LodItem{rowStarts[i], endAt(i), s, 1, depth});
            ++i;
            continue;
        }
        // Every slice starting within one minimum width of this one goes into the block. Rows
        // do not overlap, so only the last of them can be long: it is kept on its own.
        const std::int64_t limit = rowStarts[i] + std::max<std::int64_t>(minNs, 1);
        // Galloping search over the row's contiguous starts: the answer is usually near.
        std::size_t a = i + 1, step = 1;
        while (a + step < n && rowStarts[a + step] < limit) {
            a += step;
            step *= 2;
        }
        const std::size_t b = std::min(n, a + step + 1);
        const std::size_t j =
            std::lower_bound(rowStarts.begin() + a, rowStarts.begin() + b, limit) -
            rowStarts.begin();
        std::size_t blockEnd = j; // [i, blockEnd) folded
        if (j - i > 1 && durs[row[j - 1]] >= minNs) blockEnd = j - 1;
        if (blockEnd - i == 1) {
            out.push_back(LodItem{rowStarts[i], endAt(i), s, 1, depth});
        } else {
            out.push_back(LodItem{rowStarts[i], endAt(blockEnd - 1), kNoIndex,
                                  static_cast<std::uint32_t>(blockEnd - i), depth});
        }
        i = blockEnd;
    }
}

LodIndex LodIndex::build(const TraceStore& store) {
    LodIndex idx;
    const auto tracks = store.tracks();
    const auto depth = store.sliceDepth();
    idx.m_rowBegin.reserve(tracks.size() + 1);
    idx.m_slices.resize(store.sliceCount());
    idx.m_starts.resize(store.sliceCount());
    const auto starts = store.sliceStart();
    idx.m_rowOffset.push_back(0);
    std::vector<std::uint32_t> rowCount;
    for (const Track& t : tracks) {
        idx.m_rowBegin.push_back(static_cast<std::uint32_t>(idx.m_rowOffset.size() - 1));
        if (t.sliceBegin == t.sliceEnd) continue;
        rowCount.assign(std::size_t(t.maxDepth) + 1, 0);
        for (std::uint32_t s = t.sliceBegin; s < t.sliceEnd; ++s)
            ++rowCount[depth[s]];
        // Counting sort by depth keeps start order inside each row.
        std::vector<std::uint32_t> pos(rowCount.size());
        std::uint32_t acc = idx.m_rowOffset.back();
        for (std::size_t d = 0; d < rowCount.size(); ++d) {
            pos[d] = acc;
            acc += rowCount[d];
            idx.m_rowOffset.push_back(acc);
        }
        for (std::uint32_t s = t.sliceBegin; s < t.sliceEnd; ++s) {
            const std::uint32_t k = pos[depth[s]]++;
            idx.m_slices[k] = s;
            idx.m_starts[k] = starts[s];
        }
    }
    idx.m_rowBegin.push_back(static_cast<std::uint32_t>(idx.m_rowOffset.size() - 1));
    return idx;
}

void LodIndex::query(const TraceStore& store, std::uint32_t track, const LodQuery& q,
                     std::vector<LodItem>& out) const {
    const auto durs = store.sliceDuration();
    for (std::uint32_t r = m_rowBegin[track]; r < m_rowBegin[track + 1]; ++r) {
        std::span<const std::uint32_t> row(m_slices.data() + m_rowOffset[r],
                                           m_rowOffset[r + 1] - m_rowOffset[r]);
        std::span<const std::int64_t> rowStarts(m_starts.data() + m_rowOffset[r], row.size());
        foldRow(row, rowStarts, durs, static_cast<std::uint16_t>(r - m_rowBegin[track]), q, out);
    }
}

} // namespace xt::timeline
