#pragma once
// What each key of a run holds: dtype and shape (noting when they vary between records), how
// many records carry data, how many are empty (trace_once placeholders) or damaged. Built by
// decoding every record's column headers; payloads are not read.

#include "core/base/diagnostics.h"
#include "core/base/progress.h"
#include "core/xdl/trace_reader.h"

#include <optional>

namespace xt::xdl {

struct KeySummary {
    std::string key;
    std::optional<Dtype> dtype; // of the first record with data
    bool mixedDtypes = false;
    Shape shape; // of the first record with data
    bool varyingShape = false;
    std::uint64_t records = 0;      // records with data for this key
    std::uint64_t emptyRecords = 0; // empty columns (after trace_once, for instance)
    std::uint64_t damagedRecords = 0;
};

// One summary per key of the run, in RunReader::keys() order. Damaged columns are reported.
Result<std::vector<KeySummary>> summarizeKeys(const RunReader& run, Diagnostics& diag,
                                              const ProgressCallback& progress = {});

} // namespace xt::xdl
