#include "core/timeline/nesting_tracker.h"

#include "core/base/diagnostic_codes.h"

#include <algorithm>

namespace xt::timeline {

void NestingTracker::begin(const SliceRecord& s, std::uint64_t offset) {
    m_marks.push_back(Mark{s, true, offset});
}

void NestingTracker::end(std::int64_t ts, std::uint32_t order, std::uint64_t offset) {
    SliceRecord s;
    s.start = ts;
    s.order = order;
    m_marks.push_back(Mark{s, false, offset});
}

HugePageVector<SliceRecord> NestingTracker::takeSorted(std::int64_t traceEnd,
                                                       const ImportWarn& warn) {
    HugePageVector<SliceRecord> work = std::move(m_slices);
    m_slices = {};
    // B/E: stable order by time, then matched with a stack.
    std::stable_sort(m_marks.begin(), m_marks.end(),
                     [](const Mark& a, const Mark& b) { return a.slice.start < b.slice.start; });
    std::vector<const Mark*> open;
    for (const Mark& m : m_marks) {
        if (m.begin) {
            open.push_back(&m);
            continue;
        }
        if (open.empty()) {
            warn(codes::kUnmatchedEnd, m.offset, m.slice.order, "E without a matching B: skipped");
            continue;
        }
        SliceRecord s = open.back()->slice;
        open.pop_back();
        s.dur = m.slice.start - s.start;
        work.push_back(s);
    }
    for (const Mark* b : open) {
        warn(codes::kUnterminatedBegin, b->offset, b->slice.order,
             "B without E: closed at trace end");
        SliceRecord s = b->slice;
        s.dur = std::max<std::int64_t>(0, traceEnd - s.start);
        work.push_back(s);
    }
    m_marks = HugePageVector<Mark>(); // `= {}` would keep the capacity
    std::sort(work.begin(), work.end(), [](const SliceRecord& a, const SliceRecord& b) {
        if (a.start != b.start) return a.start < b.start;
        if (a.dur != b.dur) return a.dur > b.dur;
        return a.order < b.order;
    });
    return work;
}

SliceNester::Place SliceNester::place(std::uint32_t index, std::int64_t start, std::int64_t end) {
    while (!m_stack.empty() && m_stack.back().end <= start)
        m_stack.pop_back();
    Place p;
    if (!m_stack.empty()) {
        p.parent = m_stack.back().index;
        p.overlapsParent = end > m_stack.back().end;
    }
    p.depth = static_cast<std::uint16_t>(std::min<std::size_t>(m_stack.size(), 0xffff));
    m_stack.push_back(Open{end, index});
    return p;
}

} // namespace xt::timeline
