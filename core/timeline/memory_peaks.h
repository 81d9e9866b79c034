#pragma once
// Memory peaks from counter series: for each series its maximum value, when it was first
// reached, and the objects (N/O/D lifetimes of the same process) alive at that moment.

#include "core/timeline/trace_store.h"

#include <cstdint>
#include <vector>

namespace xt::timeline {

struct MemoryPeak {
    std::uint32_t series = 0; // index into TraceStore::counters()
    double peak = 0;
    std::int64_t ts = kNoTime;
    std::vector<std::uint32_t> liveObjects; // indices into TraceStore::objects()
};

// One entry per non-empty counter series, sorted by peak, largest first.
std::vector<MemoryPeak> memoryPeaks(const TraceStore& store);

} // namespace xt::timeline
