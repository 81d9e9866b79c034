#pragma once
// Summary files (docs/SUMMARY-FORMAT.md) taken apart in tests: where each section is, and the
// whole file's checksum made right again after a change.

#include "core/summary/part_summary.h"

#include <cstdint>
#include <cstring>
#include <map>
#include <string>

namespace xt::test {

// The offset of each section's header in a summary file's bytes, by section id: the id at +0,
// the count at +8, the payload's length at +16, the payload at +24.
inline std::map<std::uint32_t, std::size_t> summarySections(const std::string& b) {
    std::map<std::uint32_t, std::size_t> at;
    for (std::size_t p = 32; p + 24 <= b.size() - 16;) {
        std::uint32_t id;
        std::uint64_t len;
        std::memcpy(&id, b.data() + p, 4);
        std::memcpy(&len, b.data() + p + 16, 8);
        at[id] = p;
        p += 24 + len + (8 - len % 8) % 8;
    }
    return at;
}

// The footer's CRC of every byte before it, as a writer computes it.
inline void resealSummary(std::string& b) {
    const std::uint32_t c =
        summary::crc32({reinterpret_cast<const std::uint8_t*>(b.data()), b.size() - 16});
    std::memcpy(b.data() + b.size() - 16, &c, 4);
}

} // namespace xt::test
