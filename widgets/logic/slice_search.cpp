#include "widgets/logic/slice_search.h"

#include <algorithm>
#include <queue>

namespace xt::view {

using timeline::TraceStore;

namespace {

constexpr std::size_t kSlicesPerReport = std::size_t(1) << 16;
constexpr std::size_t kStringChunk = std::size_t(1) << 12;

Status cancelled() {
    return Status(ErrorCode::Cancelled, "search cancelled");
}

} // namespace

bool containsIgnoreCase(std::string_view h, std::string_view n) {
    if (n.empty()) return true;
    if (n.size() > h.size()) return false;
    auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? char(c - 'A' + 'a') : c; };
    const char first = lower(n[0]);
    for (std::size_t i = 0; i + n.size() <= h.size(); ++i) {
        if (lower(h[i]) != first) continue;
        std::size_t k = 1;
        while (k < n.size() && lower(h[i + k]) == lower(n[k]))
            ++k;
        if (k == n.size()) return true;
    }
    return false;
}

Result<std::vector<SliceHit>> findSlices(std::span<const TraceStore* const> layers,
                                         std::string_view needle,
                                         const ProgressCallback& progress) {
    std::vector<SliceHit> hits;
    if (needle.empty()) return hits;
    // Units: every string and slice examined, then every slice again while the hits are ordered.
    std::uint64_t total = 0, done = 0;
    for (const TraceStore* s : layers)
        total += s->strings().size() + 2 * s->sliceCount();
    std::vector<char> match;
    std::vector<std::uint32_t> found; // matching slices in table order
    std::vector<std::size_t> runs;    // where found's start order restarts (a new track)
    for (std::uint32_t li = 0; li < layers.size(); ++li) {
        const TraceStore& s = *layers[li];
        const std::size_t strings = s.strings().size(), n = s.sliceCount();
        match.assign(strings, 0);
        bool any = false;
        for (std::size_t b = 0; b < strings; b += kStringChunk) {
            const std::size_t e = std::min(strings, b + kStringChunk);
            for (std::size_t id = std::max<std::size_t>(b, 1); id < e; ++id)
                if (containsIgnoreCase(s.str(timeline::StringId(id)), needle)) {
                    match[id] = 1;
                    any = true;
                }
            done += e - b;
            if (!reportProgress(progress, done, total, "searching")) return cancelled();
        }
        if (!any) {
            done += 2 * n;
            continue;
        }
        // The name column in chunks. Slices are grouped by track and sorted by start inside
        // one, so `found` is a few sorted runs.
        const auto names = s.sliceName();
        const auto starts = s.sliceStart();
        found.clear();
        runs.assign(1, 0);
        for (std::size_t b = 0; b < n; b += kSlicesPerReport) {
            const std::size_t e = std::min(n, b + kSlicesPerReport);
            for (std::size_t i = b; i < e; ++i)
                if (match[names[i]]) {
                    if (!found.empty() && starts[i] < starts[found.back()])
                        runs.push_back(found.size());
                    found.push_back(std::uint32_t(i));
                }
            done += e - b;
            if (!reportProgress(progress, done, total, "searching")) return cancelled();
        }
        runs.push_back(found.size());
        // Merge the runs by (start, slice index): the order a stable sort by start would give.
        const std::uint64_t base = done;
        hits.reserve(hits.size() + found.size());
        if (runs.size() == 2) {
            for (std::uint32_t i : found)
                hits.push_back({li, i});
        } else {
            struct Head {
                std::int64_t start;
                std::uint32_t slice;
                std::uint32_t run;
            };
            auto later = [](const Head& a, const Head& b) {
                return a.start != b.start ? a.start > b.start : a.slice > b.slice;
            };
            std::priority_queue<Head, std::vector<Head>, decltype(later)> heap(later);
            std::vector<std::size_t> next(runs.begin(), runs.end() - 1);
            for (std::uint32_t r = 0; r + 1 < runs.size(); ++r)
                heap.push({starts[found[next[r]]], found[next[r]], r});
            std::size_t ordered = 0;
            while (!heap.empty()) {
                const Head h = heap.top();
                heap.pop();
                hits.push_back({li, h.slice});
                if (++next[h.run] < runs[h.run + 1]) {
                    const std::uint32_t i = found[next[h.run]];
                    heap.push({starts[i], i, h.run});
                }
                if (++ordered % kSlicesPerReport == 0 &&
                    !reportProgress(progress, base + n * ordered / found.size(), total, "ordering"))
                    return cancelled();
            }
        }
        done = base + n;
    }
    reportProgress(progress, total, total, "searching");
    return hits;
}

} // namespace xt::view
