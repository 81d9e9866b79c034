#pragma once
// Slice search over the layers of a view: the slices whose name contains a text, ASCII
// case-insensitively. The string table is matched first, then the name column is scanned in
// chunks, so a background job reports progress and stops soon after it is cancelled.

#include "core/base/progress.h"
#include "core/base/status.h"
#include "core/timeline/trace_store.h"

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

namespace xt::view {

struct SliceHit {
    std::uint32_t layer = 0; // index into the stores searched
    std::uint32_t slice = 0;
    bool operator==(const SliceHit&) const = default;
};

// ASCII case-insensitive substring test (UTF-8 bytes outside ASCII compare exactly).
bool containsIgnoreCase(std::string_view haystack, std::string_view needle);

// Hits ordered by layer, then by start (equal starts by slice index); none for an empty needle.
// Progress counts strings and slices examined ("searching") and hits ordered ("ordering");
// ErrorCode::Cancelled once `progress` returns false.
Result<std::vector<SliceHit>> findSlices(std::span<const timeline::TraceStore* const> layers,
                                         std::string_view needle,
                                         const ProgressCallback& progress = {});

} // namespace xt::view
