#pragma once
// What an import saw: every event counted by phase exactly as written in the file, and every
// skipped or repaired event counted by reason (Diagnostics code) with located examples.

#include "core/base/diagnostics.h"

#include <cstdint>
#include <functional>
#include <map>
#include <string>

namespace xt::timeline {

struct ImportReport {
    std::string file;
    std::string container;       // "json", "gzip", "zip"
    bool objectForm = false;     // {"traceEvents": [...]} rather than a bare array
    std::string displayTimeUnit; // as written; times are always read as microseconds
    std::string distributedInfo; // the top-level "distributedInfo" object (Kineto) as JSON text
    std::uint64_t inputBytes = 0;
    std::uint64_t jsonBytes = 0;
    std::uint64_t events = 0;                    // JSON objects in the event array
    std::map<std::string, std::uint64_t> phases; // "X" -> count; unknown phases as written
    Diagnostics diagnostics;                     // reasons: countsByCode()
};

// How the parts of an import report what they skip or repair: a reason code, the byte offset
// and record number of the event concerned, a message. Diagnostics later in the same pass carry
// that record too until another one names its own.
using ImportWarn = std::function<void(const DiagnosticCode& code, std::uint64_t offset,
                                      std::uint64_t record, std::string message)>;

} // namespace xt::timeline
