#include "core/timeline/lod_index.h"

#include <algorithm>
#include <cmath>

namespace xt::timeline {

void foldRow(std::span<const std::uint32_t> row, std::span<const std::int64_t> starts,
             std::span<const std::int64_t> durs, std::uint16_t depth, const LodQuery& q,
             std::vector<LodItem>& out) {
    if (q.t1 <= q.t0 || q.widthPx <= 0 || row.empty()) return;
    const double nsPerPx = static_cast<double>(q.t1 - q.t0) / q.widthPx;
    const auto minNs = static_cast<std::int64_t>(std::ceil(nsPerPx * q.minPx));
    auto endOf = [&](std::uint32_t s) { return starts[s] + durs[s]; };
    // First slice ending after t0 (zero-length slices at t0 count as visible).
    std::size_t i =
        std::partition_point(row.begin(), row.end(),
                             [&](std::uint32_t s) {
                                 return endOf(s) < q.t0 || (endOf(s) == q.t0 && starts[s] < q.t0);
                             }) -
        row.begin();
    const std::size_t n = row.size();
    while (i < n && starts[row[i]] < q.t1) {
        const std::uint32_t s = row[i];
        if (durs[s] >= minNs) {
            out.push_back(LodItem{starts[s], endOf(s), s, 1, depth});
            ++i;
            continue;
        }
        // Every slice starting within one minimum width of this one goes into the block. Rows
        // do not overlap, so only the last of them can be long: it is kept on its own.
        const std::int64_t limit = starts[s] + std::max<std::int64_t>(minNs, 1);
        // Galloping search: the answer is usually a few slices ahead.
        std::size_t lo = i + 1, step = 1;
        while (lo + step < n && starts[row[lo + step]] < limit) {
            lo += step;
            step *= 2;
        }
        const std::size_t hi = std::min(n, lo + step + 1);
        std::size_t j = std::partition_point(row.begin() + lo, row.begin() + hi,
                                             [&](std::uint32_t x) { return starts[x] < limit; }) -
                        row.begin();
        std::size_t blockEnd = j; // [i, blockEnd) folded
        if (j - i > 1 && durs[row[j - 1]] >= minNs) blockEnd = j - 1;
        if (blockEnd - i == 1) {
            out.push_back(LodItem{starts[s], endOf(s), s, 1, depth});
        } else {
            out.push_back(LodItem{starts[s], endOf(row[blockEnd - 1]), kNoIndex,
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
        for (std::uint32_t s = t.sliceBegin; s < t.sliceEnd; ++s)
            idx.m_slices[pos[depth[s]]++] = s;
    }
    idx.m_rowBegin.push_back(static_cast<std::uint32_t>(idx.m_rowOffset.size() - 1));
    return idx;
}

void LodIndex::query(const TraceStore& store, std::uint32_t track, const LodQuery& q,
                     std::vector<LodItem>& out) const {
    const auto starts = store.sliceStart();
    const auto durs = store.sliceDuration();
    for (std::uint32_t r = m_rowBegin[track]; r < m_rowBegin[track + 1]; ++r) {
        std::span<const std::uint32_t> row(m_slices.data() + m_rowOffset[r],
                                           m_rowOffset[r + 1] - m_rowOffset[r]);
        foldRow(row, starts, durs, static_cast<std::uint16_t>(r - m_rowBegin[track]), q, out);
    }
}

} // namespace xt::timeline
