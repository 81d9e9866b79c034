#pragma once
// TensorFlow RunMetadata / StepStats (binary protobuf) import with the semantics of TF's
// timeline.py (TIMELINE-SEMANTICS.md): one "<device> Compute" and one "<device> Tensors"
// process per device plus an "Allocators" process; ops placed on the first lane that is free;
// op names parsed from timeline_label ("name:op" node names on GPU tracer devices); dataflow
// arrows from producer end to consumer start across lanes; tensors as N/O/D objects living from
// their producer's start to their last consumer's end; a "Memory <allocator>" counter per
// allocator. The StepStats become a Chrome trace which the Chrome reader then imports.

#include "core/base/status.h"
#include "core/timeline/chrome_trace_reader.h"

#include <string>
#include <string_view>

namespace xt::timeline {

// Whether `bytes` look like a binary RunMetadata or StepStats rather than JSON.
bool looksLikeStepStats(std::string_view bytes);

// The Chrome trace (JSON object form) that TF's timeline tool would write for these bytes.
Result<std::string> stepStatsToChromeJson(std::string_view bytes);

Result<TraceStore> importStepStats(const std::string& path, const ImportOptions& options = {});

} // namespace xt::timeline
