#pragma once
// Memory peaks from counter series: for each series its maximum value, when it was first
// reached, and the objects (N/O/D lifetimes) alive at that moment. A series whose arg key names
// the allocator of TensorFlow tensor objects (tensorAllocation) lists that allocator's tensors
// exactly as timeline.py's allocator_maximums do; any other series lists the objects of its own
// process, or of any process when its own holds none.

#include "core/timeline/trace_store.h"

#include <cstdint>
#include <string>
#include <vector>

namespace xt::timeline {

// A tensor object's allocation, from the snapshot timeline.py writes ({"tensor_description":
// "<TensorDescription text>"}): its allocation_description's allocator_name and requested_bytes,
// "" and 0 when absent. `known` is false for objects without such a snapshot.
struct TensorAllocation {
    bool known = false;
    std::string allocator;
    std::int64_t bytes = 0;
};
TensorAllocation tensorAllocation(const TraceStore& store, const ObjectLifetime& object);

struct MemoryPeak {
    std::uint32_t series = 0; // index into TraceStore::counters()
    double peak = 0;
    std::int64_t ts = kNoTime;
    // Indices into TraceStore::objects(); an allocator's tensors largest first.
    std::vector<std::uint32_t> liveObjects;
    // An allocator's series: every allocation summed, and per live object its bytes and the op
    // slice that produced it (kNoIndex when none is found).
    bool byAllocator = false;
    std::int64_t allocatedBytes = 0;
    std::vector<std::int64_t> liveBytes;
    std::vector<std::uint32_t> producers;
};

// One entry per non-empty counter series, sorted by peak, largest first.
std::vector<MemoryPeak> memoryPeaks(const TraceStore& store);

} // namespace xt::timeline
