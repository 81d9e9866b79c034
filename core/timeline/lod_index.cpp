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

LodIndex LodIndex::build(const TraceStore& store, std::int64_t grainNs) {
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
    idx.buildCoarse(store, grainNs);
    return idx;
}

void LodIndex::buildCoarse(const TraceStore& store, std::int64_t grainNs) {
    // Times can be any int64 (a damaged trace): their difference is taken unsigned, at most
    // INT64_MAX.
    const std::uint64_t width = std::uint64_t(store.endTime()) - std::uint64_t(store.beginTime());
    const std::int64_t span =
        store.beginTime() == kNoTime
            ? 1
            : std::max<std::int64_t>(1, std::int64_t(std::min<std::uint64_t>(width, INT64_MAX)));
    m_grain = grainNs > 0 ? grainNs : std::max<std::int64_t>(1, span / 65536);
    const auto durs = store.sliceDuration();
    const std::size_t rows = m_rowOffset.size() - 1;
    m_cOffset.reserve(rows + 1);
    m_cOffset.push_back(0);
    std::size_t longest = 0;
    for (std::size_t r = 0; r < rows; ++r) {
        // The open entry: a block of short slices starting within one grain of its first, or a
        // long slice alone.
        std::int64_t start = 0, end = 0;
        std::uint32_t slice = kNoIndex;
        std::uint64_t count = 0, cum = 0;
        auto flush = [&] {
            if (!count) return;
            m_cStart.push_back(start);
            m_cDur.push_back(end - start);
            m_cSlice.push_back(slice);
            m_cCum.push_back(cum);
            cum += count;
            count = 0;
        };
        for (std::uint32_t k = m_rowOffset[r]; k < m_rowOffset[r + 1]; ++k) {
            const std::uint32_t s = m_slices[k];
            const std::int64_t a = m_starts[k], b = a + durs[s];
            if (count && durs[s] < m_grain && a < start + m_grain) {
                end = std::max(end, b);
                slice = kNoIndex;
                ++count;
                continue;
            }
            flush();
            start = a;
            end = b;
            slice = s;
            count = 1;
            if (durs[s] >= m_grain) flush(); // long: alone
        }
        flush();
        m_cCum.push_back(cum); // the row's total, one past its last entry
        m_cOffset.push_back(static_cast<std::uint32_t>(m_cStart.size()));
        longest = std::max<std::size_t>(longest, m_cOffset[r + 1] - m_cOffset[r]);
    }
    m_iota.resize(longest);
    for (std::size_t i = 0; i < longest; ++i)
        m_iota[i] = static_cast<std::uint32_t>(i);
}

bool LodIndex::coarseCovers(const LodQuery& q) const {
    if (q.t1 <= q.t0 || q.widthPx <= 0) return false;
    return double(q.t1 - q.t0) / q.widthPx * q.minPx >= 4.0 * double(m_grain);
}

void LodIndex::query(const TraceStore& store, std::uint32_t track, const LodQuery& q,
                     std::vector<LodItem>& out) const {
    if (coarseCovers(q))
        queryCoarse(track, q, out);
    else
        queryFull(store, track, q, out);
}

void LodIndex::queryCoarse(std::uint32_t track, const LodQuery& q,
                           std::vector<LodItem>& out) const {
    for (std::uint32_t r = m_rowBegin[track]; r < m_rowBegin[track + 1]; ++r) {
        const std::uint32_t b = m_cOffset[r], n = m_cOffset[r + 1] - b;
        const std::size_t first = out.size();
        // Entry k of the row is m_c*[b + k]; its cumulative count is m_cCum[b + r + k].
        const std::span<const std::int64_t> starts(m_cStart.data() + b, n);
        foldRow(std::span<const std::uint32_t>(m_iota.data(), n), starts,
                std::span<const std::int64_t>(m_cDur.data() + b, n),
                static_cast<std::uint16_t>(r - m_rowBegin[track]), q, out);
        // foldRow walks the entries in order, each item taking the next run of them: follow it
        // with a cursor to turn entry runs into real slice counts.
        const std::uint64_t* cum = m_cCum.data() + b + r;
        const std::int64_t* dur = m_cDur.data() + b;
        std::size_t lo = 0, hi = n; // foldRow's first visible entry
        while (lo < hi) {
            const std::size_t mid = (lo + hi) / 2;
            const std::int64_t e = starts[mid] + dur[mid];
            if (e < q.t0 || (e == q.t0 && starts[mid] < q.t0))
                lo = mid + 1;
            else
                hi = mid;
        }
        const double nsPerPx = double(q.t1 - q.t0) / q.widthPx;
        const auto minNs = std::max<std::int64_t>(std::int64_t(std::ceil(nsPerPx * q.minPx)), 1);
        std::size_t cursor = lo;
        for (std::size_t i = first; i < out.size(); ++i) {
            LodItem& it = out[i];
            if (!it.folded()) {
                const std::uint32_t k = it.slice;
                it.slice = m_cSlice[b + k];
                it.count = static_cast<std::uint32_t>(cum[k + 1] - cum[k]);
                cursor = std::size_t(k) + 1;
                continue;
            }
            std::size_t end =
                std::size_t(std::lower_bound(starts.begin() + std::ptrdiff_t(cursor) + 1,
                                             starts.end(), it.start + minNs) -
                            starts.begin());
            if (i + 1 < out.size() && !out[i + 1].folded())
                end = std::min<std::size_t>(end, out[i + 1].slice);
            it.count = static_cast<std::uint32_t>(cum[end] - cum[cursor]);
            cursor = end;
        }
    }
}

void LodIndex::queryFull(const TraceStore& store, std::uint32_t track, const LodQuery& q,
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
