#pragma once
// TensorFlow RunMetadata / StepStats (binary protobuf) import with the semantics of TF's
// timeline.py: one "<device> Compute" and one "<device> Tensors"
// process per device plus an "Allocators" process; ops placed on the first lane that is free;
// op names parsed from timeline_label ("name:op" node names on GPU tracer devices); dataflow
// arrows from producer end to consumer start across lanes; tensors as N/O/D objects living from
// their producer's start to its end or their last consumer's end minus 1 us, whichever is later,
// with the TensorDescription text as snapshot; a "Memory <allocator>" counter per allocator
// ("" included). The StepStats become a Chrome trace which the Chrome reader then imports.

#include "core/base/status.h"
#include "core/timeline/chrome_trace_reader.h"

#include <cstdint>
#include <string>
#include <string_view>

namespace xt::timeline {

// Whether `bytes` (a whole file) look like a binary RunMetadata or StepStats rather than JSON.
bool looksLikeStepStats(std::string_view bytes);

// Bounds on what a message may make the converter produce (docs/HARDENING.md). A message over
// one is refused with Unsupported, naming the device and node where it was crossed.
struct StepStatsLimits {
    std::uint32_t maxLanes = 4096;        // concurrent ops on one device (thread rows)
    std::uint64_t maxEvents = 20'000'000; // ops + 3 per output tensor (~150 bytes of JSON each)
};

// The Chrome trace (JSON object form) that TF's timeline tool would write for these bytes.
Result<std::string> stepStatsToChromeJson(std::string_view bytes,
                                          const StepStatsLimits& limits = {});

Result<TraceStore> importStepStats(const std::string& path, const ImportOptions& options = {},
                                   const StepStatsLimits& limits = {});

} // namespace xt::timeline
