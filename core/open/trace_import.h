#pragma once
// Imports one timeline file by what it holds: a TF RunMetadata / StepStats message through the
// TF timeline semantics, anything else through the Chrome importer (which says what it cannot
// read). The one import path of `xtrace timeline`, `xtrace timeline-diff` and the viewer.

#include "core/base/status.h"
#include "core/open/trace_kind.h"
#include "core/timeline/chrome_trace_reader.h"

#include <string>

namespace xt::open {

Result<timeline::TraceStore> importTimeline(const std::string& path,
                                            const timeline::ImportOptions& options = {});

} // namespace xt::open
