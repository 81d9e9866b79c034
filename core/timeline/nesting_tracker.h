#pragma once
// The slices of one thread: complete (X) slices as they come, begin/end (B/E) pairs matched by
// a stack in time order, then all of them sorted by start (longer first, then arrival) and
// nested: each slice's parent is the latest earlier slice still open at its start.

#include "core/base/huge_pages.h"
#include "core/timeline/import_report.h"
#include "core/timeline/string_table.h"
#include "core/timeline/trace_store.h"

#include <cstdint>
#include <vector>

namespace xt::timeline {

struct SliceRecord {
    std::int64_t start = 0, dur = 0; // ns
    StringId name = 0, cat = 0;
    ArgsRef args;
    std::uint32_t order = 0; // arrival (record number); equal slices keep it
    StringId bindId = 0;     // flow v2 (bind_id), 0 when none
    std::uint8_t flow = 0;   // FlowFlags (flow_tracker.h)
};

class NestingTracker {
public:
    void complete(const SliceRecord& s) { m_slices.push_back(s); }
    // A B event (`s.dur` unused) and an E event; offsets locate diagnostics.
    void begin(const SliceRecord& s, std::uint64_t offset);
    void end(std::int64_t ts, std::uint32_t order, std::uint64_t offset);
    // Every slice in display order, the tracker left empty. An E with no open B is skipped
    // ("unmatched-end"); a B never ended lasts until traceEnd ("unterminated-begin").
    HugePageVector<SliceRecord> takeSorted(std::int64_t traceEnd, const ImportWarn& warn);
    // At most this many slices come out of takeSorted: the X slices and one per B.
    std::size_t sliceBound() const { return m_slices.size() + m_marks.size(); }

private:
    struct Mark {
        SliceRecord slice; // for an E only start and order count
        bool begin = false;
        std::uint64_t offset = 0;
    };
    HugePageVector<SliceRecord> m_slices;
    HugePageVector<Mark> m_marks;
};

// Depth and parent of sorted slices, fed one by one. A slice that starts inside its parent but
// ends after it overlaps it: it is still drawn one row deeper, and counted.
class SliceNester {
public:
    struct Place {
        std::uint16_t depth = 0;
        std::uint32_t parent = kNoIndex; // the `index` it was placed with
        bool overlapsParent = false;
    };
    Place place(std::uint32_t index, std::int64_t start, std::int64_t end);

private:
    struct Open {
        std::int64_t end;
        std::uint32_t index;
    };
    std::vector<Open> m_stack;
};

} // namespace xt::timeline
