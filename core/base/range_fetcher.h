#pragma once
// Bytes of a local file that may not all be there yet: a sparse copy of a remote file is filled
// in on demand. Whoever reads such a file calls ensure() before touching a byte range; a range
// that cannot be brought in is an error located in the file (never zeros taken for data). Local
// files have no fetcher. Implementations are safe to call from several threads.

#include "core/base/status.h"

#include <cstdint>

namespace xt {

class RangeFetcher {
public:
    virtual ~RangeFetcher() = default;
    // Makes bytes [offset, offset + length) of the local file readable (clipped to its size).
    virtual Status ensure(std::uint64_t offset, std::uint64_t length) = 0;
};

} // namespace xt
