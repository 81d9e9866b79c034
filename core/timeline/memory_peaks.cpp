#include "core/timeline/memory_peaks.h"

#include <algorithm>

namespace xt::timeline {

std::vector<MemoryPeak> memoryPeaks(const TraceStore& store) {
    std::vector<MemoryPeak> out;
    const auto counters = store.counters();
    const auto objects = store.objects();
    for (std::uint32_t i = 0; i < counters.size(); ++i) {
        const CounterSeries& cs = counters[i];
        if (cs.values.empty()) continue;
        const auto it = std::max_element(cs.values.begin(), cs.values.end());
        MemoryPeak mp;
        mp.series = i;
        mp.peak = *it;
        mp.ts = cs.ts[static_cast<std::size_t>(it - cs.values.begin())];
        auto liveAt = [&](const ObjectLifetime& ob) {
            return ob.created <= mp.ts && (ob.destroyed == kNoTime || ob.destroyed > mp.ts);
        };
        for (std::uint32_t o = 0; o < objects.size(); ++o)
            if (objects[o].process == cs.process && liveAt(objects[o])) mp.liveObjects.push_back(o);
        // Traces that keep objects in their own process (TF: "<device> Tensors" beside an
        // "Allocators" process) get every object alive at the peak.
        if (mp.liveObjects.empty())
            for (std::uint32_t o = 0; o < objects.size(); ++o)
                if (liveAt(objects[o])) mp.liveObjects.push_back(o);
        out.push_back(std::move(mp));
    }
    std::stable_sort(out.begin(), out.end(),
                     [](const MemoryPeak& a, const MemoryPeak& b) { return a.peak > b.peak; });
    return out;
}

} // namespace xt::timeline
