#pragma once
// Which bytes of a sparse mirror file hold fetched data. The set lives in a map file beside the
// mirror's index (`<cacheDir>/.ranges/<host>/<path>`) that names the inode of the data file it
// describes, so a map never vouches for bytes of a file that replaced it. Readers and writers in
// any process hold an flock of the map file while they read, fetch and update it. A map that
// does not parse counts as empty: its bytes are fetched again, never assumed.

#include "core/base/fd_io.h"
#include "core/base/status.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace xt::storage {

// A set of disjoint, sorted, non-adjacent half-open byte ranges.
class ByteRanges {
public:
    using Range = std::pair<std::uint64_t, std::uint64_t>; // [first, second)

    void add(std::uint64_t begin, std::uint64_t end);
    void add(const ByteRanges& other);
    bool covers(std::uint64_t begin, std::uint64_t end) const;
    // The parts of [begin, end) that are not in the set, in order.
    std::vector<Range> missing(std::uint64_t begin, std::uint64_t end) const;
    std::uint64_t bytes() const;
    const std::vector<Range>& ranges() const { return m_ranges; }
    bool operator==(const ByteRanges&) const = default;

private:
    std::vector<Range> m_ranges;
};

struct RangeMap {
    std::uint64_t inode = 0; // of the data file the ranges belong to
    ByteRanges ranges;
};

// A map file opened (created when missing) and locked exclusively for as long as it lives.
class LockedRangeMap {
public:
    static Result<LockedRangeMap> open(const std::string& path);

    // The map as stored (empty, inode 0, when the file is new or damaged).
    RangeMap read() const;
    Status write(const RangeMap& map) const;

private:
    LockedRangeMap(UniqueFd fd, std::string path) : m_fd(std::move(fd)), m_path(std::move(path)) {}
    UniqueFd m_fd; // closing it releases the lock
    std::string m_path;
};

// The map file of the mirror file `rel` (host/path) in `cacheDir`.
std::string rangeMapPath(const std::string& cacheDir, const std::string& rel);

} // namespace xt::storage
