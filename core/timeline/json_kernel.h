#pragma once
// Internal seam between the importer's entry points (built for any x86-64) and the simdjson
// parsing code (built for AVX2 when XT_JSON_AVX2 is on). Not part of the public API.

#include "core/base/progress.h"
#include "core/base/status.h"
#include "core/timeline/chrome_trace_reader.h"
#include "core/timeline/trace_store.h"

#include <string>

namespace xt::timeline {

// Whether this CPU can run the parsing code as compiled.
bool jsonKernelSupported();
// The parser proper (chrome_trace_reader.cpp).
Result<TraceStore> importChromeTraceParsed(Result<TraceBytes> bytes, const ImportOptions& options,
                                           const std::string& name);

} // namespace xt::timeline
