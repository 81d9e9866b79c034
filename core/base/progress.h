#pragma once
// Progress reporting and cancellation for long work. A callback receives how much is done and
// returns false to ask the work to stop; the work then returns ErrorCode::Cancelled.

#include <cstdint>
#include <functional>
#include <string_view>

namespace xt {

struct ProgressReport {
    std::uint64_t done = 0;  // units finished (bytes, records, events: see `stage`)
    std::uint64_t total = 0; // 0 when unknown
    std::string_view stage;  // short human-readable label, e.g. "indexing"
};

// Returns false to cancel. Called from the thread doing the work, at most every few milliseconds.
using ProgressCallback = std::function<bool(const ProgressReport&)>;

// Calls `cb` when set; true means "go on".
inline bool reportProgress(const ProgressCallback& cb, std::uint64_t done, std::uint64_t total,
                           std::string_view stage) {
    return !cb || cb(ProgressReport{done, total, stage});
}

} // namespace xt
