#pragma once
// Resident kB of the mapping that holds `p` (its Rss in /proc/self/smaps): other memory of the
// process (a sanitizer's, for one) does not count. 0 when no mapping holds it.

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <string>

namespace xt::test {

inline std::uint64_t residentKbAt(const void* p) {
    std::ifstream in("/proc/self/smaps");
    const auto at = reinterpret_cast<std::uintptr_t>(p);
    bool inside = false;
    for (std::string line; std::getline(in, line);) {
        unsigned long lo = 0, hi = 0, kb = 0;
        if (std::sscanf(line.c_str(), "%lx-%lx ", &lo, &hi) == 2 && line.find(':') != 8)
            inside = lo <= at && at < hi;
        else if (inside && std::sscanf(line.c_str(), "Rss: %lu kB", &kb) == 1)
            return kb;
    }
    return 0;
}

} // namespace xt::test
