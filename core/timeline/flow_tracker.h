#pragma once
// Flow arrows. v1: s / t / f points grouped by (category, name, id) and taken in time order;
// s starts a chain, t continues it, f ends it, and each point binds to a slice of its thread
// (the enclosing one, or for an f with binding point "next" the next one to start). v2: slices
// carrying a bind_id, from the latest flow_out to each later flow_in of the same id.

#include "core/base/huge_pages.h"
#include "core/timeline/import_report.h"
#include "core/timeline/string_table.h"
#include "core/timeline/trace_store.h"

#include <cstdint>
#include <span>
#include <vector>

namespace xt::timeline {

// flow_in / flow_out of a slice with a bind_id.
enum FlowFlags : std::uint8_t { kFlowIn = 1, kFlowOut = 2 };

struct FlowPoint {
    StringId cat = 0, name = 0;
    std::uint64_t id = 0; // TraceStoreBuilder::idKey
    std::int64_t ts = 0;  // ns
    std::uint32_t thread = 0;
    char ph = 's';           // 's', 't' or 'f'
    bool enclosing = true;   // false: binds to the next slice (an f with "bp":"n", the default)
    std::uint32_t order = 0; // arrival (record number)
};

class FlowTracker {
public:
    // The slices a point can bind to, kNoIndex when there is none.
    class SliceLookup {
    public:
        virtual ~SliceLookup() = default;
        virtual std::uint32_t enclosing(std::uint32_t thread, std::int64_t ts) const = 0;
        virtual std::uint32_t next(std::uint32_t thread, std::int64_t ts) const = 0;
    };

    // chromeCompatible: a t or f before any s of its id is dropped ("flow-without-start")
    // instead of bound, back in time, to the s that follows it ("backwards-flow").
    explicit FlowTracker(bool chromeCompatible) : m_chromeCompatible(chromeCompatible) {}

    void point(const FlowPoint& p) { m_points.push_back(p); }
    // A final slice with a bind_id and flow_in / flow_out (FlowFlags); slices in index order.
    void bindable(std::uint32_t slice, StringId bindId, std::uint8_t flags) {
        m_bindable.push_back(Bindable{slice, bindId, flags});
    }

    // Appends the arrows to `out`: v1 first, then v2 (named after their start slice). `record`
    // is the record number diagnostics carry until a point names its own; left at the last one.
    void bind(const SliceLookup& slices, std::span<const std::int64_t> sliceStart,
              std::span<const StringId> sliceName, HugePageVector<Flow>& out, std::uint64_t& record,
              const ImportWarn& warn);

private:
    struct Bindable {
        std::uint32_t slice;
        StringId bindId;
        std::uint8_t flags;
    };
    void bindV1(const SliceLookup& slices, HugePageVector<Flow>& out, std::uint64_t& record,
                const ImportWarn& warn);
    void bindV2(std::span<const std::int64_t> sliceStart, std::span<const StringId> sliceName,
                HugePageVector<Flow>& out, std::uint64_t record, const ImportWarn& warn);

    bool m_chromeCompatible;
    HugePageVector<FlowPoint> m_points;
    HugePageVector<Bindable> m_bindable;
};

} // namespace xt::timeline
