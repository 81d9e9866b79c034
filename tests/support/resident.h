#pragma once
// Resident kB of the mapping that holds `p` (its Rss in /proc/self/smaps): other memory of the
// process (a sanitizer's, for one) does not count. 0 when no mapping holds it. smapsKbAt and
// smapsFieldAt read other fields of it ("AnonHugePages", "VmFlags", ...). residentKbIn counts
// the pages of [p, p + bytes) mapped in (/proc/self/pagemap): a file's large page-cache folios
// are mapped in and out by the MiB, so a mapping's Rss says little about one part of it.

#include <cstdint>
#include <cstdio>
#include <fcntl.h>
#include <fstream>
#include <string>
#include <unistd.h>

namespace xt::test {

// The text after "field:" in the smaps entry of the mapping that holds `p` ("" when none).
inline std::string smapsFieldAt(const void* p, const std::string& field) {
    std::ifstream in("/proc/self/smaps");
    const auto at = reinterpret_cast<std::uintptr_t>(p);
    const std::string prefix = field + ":";
    bool inside = false;
    for (std::string line; std::getline(in, line);) {
        unsigned long lo = 0, hi = 0;
        if (std::sscanf(line.c_str(), "%lx-%lx ", &lo, &hi) == 2 && line.find(':') != 8)
            inside = lo <= at && at < hi;
        else if (inside && line.rfind(prefix, 0) == 0)
            return line.substr(prefix.size());
    }
    return {};
}

inline std::uint64_t smapsKbAt(const void* p, const std::string& field) {
    unsigned long kb = 0;
    return std::sscanf(smapsFieldAt(p, field).c_str(), "%lu kB", &kb) == 1 ? kb : 0;
}

// A "NAME:  N kB" field of /proc/self/status ("VmHWM", "RssAnon"), in kB; -1 when absent.
inline long statusKb(const std::string& field) {
    std::ifstream in("/proc/self/status");
    const std::string prefix = field + ":";
    for (std::string line; std::getline(in, line);)
        if (line.rfind(prefix, 0) == 0) return std::stol(line.substr(prefix.size()));
    return -1;
}

inline std::uint64_t residentKbAt(const void* p) {
    return smapsKbAt(p, "Rss");
}

inline std::uint64_t residentKbIn(const void* p, std::uint64_t bytes) {
    const std::uint64_t page = std::uint64_t(::sysconf(_SC_PAGESIZE));
    const auto at = reinterpret_cast<std::uintptr_t>(p);
    const int fd = ::open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
    std::uint64_t kb = 0;
    for (std::uintptr_t v = at / page; fd >= 0 && bytes && v <= (at + bytes - 1) / page; ++v) {
        std::uint64_t entry = 0;
        if (::pread(fd, &entry, 8, off_t(v * 8)) != 8) break;
        if (entry >> 63) kb += page / 1024; // present
    }
    if (fd >= 0) ::close(fd);
    return kb;
}

} // namespace xt::test
