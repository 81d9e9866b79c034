#pragma once
// What the timeline view precomputes for each layer before drawing its extras: instants by
// thread, by process and global, each sorted by time; the flows with both ends, sorted by the
// start of either end's slice; each counter's value range; the slice density over the layer's
// span for the overview strip; the data's extent. Pure data over an immutable store, built off the
// GUI thread.

#include "core/base/progress.h"
#include "core/base/status.h"
#include "core/timeline/trace_store.h"

#include <cstdint>
#include <vector>

namespace xt::view {

struct LayerCache {
    static constexpr int kOverviewBuckets = 400;

    std::vector<std::vector<std::uint32_t>> instantsByThread, instantsByProcess;
    std::vector<std::uint32_t> globalInstants;
    std::vector<std::uint32_t> flowsByFrom, flowsByTo; // flow indices
    std::vector<double> counterMin, counterMax;        // finite values and 0
    std::vector<std::uint32_t> overview; // slice starts per bucket of [beginTime, endTime]
    // The data's extent (layer time): slices, counters, thread and process instants; global
    // instants (trace markers such as "Record Window End") only when there is nothing else.
    std::int64_t dataBegin = timeline::kNoTime, dataEnd = timeline::kNoTime;
};

// ErrorCode::Cancelled once `progress` returns false (checked between steps and every 64K
// slices of the density count).
Result<LayerCache> buildLayerCache(const timeline::TraceStore& store,
                                   const ProgressCallback& progress = {});

} // namespace xt::view
