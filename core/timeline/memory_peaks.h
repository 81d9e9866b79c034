#pragma once
// Memory peaks from counter series: for each series its maximum value, when it was first
// reached, and the objects (N/O/D lifetimes) alive at that moment: those of the counter's
// process, or of any process when the counter's own process holds none.

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
